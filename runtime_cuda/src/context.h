/*
 * Devices and contexts: each device's primary context is retained once (never released: it
 * lives as long as the process, like cudart's) and made current on each calling thread, so
 * memory and streams interoperate with cudart users (PyTorch, CuPy).
 */
#ifndef TVM_RUNTIME_CUDA_SRC_CONTEXT_H_
#define TVM_RUNTIME_CUDA_SRC_CONTEXT_H_

#include <cuda.h>

#include "driver.h"

namespace tvm {
namespace runtime {
namespace cuda {

/*! \brief True when the driver is available and 0 <= device_id < device count. */
bool DeviceExists(int device_id);

/*!
 * \brief Checks `device_id`, retains its primary context on first use and makes it current
 * on the calling thread. Returns the context (owned by the driver, retained for the process).
 * Throws RuntimeError when CUDA is unavailable (with the reason), ValueError for a bad id,
 * RuntimeError naming the driver call when the driver fails.
 */
CUcontext BindDevice(int device_id, const char* what);

/*! \brief The calling thread's current CUDA device (set by SetCurrentDevice; default 0). */
int CurrentDevice();

/*! \brief Makes `device_id` current for the calling thread (binds its context). */
void SetCurrentDevice(int device_id);

}  // namespace cuda
}  // namespace runtime
}  // namespace tvm
#endif  // TVM_RUNTIME_CUDA_SRC_CONTEXT_H_
