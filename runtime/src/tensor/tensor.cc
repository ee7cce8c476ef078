/*
 * Tensor allocation and copies through the device APIs, the `runtime.Tensor*` globals, and
 * the DLPack allocator the runtime lends to libtvm_ffi (so Tensor::FromEnvAlloc and kernels
 * allocating outputs get device memory from here).
 */
#include <tvm/ffi/container/shape.h>
#include <tvm/ffi/extra/c_env_api.h>
#include <tvm/runtime/device_api.h>
#include <tvm/runtime/tensor.h>

#include <cstring>
#include <vector>

#include "../support/registry.h"

namespace tvm {
namespace runtime {
namespace {

/*! \brief Data of a tensor owned by a device API. */
struct DeviceAllocator {
  DeviceAPI* api;
  void AllocData(DLTensor* t) {
    size_t nbytes = DataBytes(*t);
    t->data = api->AllocDataSpace(t->device, nbytes, kAllocAlignment, t->dtype);
  }
  void FreeData(DLTensor* t) { api->FreeDataSpace(t->device, t->data); }
};

void CheckShape(const std::vector<int64_t>& shape) {
  for (size_t i = 0; i < shape.size(); ++i) {
    TVM_FFI_CHECK(shape[i] >= 0, ValueError) << "negative extent " << shape[i] << " in dim " << i;
  }
}

Tensor TensorEmpty(const std::vector<int64_t>& shape, DLDataType dtype, DLDevice device) {
  CheckShape(shape);
  TVM_FFI_CHECK(dtype.bits > 0 && dtype.lanes > 0, ValueError) << "cannot allocate a tensor of a zero-width dtype";
  return Tensor::FromNDAlloc(DeviceAllocator{DeviceAPI::Get(device)}, shape, dtype, device);
}

bool IsHost(int device_type) { return device_type == kDLCPU || device_type == kDLCUDAHost || device_type == kDLROCMHost; }

void TensorCopyFromTo(const DLTensor* from, const DLTensor* to) {
  TVM_FFI_CHECK(from != nullptr && to != nullptr, ValueError) << "copy of a null tensor";
  int ft = from->device.device_type, tt = to->device.device_type;
  TVM_FFI_CHECK(ft == tt || IsHost(ft) || IsHost(tt), ValueError)
      << "cannot copy between devices " << DeviceName(ft) << " and " << DeviceName(tt)
      << " directly; copy through the host";
  // The non-host side's backend knows how to reach the other side.
  DLDevice dev = IsHost(ft) && !IsHost(tt) ? to->device : from->device;
  DeviceAPI::Get(dev)->CopyDataFromTo(from, to, TVMFFIEnvGetStream(dev.device_type, dev.device_id));
}

void CopyBytes(const Tensor& t, void* host, int64_t nbytes, bool to_tensor) {
  TVM_FFI_CHECK(t.defined(), ValueError) << "null tensor";
  TVM_FFI_CHECK(t.IsContiguous(), ValueError) << "byte copies need a compact tensor";
  size_t want = DataBytes(*t.GetDLTensorPtr());
  TVM_FFI_CHECK(nbytes >= 0 && static_cast<size_t>(nbytes) == want, ValueError)
      << "byte size mismatch: tensor has " << want << " bytes, buffer has " << nbytes;
  TVM_FFI_CHECK(host != nullptr || nbytes == 0, ValueError) << "null host buffer";
  std::vector<int64_t> shape(t.shape(), t.shape() + t.ndim());
  DLTensor host_view{host, DLDevice{kDLCPU, 0}, t.ndim(), t.dtype(), shape.data(), nullptr, 0};
  DLTensor dev_view = *t.GetDLTensorPtr();
  DeviceAPI* api = DeviceAPI::Get(t.device());
  if (to_tensor) {
    api->CopyDataFromTo(&host_view, &dev_view, nullptr);
  } else {
    api->CopyDataFromTo(&dev_view, &host_view, nullptr);
  }
  api->StreamSync(t.device(), nullptr);
}

/*! \brief The DLPack allocator installed into libtvm_ffi's environment. */
int EnvAllocator(DLTensor* prototype, DLManagedTensorVersioned** out, void* error_ctx,
                 void (*set_error)(void*, const char*, const char*)) {
  try {
    std::vector<int64_t> shape(prototype->shape, prototype->shape + prototype->ndim);
    Tensor t = TensorEmpty(shape, prototype->dtype, prototype->device);
    *out = t.ToDLPackVersioned();
    return 0;
  } catch (const ffi::Error& e) {
    set_error(error_ctx, e.kind().c_str(), e.message().c_str());
  } catch (const std::exception& e) {
    set_error(error_ctx, "RuntimeError", e.what());
  }
  return -1;
}

}  // namespace

TVM_FFI_STATIC_INIT_BLOCK() {
  RegisterRuntimeGlobal("runtime.TensorEmpty",
                        [](const ffi::Shape& shape, DLDataType dtype, DLDevice device) {
                          return TensorEmpty(std::vector<int64_t>(shape.begin(), shape.end()),
                                             dtype, device);
                        });
  RegisterRuntimeGlobal("runtime.TensorCopyFromTo",
                        [](DLTensor* from, DLTensor* to) { TensorCopyFromTo(from, to); });
  RegisterRuntimeGlobal("runtime.TensorCopyFromBytes", [](const Tensor& t, void* data, int64_t n) {
    CopyBytes(t, data, n, true);
  });
  RegisterRuntimeGlobal("runtime.TensorCopyToBytes", [](const Tensor& t, void* data, int64_t n) {
    CopyBytes(t, data, n, false);
  });
  RegisterRuntimeGlobal("runtime.GetDeviceAttr", [](int64_t type, int64_t id, int64_t kind) -> Any {
    DLDevice dev{static_cast<DLDeviceType>(type), static_cast<int32_t>(id)};
    DeviceAPI* api = DeviceAPI::Get(dev, /*allow_missing=*/true);
    Any rv;
    if (api == nullptr) {
      // No backend loaded: the device does not exist here; other attributes are unknown.
      if (kind == kExist) rv = int64_t{0};
      return rv;
    }
    api->GetAttr(dev, static_cast<DeviceAttrKind>(kind), &rv);
    return rv;
  });
  RegisterRuntimeGlobal("runtime.DeviceStreamSync", [](DLDevice dev, void* stream) {
    DeviceAPI::Get(dev)->StreamSync(dev, stream);
  });
  // Called by compiled host code before it launches kernels (TVM's name and arguments): makes
  // the device current for the calling thread. Unknown device types raise.
  RegisterRuntimeGlobal("__tvm_set_device", [](int64_t type, int64_t id) {
    DLDevice dev{static_cast<DLDeviceType>(type), static_cast<int32_t>(id)};
    DeviceAPI::Get(dev)->SetDevice(dev);
  });
  // Tensors allocated through libtvm_ffi's environment come from the device APIs. Written to
  // the process-wide slot so every thread sees it; a host framework may override per thread.
  TVMFFIEnvSetDLPackManagedTensorAllocator(EnvAllocator, 1, nullptr);
}

}  // namespace runtime
}  // namespace tvm
