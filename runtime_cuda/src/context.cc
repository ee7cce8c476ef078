/*
 * Primary contexts and the per-thread current device (see context.h).
 */
#include "context.h"

#include <tvm/ffi/error.h>

#include <mutex>
#include <vector>

namespace tvm {
namespace runtime {
namespace cuda {
namespace {

thread_local int current_device = 0;

struct PrimaryContexts {
  std::mutex mu;
  std::vector<CUcontext> ctx;  // by device id; null until retained
};

PrimaryContexts& Contexts() {
  static PrimaryContexts* c = new PrimaryContexts();  // lives for the process
  return *c;
}

CUcontext Retain(const DriverApi& api, int device_id) {
  PrimaryContexts& c = Contexts();
  std::lock_guard<std::mutex> lock(c.mu);
  if (c.ctx.size() <= static_cast<size_t>(device_id)) c.ctx.resize(device_id + 1, nullptr);
  if (c.ctx[device_id] == nullptr) {
    CUdevice dev = 0;
    TVM_CUDA_CALL(api, cuDeviceGet, &dev, device_id);
    CUcontext ctx = nullptr;
    TVM_CUDA_CALL(api, cuDevicePrimaryCtxRetain, &ctx, dev);
    c.ctx[device_id] = ctx;
  }
  return c.ctx[device_id];
}

}  // namespace

bool DeviceExists(int device_id) {
  const DriverState& s = GetDriverState();
  return s.available && device_id >= 0 && device_id < s.device_count;
}

CUcontext BindDevice(int device_id, const char* what) {
  const DriverApi& api = RequireDriver(what);
  int count = GetDriverState().device_count;
  if (device_id < 0 || device_id >= count) {
    TVM_FFI_THROW(ValueError) << "cannot " << what << ": cuda:" << device_id
                              << " does not exist (" << count << " CUDA device"
                              << (count == 1 ? "" : "s") << ")";
  }
  CUcontext ctx = Retain(api, device_id);
  CUcontext cur = nullptr;
  TVM_CUDA_CALL(api, cuCtxGetCurrent, &cur);
  if (cur != ctx) TVM_CUDA_CALL(api, cuCtxSetCurrent, ctx);
  return ctx;
}

int CurrentDevice() { return current_device; }

void SetCurrentDevice(int device_id) {
  BindDevice(device_id, "set the CUDA device");
  current_device = device_id;
}

}  // namespace cuda
}  // namespace runtime
}  // namespace tvm
