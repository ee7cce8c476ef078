#include "fd_channel.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace tvm {
namespace runtime {
namespace disco {

namespace {
// A frame larger than this is a corrupt length, not a message (debug tensors included).
constexpr uint64_t kMaxFrame = uint64_t{1} << 34;

/*! \brief Waits for `events` on fd; true when ready (or the peer hung up: the next call says so). */
bool WaitFd(int fd, short events, int timeout_ms) {
  pollfd p{fd, events, 0};
  for (;;) {
    int rc = ::poll(&p, 1, timeout_ms);
    if (rc > 0) return true;
    if (rc == 0) return false;
    if (errno != EINTR) return true;  // let the read/write report the error
  }
}

bool IsSocket(int fd) {
  struct stat st;
  return ::fstat(fd, &st) == 0 && S_ISSOCK(st.st_mode);
}

bool SigpipeIgnored() {
  struct sigaction sa;
  return ::sigaction(SIGPIPE, nullptr, &sa) == 0 && sa.sa_handler == SIG_IGN;
}

void SetNonBlocking(int fd) {
  int flags = ::fcntl(fd, F_GETFL);
  if (flags >= 0 && !(flags & O_NONBLOCK)) ::fcntl(fd, F_SETFL, flags | O_NONBLOCK);
}

bool WouldBlock(int err) { return err == EAGAIN || err == EWOULDBLOCK; }
}  // namespace

FdLink::FdLink(int read_fd, int write_fd, bool nonblocking)
    : read_fd_(read_fd), write_fd_(write_fd), nonblocking_(nonblocking) {
  read_socket_ = IsSocket(read_fd);
  write_socket_ = write_fd == read_fd ? read_socket_ : IsSocket(write_fd);
  if (nonblocking_) {
    // Sockets take MSG_DONTWAIT per call; pipes need the flag on the file (ours alone: the
    // pool hands the controller's ends over and keeps no copy).
    if (!read_socket_) SetNonBlocking(read_fd);
    if (!write_socket_) SetNonBlocking(write_fd);
  }
  guard_sigpipe_ = !write_socket_ && !SigpipeIgnored();
}

FdLink::~FdLink() {
  if (read_fd_ >= 0) ::close(read_fd_);
  if (write_fd_ >= 0 && write_fd_ != read_fd_) ::close(write_fd_);
}

ssize_t FdLink::WriteOnce(iovec* iov, int count, bool dontwait) {
  if (write_socket_) {
    msghdr msg{};
    msg.msg_iov = iov;
    msg.msg_iovlen = static_cast<size_t>(count);
    return ::sendmsg(write_fd_, &msg, MSG_NOSIGNAL | (dontwait ? MSG_DONTWAIT : 0));
  }
  if (!guard_sigpipe_) return ::writev(write_fd_, iov, count);
  // This process would die of SIGPIPE on a dead reader: block it for this write and take
  // back the one the write raised (unless one was already pending before).
  sigset_t pipe_set, old_set, pending;
  sigemptyset(&pipe_set);
  sigaddset(&pipe_set, SIGPIPE);
  ::pthread_sigmask(SIG_BLOCK, &pipe_set, &old_set);
  bool was_pending = ::sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE);
  ssize_t k = ::writev(write_fd_, iov, count);
  int err = errno;
  if (k < 0 && err == EPIPE && !was_pending) {
    timespec zero{0, 0};
    while (::sigtimedwait(&pipe_set, nullptr, &zero) < 0 && errno == EINTR) {
    }
  }
  ::pthread_sigmask(SIG_SETMASK, &old_set, nullptr);
  errno = err;
  return k;
}

bool FdLink::WriteV(iovec* iov, int count, int timeout_ms) {
  // Try first, wait only when the link is full: one syscall per frame batch in the common
  // case (a poll before every send doubled the cost of a small command).
  bool dontwait = timeout_ms >= 0;
  while (count > 0) {
    ssize_t k = WriteOnce(iov, count, dontwait);
    if (k < 0) {
      if (errno == EINTR) continue;
      if (WouldBlock(errno)) {
        if (!WaitFd(write_fd_, POLLOUT, timeout_ms)) return false;
        continue;
      }
      return false;  // EPIPE/ECONNRESET: the peer is gone
    }
    size_t done = static_cast<size_t>(k);
    while (count > 0 && done >= iov->iov_len) {
      done -= iov->iov_len;
      ++iov;
      --count;
    }
    if (count > 0) {
      iov->iov_base = static_cast<char*>(iov->iov_base) + done;
      iov->iov_len -= done;
    }
  }
  return true;
}

bool FdLink::Write(const std::string& frame, int timeout_ms) {
  if (write_closed_) return false;
  uint64_t n = frame.size();
  char header[8];
  std::memcpy(header, &n, 8);
  iovec iov[2] = {{header, 8}, {const_cast<char*>(frame.data()), frame.size()}};
  return WriteV(iov, 2, timeout_ms);
}

bool FdLink::WriteFrames(const std::vector<const std::string*>& frames, int timeout_ms) {
  if (write_closed_) return false;
  constexpr size_t kBatch = 256;  // frames per sendmsg: 512 iovecs, under IOV_MAX (1024)
  for (size_t start = 0; start < frames.size(); start += kBatch) {
    size_t count = std::min(kBatch, frames.size() - start);
    std::vector<uint64_t> sizes(count);
    std::vector<iovec> iov(2 * count);
    for (size_t i = 0; i < count; ++i) {
      const std::string& f = *frames[start + i];
      sizes[i] = f.size();  // the u64 length header, little-endian as Write's memcpy
      iov[2 * i] = {&sizes[i], 8};
      iov[2 * i + 1] = {const_cast<char*>(f.data()), f.size()};
    }
    if (!WriteV(iov.data(), static_cast<int>(iov.size()), timeout_ms)) return false;
  }
  return true;
}

ssize_t FdLink::ReadOnce(char* data, size_t n) {
  if (read_socket_ && nonblocking_) return ::recv(read_fd_, data, n, MSG_DONTWAIT);
  return ::read(read_fd_, data, n);
}

bool FdLink::ReadAll(char* data, size_t n) {
  while (n > 0) {
    ssize_t k = ReadOnce(data, n);
    if (k < 0 && errno == EINTR) continue;
    if (k < 0 && WouldBlock(errno)) {  // the rest of a frame that has begun: wait for it
      WaitFd(read_fd_, POLLIN, -1);
      continue;
    }
    if (k <= 0) return false;  // EOF or error: the peer is gone
    data += k;
    n -= static_cast<size_t>(k);
  }
  return true;
}

bool FdLink::Fill(size_t need) {
  if (!in_) in_.reset(new char[kReadChunk]);  // no zero-fill: only read bytes are looked at
  if (in_end_ - in_begin_ < need && kReadChunk - in_begin_ < need) {
    std::memmove(in_.get(), in_.get() + in_begin_, in_end_ - in_begin_);
    in_end_ -= in_begin_;
    in_begin_ = 0;
  }
  while (in_end_ - in_begin_ < need) {
    ssize_t k = ReadOnce(in_.get() + in_end_, kReadChunk - in_end_);
    if (k < 0 && errno == EINTR) continue;
    if (k < 0 && WouldBlock(errno)) {
      WaitFd(read_fd_, POLLIN, -1);
      continue;
    }
    if (k <= 0) return false;  // EOF or error: the peer is gone
    in_end_ += static_cast<size_t>(k);
  }
  return true;
}

RecvStatus FdLink::Read(std::string* frame, int timeout_ms) {
  // Small frames come several to a read(): keep what arrived beyond this frame for the next
  // call, which then returns without a syscall.
  if (Buffered() == 0 && timeout_ms >= 0) {
    // Bounded: no byte of a frame yet. A non-blocking end reads first (one syscall when the
    // frame is there, or to find the link idle) and polls only to wait.
    if (!nonblocking_) {
      if (!WaitFd(read_fd_, POLLIN, timeout_ms)) return RecvStatus::kTimeout;
    } else {
      if (!in_) in_.reset(new char[kReadChunk]);
      in_begin_ = in_end_ = 0;
      for (bool waited = false;;) {
        ssize_t k = ReadOnce(in_.get(), kReadChunk);
        if (k > 0) {
          in_end_ = static_cast<size_t>(k);
          break;
        }
        if (k == 0) return RecvStatus::kClosed;
        if (errno == EINTR) continue;
        if (!WouldBlock(errno)) return RecvStatus::kClosed;
        if (timeout_ms == 0 || waited) return RecvStatus::kTimeout;
        if (!WaitFd(read_fd_, POLLIN, timeout_ms)) return RecvStatus::kTimeout;
        waited = true;
      }
    }
  }
  if (Buffered() < 8 && !Fill(8)) return RecvStatus::kClosed;
  uint64_t n;
  std::memcpy(&n, in_.get() + in_begin_, 8);
  if (n > kMaxFrame) return RecvStatus::kClosed;
  in_begin_ += 8;
  frame->resize(static_cast<size_t>(n));
  size_t have = std::min<size_t>(Buffered(), static_cast<size_t>(n));
  if (have > 0) std::memcpy(&(*frame)[0], in_.get() + in_begin_, have);
  in_begin_ += have;
  if (in_begin_ == in_end_) in_begin_ = in_end_ = 0;
  // The rest of a large frame (a tensor) is read straight into it.
  if (have < n && !ReadAll(&(*frame)[have], static_cast<size_t>(n) - have)) return RecvStatus::kClosed;
  return RecvStatus::kFrame;
}

void FdLink::ShutdownWrite() {
  if (write_closed_) return;
  write_closed_ = true;
  if (write_fd_ == read_fd_) {
    ::shutdown(write_fd_, SHUT_WR);  // keep reading the worker's last replies
  } else {
    ::close(write_fd_);
    write_fd_ = -1;
  }
}

}  // namespace disco
}  // namespace runtime
}  // namespace tvm
