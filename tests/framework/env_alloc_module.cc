/*
 * A kernel library as users write them against apache-tvm-ffi's headers: `twice(x)` allocates
 * its output through the environment allocator (Tensor::FromEnvAlloc -> TVMFFIEnvTensorAlloc)
 * and returns it; `env_allocator()` reports the allocator in force (as an integer), so tests
 * can see that a call with torch tensors runs under torch's and that it is restored after.
 */
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/extra/c_env_api.h>
#include <tvm/ffi/function.h>

#include <cstdint>

namespace ffi = tvm::ffi;

namespace {

ffi::Tensor Twice(ffi::TensorView x) {
  ffi::Tensor out = ffi::Tensor::FromEnvAlloc(TVMFFIEnvTensorAlloc, x.shape(), x.dtype(), x.device());
  const float* src = static_cast<const float*>(x.data_ptr());
  float* dst = static_cast<float*>(out.data_ptr());
  for (int64_t i = 0; i < x.numel(); ++i) dst[i] = 2.0f * src[i];
  return out;
}

int64_t EnvAllocator(ffi::TensorView) {
  return static_cast<int64_t>(reinterpret_cast<intptr_t>(TVMFFIEnvGetDLPackManagedTensorAllocator()));
}

int64_t EnvAllocatorNoArgs() {
  return static_cast<int64_t>(reinterpret_cast<intptr_t>(TVMFFIEnvGetDLPackManagedTensorAllocator()));
}

}  // namespace

TVM_FFI_DLL_EXPORT_TYPED_FUNC(twice, Twice);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(env_allocator, EnvAllocator);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(env_allocator_no_args, EnvAllocatorNoArgs);
