/*
 * A worker that is a thread of the controller's process (every worker of a ThreadedSession,
 * worker 0 of a ProcessSession). The thread owns its worker and shares the link, so it stays
 * memory-safe even when a stuck thread has to be abandoned at shutdown.
 */
#ifndef TVM_RUNTIME_EXTRA_SRC_DISCO_WORKER_THREAD_H_
#define TVM_RUNTIME_EXTRA_SRC_DISCO_WORKER_THREAD_H_

#include <atomic>
#include <memory>
#include <thread>

#include "thread_channel.h"
#include "worker.h"

namespace tvm {
namespace runtime {
namespace disco {

class WorkerThread {
 public:
  WorkerThread(int worker_id, int num_workers, int num_groups, std::shared_ptr<HostQueue> host);
  ~WorkerThread();
  std::shared_ptr<ThreadChannel> channel() const { return channel_; }
  /*!
   * \brief Joins the thread if it ends within `timeout_ms`; otherwise abandons it (detached,
   * with a warning on stderr): a worker stuck in user code cannot be interrupted, and the
   * controller must not hang on it. \return whether it was joined.
   */
  bool Release(int timeout_ms);

 private:
  std::shared_ptr<ThreadChannel> channel_ = std::make_shared<ThreadChannel>();
  std::shared_ptr<std::atomic<bool>> done_ = std::make_shared<std::atomic<bool>>(false);
  std::thread thread_;
  int worker_id_;
};

}  // namespace disco
}  // namespace runtime
}  // namespace tvm
#endif  // TVM_RUNTIME_EXTRA_SRC_DISCO_WORKER_THREAD_H_
