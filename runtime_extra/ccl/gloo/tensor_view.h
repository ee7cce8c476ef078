/*
 * What a collective needs of a tensor: a CPU, contiguous buffer. Bad input is a typed error
 * naming the op and the argument.
 */
#ifndef TVM_RUNTIME_EXTRA_CCL_GLOO_TENSOR_VIEW_H_
#define TVM_RUNTIME_EXTRA_CCL_GLOO_TENSOR_VIEW_H_

#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/optional.h>

#include <cstdint>
#include <string>

namespace tvm {
namespace runtime {
namespace disco_gloo {

struct TensorView {
  uint8_t* data = nullptr;
  size_t bytes = 0;
  int64_t numel = 0;
  DLDataType dtype{};
};

/*! \throws ValueError when `t` is None; TypeError when not a CPU contiguous tensor. */
inline TensorView View(const ffi::Optional<ffi::Tensor>& t, const char* op, const char* arg) {
  if (!t.has_value() || !t.value().defined()) {
    TVM_FFI_THROW(ValueError) << "gloo " << op << ": buffer `" << arg << "` must not be None";
  }
  const ffi::Tensor& x = t.value();
  if (x->device.device_type != kDLCPU && x->device.device_type != kDLCUDAHost) {
    TVM_FFI_THROW(TypeError) << "gloo " << op << ": `" << arg
                             << "` must be a CPU tensor (gloo is the CPU collective library), got "
                                "device type "
                             << static_cast<int>(x->device.device_type);
  }
  if (!x.IsContiguous()) {
    TVM_FFI_THROW(TypeError) << "gloo " << op << ": `" << arg << "` must be contiguous";
  }
  TensorView v;
  v.data = static_cast<uint8_t*>(x->data) + x->byte_offset;
  v.numel = x.numel();
  v.dtype = x->dtype;
  v.bytes = ffi::details::DataBytes(x->dtype, v.numel);
  return v;
}

inline bool SameType(DLDataType a, DLDataType b) {
  return a.code == b.code && a.bits == b.bits && a.lanes == b.lanes;
}

}  // namespace disco_gloo
}  // namespace runtime
}  // namespace tvm
#endif  // TVM_RUNTIME_EXTRA_CCL_GLOO_TENSOR_VIEW_H_
