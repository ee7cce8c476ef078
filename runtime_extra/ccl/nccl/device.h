/*
 * The CUDA side of the plugin, reached only by name through libtvm_ffi's registry, so the
 * plugin NEEDs libtvm_ffi alone and never includes CUDA: libtvm_runtime_cuda registers
 * `runtime.cuda.DriverStatus`, `runtime.cuda.SetDevice` and `runtime.cuda.StreamCreate`,
 * libtvm_runtime `runtime.DeviceStreamSync`. Memory is the workers' tensors (their device
 * API allocates it); streams are the env stream (TVMFFIEnvGetStream) or the worker's own.
 */
#ifndef TVM_RUNTIME_EXTRA_CCL_NCCL_DEVICE_H_
#define TVM_RUNTIME_EXTRA_CCL_NCCL_DEVICE_H_

#include <string>

namespace tvm {
namespace runtime {
namespace disco_nccl {

/*!
 * \brief "" when this process can use CUDA device `max_device_id` (and every lower one);
 * otherwise why not: libtvm_runtime_cuda not loaded, no driver (its reason), too few GPUs.
 */
std::string CudaUnavailableReason(int max_device_id);

/*! \brief Makes `device_id` current on this thread (retains its primary context). */
void SetDevice(int device_id);

/*! \brief A new stream on `device_id` (owned by the caller; see FreeStream). */
void* CreateStream(int device_id);
void FreeStream(int device_id, void* stream);

/*! \brief Blocks until `stream` on `device_id` has run everything queued on it. */
void SyncStream(int device_id, void* stream);

/*! \brief The env stream of (kDLCUDA, device_id) when one is set, else `fallback`. */
void* StreamOr(int device_id, void* fallback);

}  // namespace disco_nccl
}  // namespace runtime
}  // namespace tvm
#endif  // TVM_RUNTIME_EXTRA_CCL_NCCL_DEVICE_H_
