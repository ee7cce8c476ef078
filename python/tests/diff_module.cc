// One source, two builds (python/tests/BUILD.bazel): diff_module.so with our headers and
// diff_module_ref.so with apache-tvm-ffi's, both linked to our libtvm_ffi.so. The differential
// property test feeds both the same values: header-inline code (Any conversions, refcounts,
// strings, TensorView) must behave the same. Only API both header sets share is used.
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/map.h>
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/string.h>

#include <string>
#include <vector>

namespace ffi = tvm::ffi;

namespace {

ffi::Any Echo(ffi::Any v) { return v; }
int64_t TypeIndexOf(ffi::Any v) { return v.type_index(); }
int64_t AddInt(int64_t a, int64_t b) { return a + b; }
double MulFloat(double a, double b) { return a * b; }
bool NotBool(bool b) { return !b; }
ffi::String Concat(ffi::String a, ffi::String b) { return std::string(a) + std::string(b); }
int64_t StrLen(ffi::String s) { return static_cast<int64_t>(s.size()); }
ffi::Bytes ReverseBytes(ffi::Bytes b) {
  std::string s(b.data(), b.size());
  return ffi::Bytes(std::string(s.rbegin(), s.rend()));
}
ffi::Any CallCallback(ffi::Function f, ffi::Any x) { return f(x); }

// Containers through header-inline code (layouts, COW, Map hashing/probing).
int64_t ArrayLen(ffi::Array<ffi::Any> a) { return static_cast<int64_t>(a.size()); }
ffi::Any ArrayGet(ffi::Array<ffi::Any> a, int64_t i) { return a[i]; }
ffi::Array<ffi::Any> ArrayAppend(ffi::Array<ffi::Any> a, ffi::Any v) {
  a.push_back(v);  // copy-on-write: the caller's array is unchanged
  return a;
}
int64_t MapLen(ffi::Map<ffi::Any, ffi::Any> m) { return static_cast<int64_t>(m.size()); }
int64_t MapCount(ffi::Map<ffi::Any, ffi::Any> m, ffi::Any k) {
  return static_cast<int64_t>(m.count(k));
}
ffi::Map<ffi::Any, ffi::Any> MapSet(ffi::Map<ffi::Any, ffi::Any> m, ffi::Any k, ffi::Any v) {
  m.Set(k, v);
  return m;
}

/*! \brief "ndim|shape...|strides...|byte_offset|code,bits,lanes|dev,id|bytesum" of a tensor. */
ffi::String TensorDigest(ffi::TensorView t) {
  std::string out = std::to_string(t.ndim()) + "|";
  for (int32_t d = 0; d < t.ndim(); ++d) out += std::to_string(t.shape()[d]) + ",";
  out += "|";
  for (int32_t d = 0; d < t.ndim(); ++d) out += std::to_string(t.strides()[d]) + ",";
  out += "|" + std::to_string(t.byte_offset()) + "|";
  DLDataType dt = t.dtype();
  out += std::to_string(dt.code) + "," + std::to_string(dt.bits) + "," + std::to_string(dt.lanes);
  out += "|" + std::to_string(t.device().device_type) + "," + std::to_string(t.device().device_id);
  int lanes = dt.lanes == 0 ? 1 : dt.lanes;
  int64_t elem = (static_cast<int64_t>(dt.bits) * lanes + 7) / 8;
  int64_t numel = 1;
  for (int32_t d = 0; d < t.ndim(); ++d) numel *= t.shape()[d];
  std::vector<int64_t> index(t.ndim(), 0);
  const unsigned char* base = static_cast<const unsigned char*>(t.data_ptr()) + t.byte_offset();
  uint64_t sum = 0;
  for (int64_t k = 0; k < numel; ++k) {
    int64_t off = 0;
    for (int32_t d = 0; d < t.ndim(); ++d) off += index[d] * t.strides()[d];
    for (int64_t b = 0; b < elem; ++b) sum = sum * 31 + base[off * elem + b];
    for (int32_t d = t.ndim() - 1; d >= 0; --d) {
      if (++index[d] < t.shape()[d]) break;
      index[d] = 0;
    }
  }
  out += "|" + std::to_string(sum);
  return out;
}

}  // namespace

TVM_FFI_DLL_EXPORT_TYPED_FUNC(echo, Echo);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(type_index_of, TypeIndexOf);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(add_int, AddInt);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(mul_float, MulFloat);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(not_bool, NotBool);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(concat, Concat);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(str_len, StrLen);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(reverse_bytes, ReverseBytes);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(call_callback, CallCallback);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(tensor_digest, TensorDigest);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(array_len, ArrayLen);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(array_get, ArrayGet);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(array_append, ArrayAppend);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(map_len, MapLen);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(map_count, MapCount);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(map_set, MapSet);
