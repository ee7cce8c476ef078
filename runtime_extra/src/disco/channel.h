/*
 * The two ends of a controller <-> worker link. A link carries whole frames (message.h) in
 * order, commands one way and replies the other. Two implementations: in-memory queues for
 * workers that are threads of the controller (thread_channel.h) and a socket for workers
 * that are processes (fd_channel.h).
 *
 * Why the controller's receive takes a timeout and reports "closed" separately: a worker that
 * hangs or dies must end the controller's wait with an error, never block it forever.
 */
#ifndef TVM_RUNTIME_EXTRA_SRC_DISCO_CHANNEL_H_
#define TVM_RUNTIME_EXTRA_SRC_DISCO_CHANNEL_H_

#include <string>
#include <vector>

namespace tvm {
namespace runtime {
namespace disco {

/*! \brief The worker's end. Used by the worker's own thread only. */
class WorkerChannel {
 public:
  virtual ~WorkerChannel() = default;
  /*! \brief Blocks for the next command; false when the controller is gone (EOF or closed). */
  virtual bool RecvCommand(std::string* frame) = 0;
  /*! \brief Sends a reply; false when the controller is gone (the worker then stops). */
  virtual bool SendReply(const std::string& frame) = 0;
};

enum class RecvStatus { kFrame, kTimeout, kClosed };

/*! \brief The controller's end. Used by the controller's thread only. */
class ControllerChannel {
 public:
  virtual ~ControllerChannel() = default;
  /*!
   * \brief Sends a command, waiting at most `timeout_ms` for room (a worker that stopped
   * reading must not block the controller). False when the worker is gone or the wait ran out.
   */
  virtual bool SendCommand(const std::string& frame, int timeout_ms) = 0;
  /*!
   * \brief Sends several commands in order as one hand-off where the link allows (one write,
   * one wake-up of the worker): a dropped DRef's kill goes out with the next command.
   */
  virtual bool SendCommands(const std::vector<const std::string*>& frames, int timeout_ms) {
    for (const std::string* f : frames) {
      if (!SendCommand(*f, timeout_ms)) return false;
    }
    return true;
  }
  /*! \brief Waits at most `timeout_ms` (0: just look) for the next reply. */
  virtual RecvStatus RecvReply(std::string* frame, int timeout_ms) = 0;
  /*! \brief Ends the command direction: the worker's RecvCommand returns false. Idempotent. */
  virtual void CloseCommands() = 0;
};

}  // namespace disco
}  // namespace runtime
}  // namespace tvm
#endif  // TVM_RUNTIME_EXTRA_SRC_DISCO_CHANNEL_H_
