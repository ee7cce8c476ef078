/*
 * The quick start's kernel library: plain C++ functions exported through the tvm-ffi ABI.
 * Any binding (ours, apache-tvm-ffi's, a C++ host) can load the .so and call them.
 */
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/function.h>

namespace ffi = tvm::ffi;

namespace {

/*! y[i] = a * x[i] + y[i] on float32 vectors, in place: the caller's memory, no copies. */
void Saxpy(double a, ffi::TensorView x, ffi::TensorView y) {
  TVM_FFI_CHECK(x.ndim() == 1 && y.ndim() == 1 && x.size(0) == y.size(0), ValueError)
      << "saxpy expects two vectors of the same length";
  TVM_FFI_CHECK(x.dtype().code == kDLFloat && x.dtype().bits == 32 &&
                    y.dtype().code == kDLFloat && y.dtype().bits == 32,
                TypeError)
      << "saxpy expects float32 vectors";
  const float* xs = static_cast<const float*>(x.data_ptr());
  float* ys = static_cast<float*>(y.data_ptr());
  for (int64_t i = 0; i < x.size(0); ++i) ys[i] = static_cast<float>(a) * xs[i] + ys[i];
}

/*! Calls a global function by name, e.g. one registered from Python. */
ffi::Any CallGlobal(ffi::String name, int64_t x) {
  return ffi::Function::GetGlobalRequired(std::string(name))(x);
}

}  // namespace

TVM_FFI_DLL_EXPORT_TYPED_FUNC(saxpy, Saxpy);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(call_global, CallGlobal);
