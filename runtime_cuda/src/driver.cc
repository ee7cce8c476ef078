/*
 * Probing and loading the CUDA driver (see driver.h).
 */
#include "driver.h"

#include <dlfcn.h>
#include <tvm/ffi/error.h>

#include <cstdlib>
#include <mutex>

namespace tvm {
namespace runtime {
namespace cuda {
namespace {

#define TVM_CUDA_STR_(x) #x
#define TVM_CUDA_STR(x) TVM_CUDA_STR_(x)

// The oldest driver we accept: the major release of the toolkit we were compiled against
// (minor-version compatibility: a 13.x build runs on any 13.y driver).
constexpr int kMinDriverVersion = (CUDA_VERSION / 1000) * 1000;

std::string Code(CUresult r) { return std::to_string(static_cast<int>(r)); }

// Usable while probing (GetDriverState is not yet returned then).
std::string NameWith(const DriverApi& api, CUresult result) {
  const char* name = nullptr;
  if (api.cuGetErrorName != nullptr && api.cuGetErrorName(result, &name) == CUDA_SUCCESS &&
      name != nullptr) {
    return name;
  }
  return "CUresult " + Code(result);
}

void Probe(DriverState* s) {
  const char* env = std::getenv("TVM_CUDA_DRIVER_LIBRARY");
  s->library = (env != nullptr && env[0] != '\0') ? env : "libcuda.so.1";
  // RTLD_LOCAL: the driver's symbols must not leak into the global namespace; never closed.
  void* handle = dlopen(s->library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* err = dlerror();
    s->reason = "cannot load the CUDA driver: " + std::string(err ? err : s->library);
    return;
  }
#define TVM_CUDA_RESOLVE(name)                                                        \
  s->api.name = reinterpret_cast<decltype(s->api.name)>(dlsym(handle, TVM_CUDA_STR(name))); \
  if (s->api.name == nullptr) {                                                       \
    s->reason = "the CUDA driver " + s->library + " lacks " TVM_CUDA_STR(name)        \
                " (driver too old?)";                                                 \
    return;                                                                           \
  }
  TVM_CUDA_DRIVER_FUNCS(TVM_CUDA_RESOLVE)
#undef TVM_CUDA_RESOLVE
  CUresult r = s->api.cuInit(0);
  if (r != CUDA_SUCCESS) {
    switch (r) {
      case CUDA_ERROR_NO_DEVICE:
        s->reason = "cuInit: no CUDA-capable device is present (CUDA_ERROR_NO_DEVICE, 100)";
        break;
      case CUDA_ERROR_STUB_LIBRARY:
        s->reason = "cuInit: " + s->library +
                    " is the toolkit's stub library, not a real driver (CUDA_ERROR_STUB_LIBRARY, 34)";
        break;
      case CUDA_ERROR_SYSTEM_DRIVER_MISMATCH:
        s->reason = "cuInit: the driver and kernel module versions do not match "
                    "(CUDA_ERROR_SYSTEM_DRIVER_MISMATCH, 803)";
        break;
      case CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE:
        s->reason = "cuInit: the forward-compatibility driver does not support this device "
                    "(CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE, 804)";
        break;
      default:
        s->reason = "cuInit failed: " + NameWith(s->api, r) + " (" + Code(r) + ")";
    }
    return;
  }
  r = s->api.cuDriverGetVersion(&s->driver_version);
  if (r != CUDA_SUCCESS) {
    s->reason = "cuDriverGetVersion failed: " + NameWith(s->api, r);
    return;
  }
  if (s->driver_version < kMinDriverVersion) {
    s->reason = "the CUDA driver supports CUDA " + std::to_string(s->driver_version / 1000) + "." +
                std::to_string(s->driver_version % 1000 / 10) + " (" +
                std::to_string(s->driver_version) + "); this build needs " +
                std::to_string(kMinDriverVersion) + " or newer";
    return;
  }
  r = s->api.cuDeviceGetCount(&s->device_count);
  if (r != CUDA_SUCCESS) {
    s->reason = "cuDeviceGetCount failed: " + NameWith(s->api, r);
    s->device_count = 0;
    return;
  }
  if (s->device_count <= 0) {
    s->reason = "the CUDA driver reports no devices";
    s->device_count = 0;
    return;
  }
  s->available = true;
}

}  // namespace

const DriverState& GetDriverState() {
  static DriverState* state = nullptr;  // lives for the process (the driver is never unloaded)
  static std::once_flag once;
  std::call_once(once, []() {
    auto* s = new DriverState();
    Probe(s);
    state = s;
  });
  return *state;
}

const DriverApi& RequireDriver(const char* what) {
  const DriverState& s = GetDriverState();
  if (!s.available) {
    TVM_FFI_THROW(RuntimeError) << "cannot " << what << ": CUDA is not available: " << s.reason;
  }
  return s.api;
}

std::string ErrorName(CUresult result) { return NameWith(GetDriverState().api, result); }

void CheckDriverCall(CUresult result, const char* call) {
  if (result == CUDA_SUCCESS) return;
  const DriverState& s = GetDriverState();
  const char* text = nullptr;
  std::string detail;
  if (s.api.cuGetErrorString != nullptr &&
      s.api.cuGetErrorString(result, &text) == CUDA_SUCCESS && text != nullptr) {
    detail = std::string(" (") + text + ")";
  }
  TVM_FFI_THROW(RuntimeError) << call << " failed: " << ErrorName(result) << detail;
}

}  // namespace cuda
}  // namespace runtime
}  // namespace tvm
