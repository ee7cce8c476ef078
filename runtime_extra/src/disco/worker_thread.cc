#include "worker_thread.h"

#include <chrono>
#include <cstdio>

namespace tvm {
namespace runtime {
namespace disco {

WorkerThread::WorkerThread(int worker_id, int num_workers, int num_groups,
                           std::shared_ptr<HostQueue> host)
    : worker_id_(worker_id) {
  thread_ = std::thread([channel = channel_, done = done_, worker_id, num_workers, num_groups,
                         host = std::move(host)]() {
    try {
      DiscoWorker worker(worker_id, num_workers, num_groups, channel.get(), host);
      worker.MainLoop();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "tvm.disco: worker %d stopped: %s\n", worker_id, e.what());
    }
    // The controller sees the link close after any replies already sent.
    channel->CloseReplies();
    done->store(true);
  });
}

WorkerThread::~WorkerThread() {
  if (thread_.joinable()) Release(0);
}

bool WorkerThread::Release(int timeout_ms) {
  if (!thread_.joinable()) return true;
  channel_->CloseCommands();
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (!done_->load() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  if (done_->load()) {
    thread_.join();
    return true;
  }
  std::fprintf(stderr, "tvm.disco: worker %d (a thread) did not stop within %d ms; abandoning it\n",
               worker_id_, timeout_ms);
  thread_.detach();
  return false;
}

}  // namespace disco
}  // namespace runtime
}  // namespace tvm
