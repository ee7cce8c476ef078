/*
 * Globals reporting the driver's state and managing raw streams (Python's tvm.runtime uses
 * them; C++ callers may too):
 *   runtime.cuda.DriverStatus() -> Map{"available": bool, "reason": str, "library": str,
 *                                      "driver_version": int, "device_count": int}
 *     (probes the driver on first call; "reason" is "" when available)
 *   runtime.cuda.StreamCreate(device_id) -> opaque CUstream (owned by the caller)
 *   runtime.cuda.StreamFree(device_id, stream)
 *   runtime.cuda.SetDevice(device_id)    the calling thread's current CUDA device
 *   runtime.cuda.GetDevice() -> int
 */
#include <tvm/ffi/container/map.h>
#include <tvm/runtime/device_api.h>

#include "context.h"
#include "driver.h"
#include "registry.h"

namespace tvm {
namespace runtime {
namespace cuda {

DeviceAPI* GetCUDADeviceAPI();

TVM_FFI_STATIC_INIT_BLOCK() {
  RegisterGlobal("runtime.cuda.DriverStatus", []() {
    const DriverState& s = GetDriverState();
    ffi::Map<ffi::String, ffi::Any> out;
    out.Set("available", s.available);
    out.Set("reason", ffi::String(s.reason));
    out.Set("library", ffi::String(s.library));
    out.Set("driver_version", int64_t{s.driver_version});
    out.Set("device_count", int64_t{s.device_count});
    return out;
  });
  RegisterGlobal("runtime.cuda.StreamCreate", [](int64_t device_id) {
    return GetCUDADeviceAPI()->CreateStream(DLDevice{kDLCUDA, static_cast<int32_t>(device_id)});
  });
  RegisterGlobal("runtime.cuda.StreamFree", [](int64_t device_id, void* stream) {
    GetCUDADeviceAPI()->FreeStream(DLDevice{kDLCUDA, static_cast<int32_t>(device_id)}, stream);
  });
  RegisterGlobal("runtime.cuda.SetDevice",
                 [](int64_t device_id) { SetCurrentDevice(static_cast<int>(device_id)); });
  RegisterGlobal("runtime.cuda.GetDevice", []() { return int64_t{CurrentDevice()}; });
}

}  // namespace cuda
}  // namespace runtime
}  // namespace tvm
