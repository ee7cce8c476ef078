/*
 * A Disco worker: a register file and a loop that runs the controller's commands in order.
 *
 * Every worker holds the same register ids (a DRef on the controller means "register r on
 * every worker"). Commands are fire-and-forget; a command that throws does not stop the
 * worker: it sends an error frame (its id, the error's kind and message, the command) that
 * the controller raises at its next wait, and goes on with the next command. This error
 * channel is what TVM's protocol lacks (there a failing worker ends or hangs the session).
 */
#ifndef TVM_RUNTIME_EXTRA_SRC_DISCO_WORKER_H_
#define TVM_RUNTIME_EXTRA_SRC_DISCO_WORKER_H_

#include <tvm/ffi/any.h>
#include <tvm/ffi/container/tensor.h>

#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "channel.h"
#include "message.h"

namespace tvm {
namespace runtime {
namespace disco {

/*!
 * \brief Host tensors handed from the controller to worker 0, which always lives in the
 * controller's process: the tensor itself never crosses a channel (copy_to/from_worker_0).
 */
class HostQueue {
 public:
  void Push(ffi::Tensor t) {
    std::lock_guard<std::mutex> lock(mu_);
    items_.push_back(std::move(t));
  }
  /*! \throws InternalError when the controller pushed nothing (a protocol bug). */
  ffi::Tensor Pop();

 private:
  std::mutex mu_;
  std::deque<ffi::Tensor> items_;
};

class DiscoWorker {
 public:
  DiscoWorker(int worker_id, int num_workers, int num_groups, WorkerChannel* channel,
              std::shared_ptr<HostQueue> worker_zero_data)
      : worker_id(worker_id),
        num_workers(num_workers),
        num_groups(num_groups),
        local_worker_id(worker_id),
        channel_(channel),
        worker_zero_data_(std::move(worker_zero_data)) {}

  /*! \brief Runs commands until shutdown or until the controller is gone. */
  void MainLoop();

  /*! \brief The worker running on this thread. \throws RuntimeError off a worker thread. */
  static DiscoWorker* ThreadLocal();

  const int worker_id;
  const int num_workers;
  const int num_groups;
  /*!
   * \brief The worker's index on its own machine (a SocketSession's node hosts workers
   * first..first+per_node-1 as 0..per_node-1): which of the node's GPUs it takes. Equal to
   * worker_id on one machine.
   */
  int local_worker_id;
  /*! \brief Where runtime.disco.empty allocates by default; init_ccl may move it to a GPU. */
  DLDevice default_device{kDLCPU, 0};
  /*! \brief The collective plugin bound by init_ccl ("" before): runtime.disco.<ccl>.<op>. */
  std::string ccl;

  int group_size() const { return num_workers / num_groups; }
  int group_id() const { return worker_id / group_size(); }

 private:
  void Run(Message* msg);
  ffi::Any& Register(int64_t reg);
  void ReplyError(Action action, const std::string& kind, const std::string& message);

  WorkerChannel* channel_;
  std::shared_ptr<HostQueue> worker_zero_data_;
  std::vector<ffi::Any> registers_;
};

}  // namespace disco
}  // namespace runtime
}  // namespace tvm
#endif  // TVM_RUNTIME_EXTRA_SRC_DISCO_WORKER_H_
