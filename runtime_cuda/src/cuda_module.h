/*
 * The CUDA module (kind "cuda"): kernels in one image (PTX, cubin or fatbin) with their
 * signatures (blob.h). Loaded per device on first launch there (cuModuleLoadData in the
 * device's primary context), unloaded when the module dies. Binary-serialisable: SaveToBytes
 * gives back the bytes it was loaded from.
 *
 * GetFunction(name) returns a Function following launch.h's convention; it launches on the
 * calling thread's current CUDA device (runtime.cuda.SetDevice / __tvm_set_device) and on its
 * current env stream (TVMFFIEnvGetStream(kDLCUDA, device)).
 */
#ifndef TVM_RUNTIME_CUDA_SRC_CUDA_MODULE_H_
#define TVM_RUNTIME_CUDA_SRC_CUDA_MODULE_H_

#include <tvm/ffi/extra/module.h>

namespace tvm {
namespace runtime {
namespace cuda {

/*!
 * \brief Builds a module from blob bytes. ValueError for a malformed blob or an image that is
 * neither PTX ("//" or "."), cubin (\x7fELF) nor fatbin (50 ED 55 BA), unless fmt is "cuda"
 * (source: loads, round-trips and inspects, but its kernels cannot launch).
 * Needs no driver.
 */
ffi::Module LoadCUDAModuleFromBytes(const char* data, size_t size);

}  // namespace cuda
}  // namespace runtime
}  // namespace tvm
#endif  // TVM_RUNTIME_CUDA_SRC_CUDA_MODULE_H_
