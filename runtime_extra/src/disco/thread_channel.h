/*
 * The link of a worker that is a thread of the controller's process: two queues of frames,
 * each a mutex + condition variable. Frames are still encoded bytes, so a threaded worker
 * sees exactly what a process worker sees (the same argument checks, the same errors).
 */
#ifndef TVM_RUNTIME_EXTRA_SRC_DISCO_THREAD_CHANNEL_H_
#define TVM_RUNTIME_EXTRA_SRC_DISCO_THREAD_CHANNEL_H_

#include <atomic>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <string>
#include <vector>

#include "channel.h"

namespace tvm {
namespace runtime {
namespace disco {

/*! \brief One direction: push never blocks; pop waits (optionally bounded). */
class FrameQueue {
 public:
  /*! \brief False when the queue is closed (the frame is dropped). */
  bool Push(std::string frame);
  /*! \brief Several frames under one lock and one wake-up; false when closed. */
  bool PushAll(const std::vector<const std::string*>& frames);
  /*! \brief timeout_ms < 0 waits forever. */
  RecvStatus Pop(std::string* frame, int timeout_ms);
  void Close();

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::string> frames_;
  bool closed_ = false;
  // Lock-free mirrors of frames_.size() and closed_ for the brief look before sleeping.
  std::atomic<size_t> pending_{0};
  std::atomic<bool> closed_flag_{false};
  static constexpr int kSpinUs = 50;
};

/*! \brief Both ends of one in-process link (shared by the controller and the worker thread). */
class ThreadChannel : public WorkerChannel, public ControllerChannel {
 public:
  bool RecvCommand(std::string* frame) override { return commands_.Pop(frame, -1) == RecvStatus::kFrame; }
  bool SendReply(const std::string& frame) override { return replies_.Push(frame); }
  bool SendCommand(const std::string& frame, int) override { return commands_.Push(frame); }
  bool SendCommands(const std::vector<const std::string*>& frames, int) override {
    return commands_.PushAll(frames);
  }
  RecvStatus RecvReply(std::string* frame, int timeout_ms) override {
    return replies_.Pop(frame, timeout_ms);
  }
  void CloseCommands() override { commands_.Close(); }
  /*! \brief Called by the worker thread as it exits: the controller sees kClosed after the
   * replies already queued. */
  void CloseReplies() { replies_.Close(); }

 private:
  FrameQueue commands_;
  FrameQueue replies_;
};

}  // namespace disco
}  // namespace runtime
}  // namespace tvm
#endif  // TVM_RUNTIME_EXTRA_SRC_DISCO_THREAD_CHANNEL_H_
