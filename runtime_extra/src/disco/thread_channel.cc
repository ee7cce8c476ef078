#include "thread_channel.h"

#include <chrono>
#include <thread>

namespace tvm {
namespace runtime {
namespace disco {

bool FrameQueue::Push(std::string frame) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (closed_) return false;
    frames_.push_back(std::move(frame));
    pending_.fetch_add(1, std::memory_order_release);
  }
  cv_.notify_one();
  return true;
}

bool FrameQueue::PushAll(const std::vector<const std::string*>& frames) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (closed_) return false;
    for (const std::string* f : frames) frames_.push_back(*f);
    pending_.fetch_add(frames.size(), std::memory_order_release);
  }
  cv_.notify_one();
  return true;
}

RecvStatus FrameQueue::Pop(std::string* frame, int timeout_ms) {
  if (timeout_ms != 0) {
    // A command's reply usually comes within microseconds: look for it briefly before
    // sleeping, since a sleep + wake-up through the kernel costs tens of microseconds on a
    // busy machine. Bounded (kSpinUs) and yielding, so an idle worker costs nothing.
    auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(kSpinUs);
    while (pending_.load(std::memory_order_acquire) == 0 && !closed_flag_.load()) {
      if (std::chrono::steady_clock::now() >= until) break;
      std::this_thread::yield();
    }
  }
  std::unique_lock<std::mutex> lock(mu_);
  auto ready = [this] { return !frames_.empty() || closed_; };
  if (timeout_ms == 0) {
    // Just look: a zero-length timed wait still sleeps in the kernel and reschedules, which
    // made every controller wait ~80 us slower per other thread worker it glanced at.
    if (!ready()) return RecvStatus::kTimeout;
  } else if (timeout_ms < 0) {
    cv_.wait(lock, ready);
  } else if (!cv_.wait_for(lock, std::chrono::milliseconds(timeout_ms), ready)) {
    return RecvStatus::kTimeout;
  }
  // Frames queued before Close are still delivered: a worker's last error is not lost.
  if (frames_.empty()) return RecvStatus::kClosed;
  *frame = std::move(frames_.front());
  frames_.pop_front();
  pending_.fetch_sub(1, std::memory_order_relaxed);
  return RecvStatus::kFrame;
}

void FrameQueue::Close() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    closed_ = true;
    closed_flag_.store(true);
  }
  cv_.notify_all();
}

}  // namespace disco
}  // namespace runtime
}  // namespace tvm
