/*
 * DeviceAPI: the interface each device backend implements (memory, copies, streams,
 * attributes), found by name in the global registry as `device_api.<name>`, so a backend
 * library (e.g. libtvm_runtime_cuda) becomes available simply by being loaded.
 */
#ifndef TVM_RUNTIME_DEVICE_API_H_
#define TVM_RUNTIME_DEVICE_API_H_

#include <tvm/ffi/any.h>
#include <tvm/ffi/function.h>

#include <atomic>
#include <string>

namespace tvm {
namespace runtime {

using ffi::Any;

/*! \brief Alignment of every tensor allocation. */
constexpr size_t kAllocAlignment = 64;

/*! \brief Attributes a device can be asked about (values follow TVM's numbering). */
enum DeviceAttrKind : int {
  kExist = 0,
  kMaxThreadsPerBlock = 1,
  kWarpSize = 2,
  kMaxSharedMemoryPerBlock = 3,
  kComputeVersion = 4,
  kDeviceName = 5,
  kMaxClockRate = 6,
  kMultiProcessorCount = 7,
  kMaxThreadDimensions = 8,
  kMaxRegistersPerBlock = 9,
  kGcnArch = 10,
  kApiVersion = 11,
  kDriverVersion = 12,
  kL2CacheSizeBytes = 13,
  kTotalGlobalMemory = 14,
  kAvailableGlobalMemory = 15,
};

/*! \brief Registry name of a device type ("cpu", "cuda", ...); "" when unknown. */
inline const char* DeviceName(int device_type) {
  switch (device_type) {
    case kDLCPU: return "cpu";
    case kDLCUDA: return "cuda";
    case kDLCUDAHost: return "cuda_host";
    case kDLCUDAManaged: return "cuda_managed";
    case kDLOpenCL: return "opencl";
    case kDLVulkan: return "vulkan";
    case kDLMetal: return "metal";
    case kDLROCM: return "rocm";
    case kDLROCMHost: return "rocm_host";
    case kDLExtDev: return "ext_dev";
    case kDLHexagon: return "hexagon";
    case kDLWebGPU: return "webgpu";
    default: return "";
  }
}

/*!
 * \brief The interface of a device backend. One instance per backend lives for the whole
 * process; its address travels through the registry as an opaque pointer.
 * Errors are reported by throwing ffi::Error.
 */
class DeviceAPI {
 public:
  virtual ~DeviceAPI() = default;
  /*! \brief Makes `dev` current for the calling thread. */
  virtual void SetDevice(DLDevice dev) = 0;
  /*! \brief Answers an attribute query; leaves `rv` None when unsupported. */
  virtual void GetAttr(DLDevice dev, DeviceAttrKind kind, Any* rv) = 0;
  /*! \brief Allocates device memory; throws MemoryError/RuntimeError on failure. */
  virtual void* AllocDataSpace(DLDevice dev, size_t nbytes, size_t alignment,
                               DLDataType type_hint) = 0;
  virtual void FreeDataSpace(DLDevice dev, void* ptr) = 0;
  /*!
   * \brief Copies between two tensors of equal shape and dtype (either side may be strided;
   * one side may be on the host). Asynchronous on devices with streams.
   */
  virtual void CopyDataFromTo(const DLTensor* from, const DLTensor* to, void* stream) = 0;
  virtual void* CreateStream(DLDevice) { return nullptr; }
  virtual void FreeStream(DLDevice, void*) {}
  /*! \brief Waits for all work on `stream` (nullptr: the default stream). */
  virtual void StreamSync(DLDevice dev, void* stream) = 0;
  /*! \brief Temporary memory; defaults to AllocDataSpace. */
  virtual void* AllocWorkspace(DLDevice dev, size_t nbytes, DLDataType type_hint) {
    return AllocDataSpace(dev, nbytes, kAllocAlignment, type_hint);
  }
  virtual void FreeWorkspace(DLDevice dev, void* ptr) { FreeDataSpace(dev, ptr); }

  /*!
   * \brief The backend for a device type, found through `device_api.<name>`.
   * \param allow_missing Return nullptr instead of throwing when no backend is loaded.
   */
  static DeviceAPI* Get(DLDevice dev, bool allow_missing = false);
};

inline DeviceAPI* DeviceAPI::Get(DLDevice dev, bool allow_missing) {
  // Cached per device type; a backend loaded later fills its slot on first use.
  static std::atomic<DeviceAPI*> cache[64];
  int type = static_cast<int>(dev.device_type);
  if (type >= 0 && type < 64) {
    if (DeviceAPI* api = cache[type].load(std::memory_order_acquire)) return api;
  }
  std::string name = DeviceName(type);
  std::optional<ffi::Function> getter =
      name.empty() ? std::nullopt : ffi::Function::GetGlobal("device_api." + name);
  if (!getter.has_value()) {
    if (allow_missing) return nullptr;
    TVM_FFI_THROW(RuntimeError) << "no device API for device type " << type
                                << (name.empty() ? "" : " (" + name + ")")
                                << ": the backend library providing `device_api." << name
                                << "` is not loaded";
  }
  DeviceAPI* api = static_cast<DeviceAPI*>((*getter)().cast<void*>());
  if (type >= 0 && type < 64) cache[type].store(api, std::memory_order_release);
  return api;
}

}  // namespace runtime
}  // namespace tvm
#endif  // TVM_RUNTIME_DEVICE_API_H_
