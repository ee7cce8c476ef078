#include "fd_channel.h"

#include <errno.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/uio.h>
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
}  // namespace

FdLink::FdLink(int read_fd, int write_fd) : read_fd_(read_fd), write_fd_(write_fd) {}

FdLink::~FdLink() {
  if (read_fd_ >= 0) ::close(read_fd_);
  if (write_fd_ >= 0 && write_fd_ != read_fd_) ::close(write_fd_);
}

bool FdLink::WriteV(iovec* iov, int count, int timeout_ms) {
  // Try first, wait only when the socket is full: one syscall per frame in the common case
  // (a poll before every send doubled the cost of a small command).
  int flags = MSG_NOSIGNAL | (timeout_ms >= 0 ? MSG_DONTWAIT : 0);
  while (count > 0) {
    msghdr msg{};
    msg.msg_iov = iov;
    msg.msg_iovlen = static_cast<size_t>(count);
    ssize_t k = ::sendmsg(write_fd_, &msg, flags);
    if (k < 0 && errno == ENOTSOCK) k = ::writev(write_fd_, iov, count);  // a pipe
    if (k < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) {
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

bool FdLink::ReadAll(char* data, size_t n) {
  while (n > 0) {
    ssize_t k = ::read(read_fd_, data, n);
    if (k < 0 && errno == EINTR) continue;
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
    ssize_t k = ::read(read_fd_, in_.get() + in_end_, kReadChunk - in_end_);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return false;  // EOF or error: the peer is gone
    in_end_ += static_cast<size_t>(k);
  }
  return true;
}

RecvStatus FdLink::Read(std::string* frame, int timeout_ms) {
  // Small frames come several to a read(): keep what arrived beyond this frame for the next
  // call, which then returns without a syscall.
  if (Buffered() < 8) {
    if (Buffered() == 0 && timeout_ms >= 0 && !WaitFd(read_fd_, POLLIN, timeout_ms)) {
      return RecvStatus::kTimeout;
    }
    if (!Fill(8)) return RecvStatus::kClosed;
  }
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
