/*
 * ThreadedSession(num_workers, num_groups): every worker is a thread of this process.
 */
#include <memory>
#include <vector>

#include "session.h"
#include "session_kinds.h"
#include "worker_thread.h"

namespace tvm {
namespace runtime {
namespace disco {

class ThreadedSessionObj : public BcastSessionObj {
 public:
  ThreadedSessionObj(int num_workers, int num_groups) : BcastSessionObj(num_workers, num_groups) {
    std::vector<std::shared_ptr<ControllerChannel>> channels;
    for (int i = 0; i < num_workers; ++i) {
      workers_.push_back(std::make_unique<WorkerThread>(i, num_workers, num_groups,
                                                        i == 0 ? worker_zero_data() : nullptr));
      channels.push_back(workers_.back()->channel());
    }
    SetChannels(std::move(channels));
  }
  ~ThreadedSessionObj() {
    try {
      Shutdown();
    } catch (...) {
    }
  }

  static constexpr bool _type_final = true;
  static constexpr int32_t _type_child_slots = 0;
  static constexpr bool _type_child_slots_can_overflow = false;
  TVM_FFI_DECLARE_OBJECT_INFO("runtime.disco.ThreadedSession", ThreadedSessionObj, BcastSessionObj);

 protected:
  void ReleaseWorkers(int timeout_ms) override {
    for (auto& w : workers_) w->Release(timeout_ms);
  }
  std::string DescribeWorker(int worker_id) const override {
    return "worker " + std::to_string(worker_id) + " (thread)";
  }

 private:
  std::vector<std::unique_ptr<WorkerThread>> workers_;
};

Session MakeThreadedSession(int num_workers, int num_groups) {
  CheckSessionShape(num_workers, num_groups);
  return Session(ffi::make_object<ThreadedSessionObj>(num_workers, num_groups));
}

}  // namespace disco
}  // namespace runtime
}  // namespace tvm
