/*
 * Worker-side globals with TVM's names: who am I (worker_id, worker_rank, world_size,
 * device), allocation (empty) and programs (load_vm_module). They read the calling thread's
 * DiscoWorker, so off a worker they fail with "not a DiscoWorker thread".
 */
#include <tvm/ffi/container/shape.h>
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/extra/module.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/string.h>

#include <optional>

#include "../registry.h"
#include "check.h"
#include "worker.h"

namespace tvm {
namespace runtime {
namespace disco {

namespace {

// The Relax VM's "pooled" allocator (vm.VirtualMachine's allocator kind 2), as TVM's Disco uses.
constexpr int64_t kPooledAllocator = 2;

ffi::Any Empty(const ffi::Shape& shape, DLDataType dtype, std::optional<DLDevice> device,
               bool worker0_only, bool in_group) {
  DiscoWorker* w = DiscoWorker::ThreadLocal();
  if (worker0_only) {
    // in_group: each group's leader; otherwise only global worker 0.
    bool leader = in_group ? (w->worker_id % w->group_size() == 0) : (w->worker_id == 0);
    if (!leader) return ffi::Any();
  }
  static const ffi::Function empty = ffi::Function::GetGlobalRequired("runtime.TensorEmpty");
  return empty(shape, dtype, device.value_or(w->default_device));
}

ffi::Any LoadVMModule(const ffi::String& path, std::optional<DLDevice> device) {
  DiscoWorker* w = DiscoWorker::ThreadLocal();
  DLDevice dev = device.value_or(w->default_device);
  static const ffi::Function load = ffi::Function::GetGlobalRequired("ffi.ModuleLoadFromFile");
  ffi::Module mod = load(path).cast<ffi::Module>();
  if (mod->kind() != std::string("relax.VMExecutable")) return mod;  // a plain library module
  // The VM lives in libtvm_runtime: reached by name, like every other layer boundary.
  std::optional<ffi::Function> make_vm = ffi::Function::GetGlobal("vm.VirtualMachine");
  DISCO_CHECK(make_vm.has_value(), RuntimeError) << "vm.VirtualMachine is not registered";
  return (*make_vm)(mod, int64_t{dev.device_type}, int64_t{dev.device_id}, kPooledAllocator);
}

}  // namespace

TVM_FFI_STATIC_INIT_BLOCK() {
  using extra::RegisterGlobal;
  RegisterGlobal("runtime.disco.worker_id",
                 []() { return ffi::Shape({int64_t{DiscoWorker::ThreadLocal()->worker_id}}); });
  RegisterGlobal("runtime.disco.worker_rank",
                 []() { return int64_t{DiscoWorker::ThreadLocal()->worker_id}; });
  RegisterGlobal("runtime.disco.world_size",
                 []() { return int64_t{DiscoWorker::ThreadLocal()->num_workers}; });
  RegisterGlobal("runtime.disco.local_worker_id",
                 []() { return int64_t{DiscoWorker::ThreadLocal()->local_worker_id}; });
  RegisterGlobal("runtime.disco.num_groups",
                 []() { return int64_t{DiscoWorker::ThreadLocal()->num_groups}; });
  RegisterGlobal("runtime.disco.group_id",
                 []() { return int64_t{DiscoWorker::ThreadLocal()->group_id()}; });
  RegisterGlobal("runtime.disco.device", []() { return DiscoWorker::ThreadLocal()->default_device; });
  // For CCL plugins binding a worker to its GPU (TVM's InitCCLPerWorker): a worker still on
  // the CPU takes `device` as its default; one already on another device is an error.
  RegisterGlobal("runtime.disco._set_default_device", [](DLDevice device) {
    DiscoWorker* w = DiscoWorker::ThreadLocal();
    if (w->default_device.device_type == kDLCPU) {
      w->default_device = device;
      return;
    }
    DISCO_CHECK(w->default_device.device_type == device.device_type &&
                    w->default_device.device_id == device.device_id,
                ValueError)
        << "worker " << w->worker_id << " already uses device (" << w->default_device.device_type
        << ", " << w->default_device.device_id << "), cannot switch to (" << device.device_type
        << ", " << device.device_id << ")";
  });
  RegisterGlobal("runtime.disco.empty", Empty);
  RegisterGlobal("runtime.disco.load_vm_module", LoadVMModule);
}

}  // namespace disco
}  // namespace runtime
}  // namespace tvm
