#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/function.h>

#include <string>

namespace ffi = tvm::ffi;

// Adds one to every element of a 1-D float32 tensor, in place (numpy, torch, tvm_ffi.Tensor).
void AddOne(ffi::TensorView x) {
  float* data = static_cast<float*>(x.data_ptr());
  for (int64_t i = 0; i < x.size(0); ++i) data[i] += 1.0f;
}

// Calls a global function by name: here one registered from Python.
int64_t CallGlobal(std::string name, int64_t x) {
  return ffi::Function::GetGlobalRequired(name)(x).cast<int64_t>();
}

TVM_FFI_DLL_EXPORT_TYPED_FUNC(add_one, AddOne);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(call_global, CallGlobal);
