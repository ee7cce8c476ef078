/*
 * CUDA through the registry (device.h).
 */
#include "device.h"

#include <tvm/ffi/container/map.h>
#include <tvm/ffi/extra/c_env_api.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/string.h>

#include <optional>

namespace tvm {
namespace runtime {
namespace disco_nccl {

std::string CudaUnavailableReason(int max_device_id) {
  std::optional<ffi::Function> status = ffi::Function::GetGlobal("runtime.cuda.DriverStatus");
  if (!status.has_value()) {
    return "the CUDA backend (libtvm_runtime_cuda.so) is not loaded in this process: this "
           "installation was built without CUDA, or the library is missing next to "
           "libtvm_runtime";
  }
  auto s = (*status)().cast<ffi::Map<ffi::String, ffi::Any>>();
  if (!s["available"].cast<bool>()) {
    return "no usable CUDA driver: " + std::string(s["reason"].cast<ffi::String>());
  }
  int64_t count = s["device_count"].cast<int64_t>();
  if (max_device_id >= count) {
    return "device id " + std::to_string(max_device_id) + " asked for, but only " +
           std::to_string(count) + " CUDA device(s) are present";
  }
  return "";
}

void SetDevice(int device_id) {
  static const ffi::Function f = ffi::Function::GetGlobalRequired("runtime.cuda.SetDevice");
  f(int64_t{device_id});
}

void* CreateStream(int device_id) {
  static const ffi::Function f = ffi::Function::GetGlobalRequired("runtime.cuda.StreamCreate");
  return f(int64_t{device_id}).cast<void*>();
}

void FreeStream(int device_id, void* stream) {
  static const ffi::Function f = ffi::Function::GetGlobalRequired("runtime.cuda.StreamFree");
  f(int64_t{device_id}, stream);
}

void SyncStream(int device_id, void* stream) {
  static const ffi::Function f = ffi::Function::GetGlobalRequired("runtime.DeviceStreamSync");
  f(DLDevice{kDLCUDA, device_id}, stream);
}

void* StreamOr(int device_id, void* fallback) {
  void* env = TVMFFIEnvGetStream(kDLCUDA, device_id);
  return env != nullptr ? env : fallback;
}

}  // namespace disco_nccl
}  // namespace runtime
}  // namespace tvm
