/*
 * The CUDA device (`device_api.cuda`): attributes, memory, copies, streams, workspaces.
 * Everything goes through the dlopen'ed driver (driver.h); without one, kExist is 0 and every
 * other operation raises RuntimeError carrying the reason.
 *
 * Copies are asynchronous on the given stream (nullptr: the legacy default stream), like
 * TVM's: callers that read host memory afterwards synchronise (StreamSync). Both sides must be
 * compact (strided tensors raise ValueError); the runtime's Tensor copies check the rest.
 */
#include <tvm/ffi/container/tensor.h>
#include <tvm/runtime/device_api.h>

#include <mutex>
#include <string>
#include <unordered_map>

#include "context.h"
#include "driver.h"
#include "registry.h"

namespace tvm {
namespace runtime {
namespace cuda {
namespace {

int Attribute(const DriverApi& api, CUdevice_attribute attr, int device_id) {
  int value = 0;
  TVM_CUDA_CALL(api, cuDeviceGetAttribute, &value, attr, device_id);
  return value;
}

bool IsCompact(const DLTensor* t) {
  if (t->strides == nullptr) return true;
  int64_t expected = 1;
  for (int i = t->ndim - 1; i >= 0; --i) {
    if (t->shape[i] != 1 && t->strides[i] != expected) return false;
    expected *= t->shape[i];
  }
  return true;
}

size_t NumBytes(const DLTensor* t) {
  size_t n = 1;
  for (int i = 0; i < t->ndim; ++i) n *= static_cast<size_t>(t->shape[i]);
  return n * ((static_cast<size_t>(t->dtype.bits) * t->dtype.lanes + 7) / 8);
}

void CheckCopyable(const DLTensor* from, const DLTensor* to) {
  bool same = from->ndim == to->ndim && from->dtype.code == to->dtype.code &&
              from->dtype.bits == to->dtype.bits && from->dtype.lanes == to->dtype.lanes;
  for (int i = 0; same && i < from->ndim; ++i) same = from->shape[i] == to->shape[i];
  if (!same) {
    TVM_FFI_THROW(ValueError) << "cuda copy: source and destination differ in shape or dtype";
  }
  if (!IsCompact(from) || !IsCompact(to)) {
    TVM_FFI_THROW(ValueError) << "cuda copy: strided tensors are not supported; copy through a "
                                 "compact tensor";
  }
}

bool OnCUDA(const DLTensor* t) { return t->device.device_type == kDLCUDA; }

class CUDADeviceAPI final : public DeviceAPI {
 public:
  static constexpr size_t kDriverAlignment = 256;  // what cuMemAlloc guarantees
  static constexpr size_t kMaxAlignment = 4096;    // the runtime allocators' largest request

  void SetDevice(DLDevice dev) final { SetCurrentDevice(dev.device_id); }

  void GetAttr(DLDevice dev, DeviceAttrKind kind, Any* rv) final {
    int id = dev.device_id;
    if (kind == kExist) {
      *rv = int64_t{DeviceExists(id) ? 1 : 0};
      return;
    }
    if (kind == kApiVersion) {  // what we were built against: known without a driver
      *rv = int64_t{CUDA_VERSION};
      return;
    }
    if (!DeviceExists(id)) return;  // None: unknown without the device
    const DriverApi& api = GetDriverState().api;
    switch (kind) {
      case kMaxThreadsPerBlock:
        *rv = int64_t{Attribute(api, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, id)};
        break;
      case kWarpSize:
        *rv = int64_t{Attribute(api, CU_DEVICE_ATTRIBUTE_WARP_SIZE, id)};
        break;
      case kMaxSharedMemoryPerBlock:
        *rv = int64_t{Attribute(api, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, id)};
        break;
      case kComputeVersion:
        *rv = ffi::String(
            std::to_string(Attribute(api, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, id)) + "." +
            std::to_string(Attribute(api, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, id)));
        break;
      case kDeviceName: {
        char name[256] = {0};
        TVM_CUDA_CALL(api, cuDeviceGetName, name, static_cast<int>(sizeof(name) - 1), id);
        *rv = ffi::String(name);
        break;
      }
      case kMaxClockRate:
        *rv = int64_t{Attribute(api, CU_DEVICE_ATTRIBUTE_CLOCK_RATE, id)};
        break;
      case kMultiProcessorCount:
        *rv = int64_t{Attribute(api, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, id)};
        break;
      case kMaxThreadDimensions:
        *rv = ffi::String("[" + std::to_string(Attribute(api, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X, id)) +
                          ", " + std::to_string(Attribute(api, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y, id)) +
                          ", " + std::to_string(Attribute(api, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z, id)) +
                          "]");
        break;
      case kMaxRegistersPerBlock:
        *rv = int64_t{Attribute(api, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK, id)};
        break;
      case kDriverVersion:
        *rv = int64_t{GetDriverState().driver_version};
        break;
      case kL2CacheSizeBytes:
        *rv = int64_t{Attribute(api, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, id)};
        break;
      case kTotalGlobalMemory: {
        size_t bytes = 0;
        TVM_CUDA_CALL(api, cuDeviceTotalMem, &bytes, id);
        *rv = static_cast<int64_t>(bytes);
        break;
      }
      case kAvailableGlobalMemory: {
        BindDevice(id, "query free memory");  // cuMemGetInfo reports the current context's device
        size_t free_bytes = 0, total = 0;
        TVM_CUDA_CALL(api, cuMemGetInfo, &free_bytes, &total);
        *rv = static_cast<int64_t>(free_bytes);
        break;
      }
      default:
        break;  // kGcnArch and others: not a CUDA property (None)
    }
  }

  void* AllocDataSpace(DLDevice dev, size_t nbytes, size_t alignment, DLDataType) final {
    const DriverApi& api = RequireDriver("allocate CUDA memory");
    if (alignment == 0 || (alignment & (alignment - 1)) != 0 || alignment > kMaxAlignment) {
      TVM_FFI_THROW(ValueError) << "cuda alloc: alignment " << alignment
                                << " is not a power of two <= " << kMaxAlignment;
    }
    BindDevice(dev.device_id, "allocate CUDA memory");
    // cuMemAlloc guarantees 256 bytes; stricter requests (the pooled allocator asks for 4096)
    // over-allocate and align up, remembering the base for cuMemFree.
    size_t extra = alignment > kDriverAlignment ? alignment - kDriverAlignment : 0;
    size_t request = (nbytes == 0 ? 1 : nbytes) + extra;  // cuMemAlloc rejects 0 bytes
    CUdeviceptr base = 0;
    CUresult r = api.cuMemAlloc(&base, request);
    if (r == CUDA_ERROR_OUT_OF_MEMORY) {
      TVM_FFI_THROW(MemoryError) << "cuMemAlloc failed: CUDA_ERROR_OUT_OF_MEMORY (cannot allocate "
                                 << nbytes << " bytes on cuda:" << dev.device_id << ")";
    }
    CheckDriverCall(r, "cuMemAlloc");
    CUdeviceptr aligned = (base + alignment - 1) & ~static_cast<CUdeviceptr>(alignment - 1);
    if (aligned != base) {
      std::lock_guard<std::mutex> lock(mu_);
      over_aligned_[aligned] = base;
    }
    return reinterpret_cast<void*>(aligned);
  }

  void FreeDataSpace(DLDevice dev, void* ptr) final {
    if (ptr == nullptr) return;
    const DriverApi& api = RequireDriver("free CUDA memory");
    BindDevice(dev.device_id, "free CUDA memory");
    auto base = reinterpret_cast<CUdeviceptr>(ptr);
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto it = over_aligned_.find(base);
      if (it != over_aligned_.end()) {
        base = it->second;
        over_aligned_.erase(it);
      }
    }
    CUresult r = api.cuMemFree(base);
    // At process exit the driver may already be torn down; the memory went with it.
    if (r == CUDA_ERROR_DEINITIALIZED) return;
    CheckDriverCall(r, "cuMemFree");
  }

  void CopyDataFromTo(const DLTensor* from, const DLTensor* to, void* stream) final {
    const DriverApi& api = RequireDriver("copy CUDA memory");
    CheckCopyable(from, to);
    size_t nbytes = NumBytes(from);
    char* src = static_cast<char*>(from->data) + from->byte_offset;
    char* dst = static_cast<char*>(to->data) + to->byte_offset;
    auto s = static_cast<CUstream>(stream);
    if (nbytes == 0) return;
    if (OnCUDA(from) && OnCUDA(to)) {
      if (from->device.device_id == to->device.device_id) {
        BindDevice(from->device.device_id, "copy CUDA memory");
        TVM_CUDA_CALL(api, cuMemcpyDtoDAsync, reinterpret_cast<CUdeviceptr>(dst),
                      reinterpret_cast<CUdeviceptr>(src), nbytes, s);
      } else {
        CUcontext dst_ctx = BindDevice(to->device.device_id, "copy CUDA memory");
        CUcontext src_ctx = BindDevice(from->device.device_id, "copy CUDA memory");
        TVM_CUDA_CALL(api, cuMemcpyPeerAsync, reinterpret_cast<CUdeviceptr>(dst), dst_ctx,
                      reinterpret_cast<CUdeviceptr>(src), src_ctx, nbytes, s);
      }
    } else if (OnCUDA(to)) {
      BindDevice(to->device.device_id, "copy to CUDA memory");
      TVM_CUDA_CALL(api, cuMemcpyHtoDAsync, reinterpret_cast<CUdeviceptr>(dst), src, nbytes, s);
    } else if (OnCUDA(from)) {
      BindDevice(from->device.device_id, "copy from CUDA memory");
      TVM_CUDA_CALL(api, cuMemcpyDtoHAsync, dst, reinterpret_cast<CUdeviceptr>(src), nbytes, s);
    } else {
      TVM_FFI_THROW(ValueError) << "cuda copy: neither side is on a CUDA device";
    }
  }

  void* CreateStream(DLDevice dev) final {
    const DriverApi& api = RequireDriver("create a CUDA stream");
    BindDevice(dev.device_id, "create a CUDA stream");
    CUstream s = nullptr;
    TVM_CUDA_CALL(api, cuStreamCreate, &s, CU_STREAM_DEFAULT);
    return s;
  }

  void FreeStream(DLDevice dev, void* stream) final {
    if (stream == nullptr) return;
    const DriverApi& api = RequireDriver("destroy a CUDA stream");
    BindDevice(dev.device_id, "destroy a CUDA stream");
    TVM_CUDA_CALL(api, cuStreamDestroy, static_cast<CUstream>(stream));
  }

  void StreamSync(DLDevice dev, void* stream) final {
    const DriverApi& api = RequireDriver("synchronise a CUDA stream");
    BindDevice(dev.device_id, "synchronise a CUDA stream");
    TVM_CUDA_CALL(api, cuStreamSynchronize, static_cast<CUstream>(stream));
  }

 private:
  std::mutex mu_;
  std::unordered_map<CUdeviceptr, CUdeviceptr> over_aligned_;  // aligned -> cuMemAlloc base
};

}  // namespace

DeviceAPI* GetCUDADeviceAPI() {
  static CUDADeviceAPI* api = new CUDADeviceAPI();  // lives for the process
  return api;
}

TVM_FFI_STATIC_INIT_BLOCK() {
  RegisterGlobal("device_api.cuda", []() { return static_cast<void*>(GetCUDADeviceAPI()); });
}

}  // namespace cuda
}  // namespace runtime
}  // namespace tvm
