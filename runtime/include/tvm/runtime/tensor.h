/*
 * Tensor allocation and copies through the device APIs. The functions are thin inline calls
 * of `runtime.*` globals, so code using them (an embedding application, a backend library)
 * needs only libtvm_ffi's headers and libtvm_runtime loaded, never runtime C++ symbols.
 */
#ifndef TVM_RUNTIME_TENSOR_H_
#define TVM_RUNTIME_TENSOR_H_

#include <tvm/ffi/container/shape.h>
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/function.h>

#include <cstdint>
#include <vector>

namespace tvm {
namespace runtime {

using ffi::Tensor;

namespace details {
/*!
 * \brief Looks a runtime global up on every call. Callers keep the result in a function-local
 * static (one lookup per process; the global is registered when libtvm_runtime loads).
 */
inline ffi::Function LookupRuntimeGlobal(const char* name) {
  return ffi::Function::GetGlobalRequired(name);
}
}  // namespace details

/*! \brief A new uninitialised compact tensor on `device` (64-byte aligned). */
inline Tensor Empty(const std::vector<int64_t>& shape, DLDataType dtype, DLDevice device) {
  static const ffi::Function f = details::LookupRuntimeGlobal("runtime.TensorEmpty");
  return f(ffi::Shape(shape.begin(), shape.end()),
                                                       dtype, device)
      .cast<Tensor>();
}

/*!
 * \brief Copies `from` into `to` (same shape and dtype; strided allowed; host <-> device
 * allowed). Asynchronous on devices with streams; see StreamSync.
 */
inline void CopyFromTo(const DLTensor* from, const DLTensor* to) {
  static const ffi::Function f = details::LookupRuntimeGlobal("runtime.TensorCopyFromTo");
  f(const_cast<DLTensor*>(from),
                                                     const_cast<DLTensor*>(to));
}

/*! \brief Fills a compact tensor from host bytes (synchronous). */
inline void CopyFromBytes(const Tensor& dst, const void* data, size_t nbytes) {
  static const ffi::Function f = details::LookupRuntimeGlobal("runtime.TensorCopyFromBytes");
  f(dst, const_cast<void*>(data),
                                                        static_cast<int64_t>(nbytes));
}

/*! \brief Reads a compact tensor into host bytes (synchronous). */
inline void CopyToBytes(const Tensor& src, void* data, size_t nbytes) {
  static const ffi::Function f = details::LookupRuntimeGlobal("runtime.TensorCopyToBytes");
  f(src, data, static_cast<int64_t>(nbytes));
}

/*! \brief Bytes of a compact tensor's data. */
inline size_t DataBytes(const DLTensor& t) {
  return ffi::details::DataBytes(t.dtype, ffi::details::ShapeNumel(t.shape, t.ndim));
}

}  // namespace runtime
}  // namespace tvm
#endif  // TVM_RUNTIME_TENSOR_H_
