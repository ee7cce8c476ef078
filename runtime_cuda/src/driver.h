/*
 * The CUDA driver, reached only through dlopen("libcuda.so.1") at first use (never at load,
 * never linked): this library loads on machines without a GPU or driver and then reports
 * exist=False with the reason.
 *
 * cuda.h is used for types and prototypes only. Each entry point is resolved under the name
 * cuda.h's #defines select (cuMemAlloc -> cuMemAlloc_v2, ...): the X-macro below stringifies
 * the macro-expanded name, so the ABI always matches the header we compiled against.
 *
 * TVM_CUDA_DRIVER_LIBRARY=<path> opens another file instead (tests use a fake driver).
 */
#ifndef TVM_RUNTIME_CUDA_SRC_DRIVER_H_
#define TVM_RUNTIME_CUDA_SRC_DRIVER_H_

#include <cuda.h>

#include <string>

namespace tvm {
namespace runtime {
namespace cuda {

// Every driver entry point this library calls (base names; cuda.h maps them to versioned ones).
#define TVM_CUDA_DRIVER_FUNCS(X) \
  X(cuInit)                      \
  X(cuDriverGetVersion)          \
  X(cuGetErrorName)              \
  X(cuGetErrorString)            \
  X(cuDeviceGetCount)            \
  X(cuDeviceGet)                 \
  X(cuDeviceGetAttribute)        \
  X(cuDeviceGetName)             \
  X(cuDeviceTotalMem)            \
  X(cuDevicePrimaryCtxRetain)    \
  X(cuCtxGetCurrent)             \
  X(cuCtxSetCurrent)             \
  X(cuMemAlloc)                  \
  X(cuMemFree)                   \
  X(cuMemGetInfo)                \
  X(cuMemcpyHtoDAsync)           \
  X(cuMemcpyDtoHAsync)           \
  X(cuMemcpyDtoDAsync)           \
  X(cuMemcpyPeerAsync)           \
  X(cuStreamCreate)              \
  X(cuStreamDestroy)             \
  X(cuStreamSynchronize)         \
  X(cuModuleLoadData)            \
  X(cuModuleUnload)              \
  X(cuModuleGetFunction)         \
  X(cuFuncSetAttribute)          \
  X(cuLaunchKernelEx)

/*! \brief Resolved entry points; every member is non-null once the driver is available. */
struct DriverApi {
#define TVM_CUDA_DECLARE_MEMBER(name) decltype(&::name) name = nullptr;
  TVM_CUDA_DRIVER_FUNCS(TVM_CUDA_DECLARE_MEMBER)
#undef TVM_CUDA_DECLARE_MEMBER
};

/*!
 * \brief The process's driver state, probed once (thread-safe) at first use and cached.
 * Never throws, never unloads the driver.
 */
struct DriverState {
  /*! \brief True when the driver loaded, cuInit succeeded and its version is new enough. */
  bool available = false;
  /*! \brief Empty when available; otherwise why CUDA is unavailable (human readable). */
  std::string reason;
  /*! \brief The file dlopen was asked for ("libcuda.so.1" or $TVM_CUDA_DRIVER_LIBRARY). */
  std::string library;
  /*! \brief cuDriverGetVersion (e.g. 13000); 0 when unknown. */
  int driver_version = 0;
  /*! \brief cuDeviceGetCount; 0 when unavailable. */
  int device_count = 0;
  /*! \brief Resolved entry points (all set when available; possibly partial otherwise). */
  DriverApi api;
};

/*! \brief The cached state (first call probes the driver). */
const DriverState& GetDriverState();

/*!
 * \brief The entry points; throws RuntimeError "CUDA is not available: <reason>" when the
 * driver is unusable. `what` names the operation for the message (e.g. "allocate memory").
 */
const DriverApi& RequireDriver(const char* what);

/*! \brief "CUDA_ERROR_INVALID_VALUE" (or "CUresult <n>" when the driver cannot name it). */
std::string ErrorName(CUresult result);

/*!
 * \brief Throws RuntimeError "<call> failed: <CUDA_ERROR_NAME> (<description>)" unless
 * `result` is CUDA_SUCCESS.
 */
void CheckDriverCall(CUresult result, const char* call);

}  // namespace cuda
}  // namespace runtime
}  // namespace tvm

// Calls a driver entry point through the table and maps failure to an ffi::Error naming the
// call by its base name, e.g. TVM_CUDA_CALL(api, cuMemFree, ptr) -> "cuMemFree failed: ...".
#define TVM_CUDA_CALL(api, name, ...) \
  ::tvm::runtime::cuda::CheckDriverCall((api).name(__VA_ARGS__), #name)

#endif  // TVM_RUNTIME_CUDA_SRC_DRIVER_H_
