// Kernels of the two-layer MLP test, exported with the tvm-ffi packed signature in
// destination-passing style (outputs are preallocated arguments), as compiled kernels are.
// Built twice: mlp_kernels.so (kernels only) and mlp_bundle.so (plus embedded bytecode).
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/function.h>

#include <string>

namespace {
using tvm::ffi::TensorView;

void CheckF32(const TensorView& t, int32_t ndim, const char* what) {
  if (t.dtype().code != kDLFloat || t.dtype().bits != 32 || t.dtype().lanes != 1) {
    TVM_FFI_THROW(TypeError) << what << " must be float32";
  }
  TVM_FFI_CHECK(t.ndim() == ndim, ValueError) << what << " must have " << ndim << " dimensions";
  TVM_FFI_CHECK(t.IsContiguous() && t.device().device_type == kDLCPU, ValueError)
      << what << " must be a compact CPU tensor";
}

const float* In(const TensorView& t) {
  return reinterpret_cast<const float*>(static_cast<const char*>(t.data_ptr()) + t.byte_offset());
}
float* Out(const TensorView& t) {
  return reinterpret_cast<float*>(static_cast<char*>(t.data_ptr()) + t.byte_offset());
}

// out[b, n] = sum_k x[b, k] * w[k, n]
void Dense(TensorView x, TensorView w, TensorView out) {
  CheckF32(x, 2, "dense: x");
  CheckF32(w, 2, "dense: w");
  CheckF32(out, 2, "dense: out");
  int64_t b = x.size(0), k = x.size(1), n = w.size(1);
  TVM_FFI_CHECK(w.size(0) == k && out.size(0) == b && out.size(1) == n, ValueError)
      << "dense: shape mismatch";
  const float* xp = In(x);
  const float* wp = In(w);
  float* op = Out(out);
  for (int64_t i = 0; i < b; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      float acc = 0;
      for (int64_t l = 0; l < k; ++l) acc += xp[i * k + l] * wp[l * n + j];
      op[i * n + j] = acc;
    }
  }
}

// out[b, n] = x[b, n] + bias[n]
void AddBias(TensorView x, TensorView bias, TensorView out) {
  CheckF32(x, 2, "add_bias: x");
  CheckF32(bias, 1, "add_bias: bias");
  CheckF32(out, 2, "add_bias: out");
  int64_t b = x.size(0), n = x.size(1);
  TVM_FFI_CHECK(bias.size(0) == n && out.size(0) == b && out.size(1) == n, ValueError)
      << "add_bias: shape mismatch";
  for (int64_t i = 0; i < b * n; ++i) Out(out)[i] = In(x)[i] + In(bias)[i % n];
}

// out = max(x, 0)
void Relu(TensorView x, TensorView out) {
  CheckF32(x, 2, "relu: x");
  CheckF32(out, 2, "relu: out");
  TVM_FFI_CHECK(x.numel() == out.numel(), ValueError) << "relu: shape mismatch";
  for (int64_t i = 0; i < x.numel(); ++i) Out(out)[i] = In(x)[i] > 0 ? In(x)[i] : 0.0f;
}

// Raises an error of the given kind, to check that kinds survive the VM.
void Fail(std::string kind, std::string message) {
  throw tvm::ffi::Error(kind, message, "");
}

}  // namespace

TVM_FFI_DLL_EXPORT_TYPED_FUNC(dense, Dense);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(add_bias, AddBias);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(relu, Relu);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(fail, Fail);
