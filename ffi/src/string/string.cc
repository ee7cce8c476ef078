/*
 * Strings, bytes and big integers from raw byte ranges.
 *
 * BigInt layout (type index 78): header, a size_t word count at +24, then that many
 * native-endian int64 words at +32, least significant first, two's complement, minimal (no
 * redundant sign words). Values that fit in int64 always travel as plain Int.
 */
#include <tvm/ffi/any.h>

#include <cstring>
#include <vector>

namespace tvm {
namespace ffi {
namespace {

class BigIntObj : public Object {
 public:
  size_t num_words;
  const int64_t* words() const {
    return reinterpret_cast<const int64_t*>(reinterpret_cast<const char*>(this) + sizeof(BigIntObj));
  }
  int64_t* mutable_words() {
    return reinterpret_cast<int64_t*>(reinterpret_cast<char*>(this) + sizeof(BigIntObj));
  }
  TVM_FFI_DECLARE_OBJECT_INFO_STATIC("ffi.BigInt", BigIntObj, Object, kTVMFFIBigInt);
};
static_assert(sizeof(BigIntObj) == 32, "BigInt words must start at +32");

/*! \brief Drops sign-extension words that carry no information. */
size_t MinimalWordCount(const int64_t* words, size_t n) {
  while (n > 1) {
    bool top_is_sign_of_next = (words[n - 1] == 0 && words[n - 2] >= 0) ||
                               (words[n - 1] == -1 && words[n - 2] < 0);
    if (!top_is_sign_of_next) break;
    --n;
  }
  return n;
}

}  // namespace
}  // namespace ffi
}  // namespace tvm

using tvm::ffi::details::ObjectUnsafe;

extern "C" {

int TVMFFIStringFromByteArray(const TVMFFIByteArray* input, TVMFFIAny* out) {
  TVM_FFI_SAFE_CALL_BEGIN();
  TVM_FFI_CHECK(input != nullptr && out != nullptr, ValueError) << "null argument";
  TVM_FFI_CHECK(input->data != nullptr || input->size == 0, ValueError) << "null data";
  tvm::ffi::details::MakeBytesValue<tvm::ffi::StringObj>(input->data, input->size,
                                                        kTVMFFISmallStr, out);
  TVM_FFI_SAFE_CALL_END();
}

int TVMFFIBytesFromByteArray(const TVMFFIByteArray* input, TVMFFIAny* out) {
  TVM_FFI_SAFE_CALL_BEGIN();
  TVM_FFI_CHECK(input != nullptr && out != nullptr, ValueError) << "null argument";
  TVM_FFI_CHECK(input->data != nullptr || input->size == 0, ValueError) << "null data";
  tvm::ffi::details::MakeBytesValue<tvm::ffi::BytesObj>(input->data, input->size,
                                                       kTVMFFISmallBytes, out);
  TVM_FFI_SAFE_CALL_END();
}

int TVMFFIBigIntFromByteArray(const TVMFFIByteArray* input, TVMFFIAny* out) {
  TVM_FFI_SAFE_CALL_BEGIN();
  TVM_FFI_CHECK(input != nullptr && out != nullptr, ValueError) << "null argument";
  TVM_FFI_CHECK(input->size % 8 == 0, ValueError)
      << "BigInt content must be whole 64-bit words, got " << input->size << " bytes";
  TVM_FFI_CHECK(input->data != nullptr || input->size == 0, ValueError) << "null data";
  size_t n = input->size / 8;
  std::vector<int64_t> words(n);
  if (n != 0) std::memcpy(words.data(), input->data, input->size);
  n = n == 0 ? 0 : tvm::ffi::MinimalWordCount(words.data(), n);
  out->zero_padding = 0;
  if (n <= 1) {
    out->type_index = kTVMFFIInt;
    out->v_int64 = n == 0 ? 0 : words[0];
    return 0;
  }
  auto obj = tvm::ffi::make_inplace_array_object<tvm::ffi::BigIntObj, int64_t>(n);
  obj->num_words = n;
  std::memcpy(obj->mutable_words(), words.data(), n * 8);
  out->type_index = kTVMFFIBigInt;
  out->v_obj = static_cast<TVMFFIObject*>(ObjectUnsafe::MoveToHandle(std::move(obj)));
  TVM_FFI_SAFE_CALL_END();
}

TVMFFIByteArray TVMFFIBigIntGetContentByteArray(const TVMFFIAny* value) {
  TVMFFIByteArray out{nullptr, 0};
  if (value == nullptr) return out;
  if (value->type_index == kTVMFFIInt) {
    out.data = reinterpret_cast<const char*>(&value->v_int64);
    out.size = 8;
  } else if (value->type_index == kTVMFFIBigInt && value->v_obj != nullptr) {
    auto* obj = static_cast<const tvm::ffi::BigIntObj*>(ObjectUnsafe::FromHandle(value->v_obj));
    out.data = reinterpret_cast<const char*>(obj->words());
    out.size = obj->num_words * 8;
  }
  return out;
}

}  // extern "C"
