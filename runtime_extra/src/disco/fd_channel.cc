#include "fd_channel.h"

#include <errno.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

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

bool FdLink::WriteAll(const char* data, size_t n, int timeout_ms) {
  while (n > 0) {
    if (timeout_ms >= 0 && !WaitFd(write_fd_, POLLOUT, timeout_ms)) return false;
    ssize_t k = ::send(write_fd_, data, n, MSG_NOSIGNAL | (timeout_ms >= 0 ? MSG_DONTWAIT : 0));
    if (k < 0 && errno == ENOTSOCK) k = ::write(write_fd_, data, n);
    if (k < 0) {
      if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK) continue;
      return false;  // EPIPE/ECONNRESET: the peer is gone
    }
    data += k;
    n -= static_cast<size_t>(k);
  }
  return true;
}

bool FdLink::Write(const std::string& frame, int timeout_ms) {
  if (write_closed_) return false;
  uint64_t n = frame.size();
  char header[8];
  std::memcpy(header, &n, 8);
  return WriteAll(header, 8, timeout_ms) && WriteAll(frame.data(), frame.size(), timeout_ms);
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

RecvStatus FdLink::Read(std::string* frame, int timeout_ms) {
  if (timeout_ms >= 0 && !WaitFd(read_fd_, POLLIN, timeout_ms)) return RecvStatus::kTimeout;
  char header[8];
  if (!ReadAll(header, 8)) return RecvStatus::kClosed;
  uint64_t n;
  std::memcpy(&n, header, 8);
  if (n > kMaxFrame) return RecvStatus::kClosed;
  frame->resize(static_cast<size_t>(n));
  if (n > 0 && !ReadAll(&(*frame)[0], static_cast<size_t>(n))) return RecvStatus::kClosed;
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
