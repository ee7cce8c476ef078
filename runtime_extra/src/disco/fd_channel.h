/*
 * The link of a worker that is another process: one stream socket (a socketpair made by the
 * process pool), frames as u64 little-endian length + bytes. Both ends use send(MSG_NOSIGNAL),
 * so a peer that died is an error return, never SIGPIPE. When the fds are two pipes instead
 * (TVM's read_fd/write_fd convention), plain write() is used.
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
  FdLink(int read_fd, int write_fd);
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
  bool ReadAll(char* data, size_t n);
  /*! \brief Reads until at least `need` bytes are buffered; false on EOF or error. */
  bool Fill(size_t need);
  size_t Buffered() const { return in_end_ - in_begin_; }
  static constexpr size_t kReadChunk = 64 * 1024;
  int read_fd_;
  int write_fd_;
  bool write_closed_ = false;
  // Bytes read but not yet returned (the start of the next frames): in_[in_begin_, in_end_).
  std::unique_ptr<char[]> in_;
  size_t in_begin_ = 0;
  size_t in_end_ = 0;
};

class FdWorkerChannel : public WorkerChannel {
 public:
  FdWorkerChannel(int read_fd, int write_fd) : link_(read_fd, write_fd) {}
  bool RecvCommand(std::string* frame) override { return link_.Read(frame, -1) == RecvStatus::kFrame; }
  bool SendReply(const std::string& frame) override { return link_.Write(frame, -1); }

 private:
  FdLink link_;
};

class FdControllerChannel : public ControllerChannel {
 public:
  FdControllerChannel(int read_fd, int write_fd) : link_(read_fd, write_fd) {}
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
