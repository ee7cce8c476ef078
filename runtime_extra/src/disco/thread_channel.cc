#include "thread_channel.h"

#include <chrono>

namespace tvm {
namespace runtime {
namespace disco {

bool FrameQueue::Push(std::string frame) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (closed_) return false;
    frames_.push_back(std::move(frame));
  }
  cv_.notify_one();
  return true;
}

RecvStatus FrameQueue::Pop(std::string* frame, int timeout_ms) {
  std::unique_lock<std::mutex> lock(mu_);
  auto ready = [this] { return !frames_.empty() || closed_; };
  if (timeout_ms < 0) {
    cv_.wait(lock, ready);
  } else if (!cv_.wait_for(lock, std::chrono::milliseconds(timeout_ms), ready)) {
    return RecvStatus::kTimeout;
  }
  // Frames queued before Close are still delivered: a worker's last error is not lost.
  if (frames_.empty()) return RecvStatus::kClosed;
  *frame = std::move(frames_.front());
  frames_.pop_front();
  return RecvStatus::kFrame;
}

void FrameQueue::Close() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    closed_ = true;
  }
  cv_.notify_all();
}

}  // namespace disco
}  // namespace runtime
}  // namespace tvm
