/*
 * ProcessSession(num_workers, num_groups, entrypoint): worker 0 is a thread of this process
 * (it shares host tensors with the controller), workers 1..n-1 are processes started by a
 * process pool, each linked by one socket. The pool, not this file, knows how to start and
 * reap processes (Python's subprocess; a C++ application may register its own).
 */
#include <tvm/ffi/container/shape.h>
#include <tvm/ffi/function.h>

#include <cstdio>
#include <memory>
#include <optional>
#include <vector>

#include "fd_channel.h"
#include "session.h"
#include "session_kinds.h"
#include "worker_thread.h"

namespace tvm {
namespace runtime {
namespace disco {

class ProcessSessionObj : public BcastSessionObj {
 public:
  ProcessSessionObj(int num_workers, int num_groups, ffi::Function pool)
      : BcastSessionObj(num_workers, num_groups), pool_(std::move(pool)) {
    pids_.assign(num_workers, 0);
    std::vector<std::shared_ptr<ControllerChannel>> channels;
    try {
      worker0_ = std::make_unique<WorkerThread>(0, num_workers, num_groups, worker_zero_data());
      channels.push_back(worker0_->channel());
      for (int i = 1; i < num_workers; ++i) {
        ffi::Any r = (*pool_)(int64_t{i});
        std::optional<ffi::Shape> fds;
        if (r.type_index() == kTVMFFIShape) fds = r.cast<ffi::Shape>();
        DISCO_CHECK(fds.has_value() && (fds->size() == 2 || fds->size() == 3), TypeError)
            << "the process pool must return Shape([read_fd, write_fd(, pid)]) for worker " << i
            << ", got " << r.GetTypeKey();
        if (fds->size() == 3) pids_[i] = (*fds)[2];
        channels.push_back(std::make_shared<FdControllerChannel>(static_cast<int>((*fds)[0]),
                                                                 static_cast<int>((*fds)[1])));
      }
    } catch (...) {
      // Nothing half-started may outlive a failed constructor.
      for (auto& ch : channels) ch->CloseCommands();
      if (worker0_) worker0_->Release(1000);
      ReapPool();
      throw;
    }
    SetChannels(std::move(channels));
  }
  ~ProcessSessionObj() {
    try {
      Shutdown();
    } catch (...) {
    }
  }

  static constexpr bool _type_final = true;
  static constexpr int32_t _type_child_slots = 0;
  static constexpr bool _type_child_slots_can_overflow = false;
  TVM_FFI_DECLARE_OBJECT_INFO("runtime.disco.ProcessSession", ProcessSessionObj, BcastSessionObj);

 protected:
  void ReleaseWorkers(int timeout_ms) override {
    if (worker0_) worker0_->Release(timeout_ms);
    ReapPool();
  }
  std::string DescribeWorker(int worker_id) const override {
    if (worker_id == 0) return "worker 0 (thread)";
    std::string out = "worker " + std::to_string(worker_id) + " (process";
    if (pids_[worker_id] > 0) out += " " + std::to_string(pids_[worker_id]);
    return out + ")";
  }

 private:
  void ReapPool() {
    if (!pool_.has_value()) return;
    ffi::Function pool = std::move(*pool_);
    pool_.reset();
    try {
      pool(int64_t{0});  // the pool waits briefly, then kills what is left
    } catch (const std::exception& e) {
      std::fprintf(stderr, "tvm.disco: releasing the process pool failed: %s\n", e.what());
    }
  }

  std::optional<ffi::Function> pool_;
  std::unique_ptr<WorkerThread> worker0_;
  std::vector<int64_t> pids_;
};

Session MakeProcessSession(int num_workers, int num_groups, const std::string& pool_creator,
                           const std::string& entrypoint) {
  CheckSessionShape(num_workers, num_groups);
  std::optional<ffi::Function> creator = ffi::Function::GetGlobal(pool_creator);
  DISCO_CHECK(creator.has_value(), ValueError)
      << "ProcessSession: no process pool " << pool_creator
      << " is registered (Python registers runtime.disco.create_process_pool when "
         "tvm.runtime.disco is imported; a C++ application registers its own)";
  ffi::Any pool = (*creator)(int64_t{num_workers}, int64_t{num_groups}, entrypoint);
  std::optional<ffi::Function> f;  // Function is nullable: test the type, not as<>()
  if (pool.type_index() == kTVMFFIFunction) f = pool.cast<ffi::Function>();
  DISCO_CHECK(f.has_value(), TypeError)
      << pool_creator << " must return a function, got " << pool.GetTypeKey();
  return Session(ffi::make_object<ProcessSessionObj>(num_workers, num_groups, *f));
}

Session MakeProcessSessionFromPool(int num_workers, int num_groups, ffi::Function pool) {
  CheckSessionShape(num_workers, num_groups);
  DISCO_CHECK(pool.defined(), TypeError) << "the process pool is a null function";
  return Session(ffi::make_object<ProcessSessionObj>(num_workers, num_groups, std::move(pool)));
}

}  // namespace disco
}  // namespace runtime
}  // namespace tvm
