// The kernel library the deployment app loads: destination-passing float32 kernels exported
// through the tvm-ffi ABI (what the compiler will emit; written by hand until it exists).
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/function.h>

namespace ffi = tvm::ffi;

namespace {

void CheckSame(const ffi::TensorView& a, const ffi::TensorView& b, const char* what) {
  TVM_FFI_CHECK(a.dtype().code == kDLFloat && a.dtype().bits == 32 && a.numel() == b.numel(),
                ValueError)
      << what << ": expects float32 tensors of equal size";
}

void Add(ffi::TensorView a, ffi::TensorView b, ffi::TensorView out) {
  CheckSame(a, b, "add");
  CheckSame(a, out, "add");
  const float* x = static_cast<const float*>(a.data_ptr());
  const float* y = static_cast<const float*>(b.data_ptr());
  float* z = static_cast<float*>(out.data_ptr());
  for (int64_t i = 0; i < a.numel(); ++i) z[i] = x[i] + y[i];
}

void Relu(ffi::TensorView a, ffi::TensorView out) {
  CheckSame(a, out, "relu");
  const float* x = static_cast<const float*>(a.data_ptr());
  float* z = static_cast<float*>(out.data_ptr());
  for (int64_t i = 0; i < a.numel(); ++i) z[i] = x[i] > 0 ? x[i] : 0;
}

}  // namespace

TVM_FFI_DLL_EXPORT_TYPED_FUNC(add, Add);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(relu, Relu);
