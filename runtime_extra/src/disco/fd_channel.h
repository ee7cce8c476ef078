/*
 * The link of a worker that is another process: two pipes (what ProcessSession's pool makes,
 * TVM's read_fd/write_fd convention) or one stream socket (a SocketSession's TCP link, or a
 * pool that passes the same socket twice); frames as u64 little-endian length + bytes.
 *
 * Why pipes for local workers: on Linux a small write to a pipe and the reader's wake-up cost
 * about half what the same bytes through an AF_UNIX socketpair cost (measured: 6.5 vs 13 us
 * per ping-pong), and a call_packed + sync is a few such hand-offs.
 *
 * A socket is written with send(MSG_NOSIGNAL), so a peer that died is an error return, never
 * SIGPIPE. A pipe has no such flag: where the process ignores SIGPIPE (every Python process
 * does) a dead reader is EPIPE; otherwise the write runs with SIGPIPE blocked and a SIGPIPE it
 * raised is taken back before the mask is restored, so the link never kills its process.
 *
 * The controller's end is non-blocking: a look at a link (timeout 0) and a read of a reply
 * that is already there cost one read() each, and poll() is called only to wait.
 *
 * EOF between frames means the peer closed the link: for a worker, its controller is gone
 * (it stops); for the controller, the worker is gone (an error naming it). EOF inside a frame
 * is reported the same way: the peer is gone either way.
 */
#ifndef TVM_RUNTIME_EXTRA_SRC_DISCO_FD_CHANNEL_H_
#define TVM_RUNTIME_EXTRA_SRC_DISCO_FD_CHANNEL_H_

#include <sys/uio.h>

#include <memory>
#include <string>
#include <vector>

#include "channel.h"

namespace tvm {
namespace runtime {
namespace disco {

/*! \brief Frames over a (read fd, write fd) pair; the same fd twice for a socket. Owns the fds. */
class FdLink {
 public:
  /*! \brief `nonblocking`: the controller's end (reads and writes try first, poll to wait). */
  FdLink(int read_fd, int write_fd, bool nonblocking);
  ~FdLink();
  FdLink(const FdLink&) = delete;
  FdLink& operator=(const FdLink&) = delete;
  /*! \brief timeout_ms < 0 blocks. False on a closed peer or when the wait ran out. */
  bool Write(const std::string& frame, int timeout_ms);
  /*! \brief Several frames in one sendmsg (as many as fit in one iovec array at a time). */
  bool WriteFrames(const std::vector<const std::string*>& frames, int timeout_ms);
  /*! \brief timeout_ms < 0 blocks. kTimeout only when no byte of a frame has arrived yet. */
  RecvStatus Read(std::string* frame, int timeout_ms);
  /*! \brief Shuts the write direction (the peer reads EOF). */
  void ShutdownWrite();

 private:
  bool WriteV(iovec* iov, int count, int timeout_ms);
  /*! \brief One sendmsg / writev; -1 with errno as they set it. */
  ssize_t WriteOnce(iovec* iov, int count, bool dontwait);
  /*! \brief One read of up to n bytes; -1 with errno (EAGAIN only on a non-blocking end). */
  ssize_t ReadOnce(char* data, size_t n);
  bool ReadAll(char* data, size_t n);
  /*! \brief Reads until at least `need` bytes are buffered; false on EOF or error. */
  bool Fill(size_t need);
  size_t Buffered() const { return in_end_ - in_begin_; }
  static constexpr size_t kReadChunk = 64 * 1024;
  int read_fd_;
  int write_fd_;
  bool nonblocking_;
  bool read_socket_ = false;
  bool write_socket_ = false;
  // A pipe write in a process that does not ignore SIGPIPE runs with it blocked.
  bool guard_sigpipe_ = false;
  bool write_closed_ = false;
  // Bytes read but not yet returned (the start of the next frames): in_[in_begin_, in_end_).
  std::unique_ptr<char[]> in_;
  size_t in_begin_ = 0;
  size_t in_end_ = 0;
};

class FdWorkerChannel : public WorkerChannel {
 public:
  FdWorkerChannel(int read_fd, int write_fd) : link_(read_fd, write_fd, false) {}
  bool RecvCommand(std::string* frame) override { return link_.Read(frame, -1) == RecvStatus::kFrame; }
  bool SendReply(const std::string& frame) override { return link_.Write(frame, -1); }

 private:
  FdLink link_;
};

class FdControllerChannel : public ControllerChannel {
 public:
  FdControllerChannel(int read_fd, int write_fd) : link_(read_fd, write_fd, true) {}
  bool SendCommand(const std::string& frame, int timeout_ms) override {
    return link_.Write(frame, timeout_ms);
  }
  bool SendCommands(const std::vector<const std::string*>& frames, int timeout_ms) override {
    return link_.WriteFrames(frames, timeout_ms);
  }
  RecvStatus RecvReply(std::string* frame, int timeout_ms) override {
    return link_.Read(frame, timeout_ms);
  }
  void CloseCommands() override { link_.ShutdownWrite(); }

 private:
  FdLink link_;
};

}  // namespace disco
}  // namespace runtime
}  // namespace tvm
#endif  // TVM_RUNTIME_EXTRA_SRC_DISCO_FD_CHANNEL_H_
