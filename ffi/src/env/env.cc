/*
 * The environment: per-thread current streams, the DLPack tensor allocator (thread slot first,
 * then the process-wide one), host signal checks, and one-time handle initialisation.
 */
#include <tvm/ffi/error.h>
#include <tvm/ffi/extra/c_env_api.h>

#include <atomic>
#include <cstring>
#include <mutex>
#include <vector>

namespace tvm {
namespace ffi {
namespace {

/*! \brief Per-thread table indexed [device_type][device_id], grown on demand. */
std::vector<std::vector<TVMFFIStreamHandle>>& StreamTable() {
  thread_local std::vector<std::vector<TVMFFIStreamHandle>> table;
  return table;
}

DLPackManagedTensorAllocator& ThreadAllocator() {
  thread_local DLPackManagedTensorAllocator alloc = nullptr;
  return alloc;
}
std::atomic<DLPackManagedTensorAllocator> g_global_allocator{nullptr};

/*! \brief Hooks a host language (Python) lends the library. */
struct HostHooks {
  std::atomic<int (*)()> check_signals{nullptr};
  std::atomic<int (*)()> gil_ensure{nullptr};
  std::atomic<void (*)(int)> gil_release{nullptr};
};
HostHooks& Hooks() {
  static HostHooks hooks;
  return hooks;
}

std::mutex& InitOnceMutex() {
  static std::mutex m;
  return m;
}

}  // namespace
}  // namespace ffi
}  // namespace tvm

extern "C" {

int TVMFFIEnvSetStream(int32_t device_type, int32_t device_id, TVMFFIStreamHandle stream,
                       TVMFFIStreamHandle* opt_out_original_stream) {
  TVM_FFI_SAFE_CALL_BEGIN();
  TVM_FFI_CHECK(device_type >= 0 && device_id >= 0, ValueError)
      << "invalid device (" << device_type << ", " << device_id << ")";
  auto& table = tvm::ffi::StreamTable();
  if (static_cast<size_t>(device_type) >= table.size()) table.resize(device_type + 1);
  auto& row = table[device_type];
  if (static_cast<size_t>(device_id) >= row.size()) row.resize(device_id + 1, nullptr);
  if (opt_out_original_stream != nullptr) *opt_out_original_stream = row[device_id];
  row[device_id] = stream;
  TVM_FFI_SAFE_CALL_END();
}

TVMFFIStreamHandle TVMFFIEnvGetStream(int32_t device_type, int32_t device_id) {
  auto& table = tvm::ffi::StreamTable();
  if (device_type < 0 || device_id < 0 || static_cast<size_t>(device_type) >= table.size()) {
    return nullptr;
  }
  auto& row = table[device_type];
  return static_cast<size_t>(device_id) < row.size() ? row[device_id] : nullptr;
}

int TVMFFIEnvSetDLPackManagedTensorAllocator(DLPackManagedTensorAllocator allocator,
                                             int write_to_global_context,
                                             DLPackManagedTensorAllocator* opt_out_original_allocator) {
  auto& slot = tvm::ffi::ThreadAllocator();
  if (opt_out_original_allocator != nullptr) *opt_out_original_allocator = slot;
  slot = allocator;
  if (write_to_global_context != 0) tvm::ffi::g_global_allocator.store(allocator);
  return 0;
}

DLPackManagedTensorAllocator TVMFFIEnvGetDLPackManagedTensorAllocator(void) {
  DLPackManagedTensorAllocator local = tvm::ffi::ThreadAllocator();
  return local != nullptr ? local : tvm::ffi::g_global_allocator.load();
}

int TVMFFIEnvCheckSignals(void) {
  auto& hooks = tvm::ffi::Hooks();
  int (*check)() = hooks.check_signals.load();
  if (check == nullptr) return 0;
  int (*ensure)() = hooks.gil_ensure.load();
  void (*release)(int) = hooks.gil_release.load();
  int state = ensure != nullptr ? ensure() : 0;
  int rc = check();
  if (release != nullptr) release(state);
  if (rc != 0) {
    TVMFFIErrorSetRaisedFromCStr("EnvErrorAlreadySet", "a host-language error is pending");
    return -1;
  }
  return 0;
}

int TVMFFIEnvRegisterCAPI(const char* name, void* symbol) {
  TVM_FFI_SAFE_CALL_BEGIN();
  TVM_FFI_CHECK(name != nullptr, ValueError) << "null name";
  auto& hooks = tvm::ffi::Hooks();
  if (std::strcmp(name, "PyErr_CheckSignals") == 0) {
    hooks.check_signals.store(reinterpret_cast<int (*)()>(symbol));
  } else if (std::strcmp(name, "PyGILState_Ensure") == 0) {
    hooks.gil_ensure.store(reinterpret_cast<int (*)()>(symbol));
  } else if (std::strcmp(name, "PyGILState_Release") == 0) {
    hooks.gil_release.store(reinterpret_cast<void (*)(int)>(symbol));
  } else {
    TVM_FFI_THROW(ValueError) << "unknown host API name `" << name << "`";
  }
  TVM_FFI_SAFE_CALL_END();
}

int TVMFFIHandleInitOnce(void** handle_addr, int (*init_func)(void** result)) {
  TVM_FFI_SAFE_CALL_BEGIN();
  TVM_FFI_CHECK(handle_addr != nullptr && init_func != nullptr, ValueError) << "null argument";
  if (__atomic_load_n(handle_addr, __ATOMIC_ACQUIRE) != nullptr) return 0;
  std::lock_guard<std::mutex> lock(tvm::ffi::InitOnceMutex());
  if (__atomic_load_n(handle_addr, __ATOMIC_ACQUIRE) != nullptr) return 0;
  void* result = nullptr;
  if (init_func(&result) != 0) return -1;
  TVM_FFI_CHECK(result != nullptr, RuntimeError) << "TVMFFIHandleInitOnce: init returned NULL";
  __atomic_store_n(handle_addr, result, __ATOMIC_RELEASE);
  TVM_FFI_SAFE_CALL_END();
}

int TVMFFIHandleDeinitOnce(void** handle_addr, int (*deinit_func)(void* handle)) {
  TVM_FFI_SAFE_CALL_BEGIN();
  TVM_FFI_CHECK(handle_addr != nullptr && deinit_func != nullptr, ValueError) << "null argument";
  void* old = __atomic_exchange_n(handle_addr, nullptr, __ATOMIC_ACQ_REL);
  if (old != nullptr) return deinit_func(old);
  TVM_FFI_SAFE_CALL_END();
}

}  // extern "C"
