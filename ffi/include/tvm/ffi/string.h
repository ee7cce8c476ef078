/*
 * String and Bytes. Up to 7 bytes live inline in the value (SmallStr/SmallBytes, zero tail);
 * longer content lives in a heap object whose TVMFFIByteArray cell sits at +24 and whose
 * characters follow inline, NUL-terminated. Both forms compare and hash equal.
 */
#ifndef TVM_FFI_STRING_H_
#define TVM_FFI_STRING_H_

#include <tvm/ffi/error.h>
#include <tvm/ffi/object.h>

#include <cstring>
#include <ostream>
#include <string>
#include <string_view>
#include <type_traits>

namespace tvm {
namespace ffi {

/*! \brief Heap layout shared by strings and bytes: header, then {data, size}, then the bytes. */
class BytesObjBase : public Object, public TVMFFIByteArray {};

/*! \brief Heap string object (type index 65). */
class StringObj : public BytesObjBase {
 public:
  TVM_FFI_DECLARE_OBJECT_INFO_STATIC("ffi.String", StringObj, Object, kTVMFFIStr);
};

/*! \brief Heap bytes object (type index 66). */
class BytesObj : public BytesObjBase {
 public:
  TVM_FFI_DECLARE_OBJECT_INFO_STATIC("ffi.Bytes", BytesObj, Object, kTVMFFIBytes);
};

namespace details {

/*! \brief Longest content kept inline in the value. */
constexpr size_t kMaxSmallBytesLen = sizeof(int64_t) - 1;

/*! \brief Fills `out` (owned) with `size` bytes: inline when short, else a new heap object. */
template <typename ObjType>
inline void MakeBytesValue(const char* data, size_t size, int32_t small_index, TVMFFIAny* out) {
  out->v_int64 = 0;
  if (size <= kMaxSmallBytesLen) {
    out->type_index = small_index;
    out->small_str_len = static_cast<uint32_t>(size);
    if (size != 0) std::memcpy(out->v_bytes, data, size);
    return;
  }
  ObjectPtr<ObjType> obj = make_inplace_array_object<ObjType, char>(size + 1);
  char* dest = reinterpret_cast<char*>(obj.get()) + sizeof(ObjType);
  std::memcpy(dest, data, size);
  dest[size] = '\0';
  obj->data = dest;
  obj->size = size;
  out->type_index = ObjType::RuntimeTypeIndex();
  out->zero_padding = 0;
  out->v_obj = ObjectUnsafe::GetHeader(obj.get());
  ObjectUnsafe::MoveToHandle(std::move(obj));
}

/*! \brief Content of a string/bytes value in either form (borrowed). */
inline TVMFFIByteArray BytesValueContent(const TVMFFIAny* value) {
  if (value->type_index == kTVMFFISmallStr || value->type_index == kTVMFFISmallBytes) {
    return TVMFFISmallBytesGetContentByteArray(value);
  }
  return *TVMFFIBytesGetByteArrayPtr(value->v_obj);
}

/*!
 * \brief Common value holder of String and Bytes: an owned TVMFFIAny that is either the small
 * form or a heap object.
 */
template <typename ObjType, int32_t kSmallIndex>
class BytesValueBase {
 public:
  BytesValueBase() {
    value_.type_index = kSmallIndex;
    value_.small_str_len = 0;
    value_.v_int64 = 0;
  }
  BytesValueBase(const char* data, size_t size) { MakeBytesValue<ObjType>(data, size, kSmallIndex, &value_); }
  BytesValueBase(const BytesValueBase& other) : value_(other.value_) {
    if (value_.type_index >= kTVMFFIStaticObjectBegin) TVMFFIObjectIncRef(value_.v_obj);
  }
  BytesValueBase(BytesValueBase&& other) noexcept : value_(other.value_) { other.ResetToEmpty(); }
  BytesValueBase& operator=(const BytesValueBase& other) {
    BytesValueBase tmp(other);
    std::swap(value_, tmp.value_);
    return *this;
  }
  BytesValueBase& operator=(BytesValueBase&& other) noexcept {
    std::swap(value_, other.value_);
    return *this;
  }
  ~BytesValueBase() {
    if (value_.type_index >= kTVMFFIStaticObjectBegin) TVMFFIObjectDecRef(value_.v_obj);
  }

  const char* data() const { return BytesValueContent(&value_).data; }
  size_t size() const { return BytesValueContent(&value_).size; }
  size_t length() const { return size(); }
  bool empty() const { return size() == 0; }
  /*! \brief Content including a NUL terminator at data()[size()]. */
  const char* c_str() const { return data(); }
  std::string_view view() const { return std::string_view(data(), size()); }
  operator std::string() const { return std::string(data(), size()); }  // NOLINT(*)
  /*! \brief Whether the value is a heap object (as opposed to the inline form). */
  bool is_heap() const { return value_.type_index >= kTVMFFIStaticObjectBegin; }

  /*! \brief The ABI hash (equal for both forms with the same content). */
  uint64_t hash() const {
    if (!is_heap()) {
      return StableHashCombine(ObjType::RuntimeTypeIndex(), value_.v_uint64 % 2147483647ULL);
    }
    return StableHashCombine(ObjType::RuntimeTypeIndex(), StableHashBytes(data(), size()));
  }
  int compare(const BytesValueBase& other) const { return view().compare(other.view()); }

  /*! \brief Raw access for Any conversion: a borrowed view of the value. */
  const TVMFFIAny* raw() const { return &value_; }
  /*! \brief Moves the owned value out, leaving an empty string. */
  TVMFFIAny release() {
    TVMFFIAny out = value_;
    ResetToEmpty();
    return out;
  }
  /*! \brief Adopts an owned value (small form or heap object of ObjType). */
  static BytesValueBase Adopt(const TVMFFIAny& owned) {
    BytesValueBase out;
    out.value_ = owned;
    return out;
  }

 protected:
  void ResetToEmpty() {
    value_.type_index = kSmallIndex;
    value_.small_str_len = 0;
    value_.v_int64 = 0;
  }
  TVMFFIAny value_;
};

}  // namespace details

/*!
 * \brief An immutable UTF-8 string value (not necessarily NUL-free).
 */
class String : public details::BytesValueBase<StringObj, kTVMFFISmallStr> {
  using Base = details::BytesValueBase<StringObj, kTVMFFISmallStr>;

 public:
  String() = default;
  String(const char* str) : Base(str, std::strlen(str)) {}             // NOLINT(*)
  String(const std::string& str) : Base(str.data(), str.size()) {}     // NOLINT(*)
  String(std::string_view str) : Base(str.data(), str.size()) {}       // NOLINT(*)
  String(const char* data, size_t size) : Base(data, size) {}
  String(Base&& base) : Base(std::move(base)) {}  // NOLINT(*)

  static String FromOwnedValue(const TVMFFIAny& owned) { return String(Base::Adopt(owned)); }

  using ContainerType = StringObj;
};

/*! \brief An immutable byte string value. */
class Bytes : public details::BytesValueBase<BytesObj, kTVMFFISmallBytes> {
  using Base = details::BytesValueBase<BytesObj, kTVMFFISmallBytes>;

 public:
  Bytes() = default;
  Bytes(const char* data, size_t size) : Base(data, size) {}
  /*! \brief From a NUL-terminated C string (the terminator is not included). */
  Bytes(const char* str) : Base(str, std::strlen(str)) {}  // NOLINT(*)
  Bytes(const std::string& str) : Base(str.data(), str.size()) {}  // NOLINT(*)
  Bytes(std::string_view str) : Base(str.data(), str.size()) {}    // NOLINT(*)
  Bytes(Base&& base) : Base(std::move(base)) {}                     // NOLINT(*)

  static Bytes FromOwnedValue(const TVMFFIAny& owned) { return Bytes(Base::Adopt(owned)); }

  using ContainerType = BytesObj;
};

namespace details {
/*! \brief Text-like types a String compares with (string literals, std::string, views). */
template <typename T>
constexpr bool kStringComparable =
    std::is_convertible_v<const T&, std::string_view> && !std::is_same_v<T, String>;
}  // namespace details

// Comparisons are templates on the non-String side so that, e.g., `string_view == "abc"`
// never becomes ambiguous through String's implicit constructors.
inline bool operator==(const String& a, const String& b) { return a.view() == b.view(); }
inline bool operator!=(const String& a, const String& b) { return !(a == b); }
inline bool operator<(const String& a, const String& b) { return a.view() < b.view(); }
// Both sides are deduced (S must be exactly String), so no implicit conversion to String
// takes part in overload resolution.
template <typename S, typename T,
          typename = std::enable_if_t<std::is_same_v<S, String> && details::kStringComparable<T>>>
bool operator==(const S& a, const T& b) {
  return a.view() == std::string_view(b);
}
template <typename T, typename S,
          std::enable_if_t<std::is_same_v<S, String> && details::kStringComparable<T>, int> = 0>
bool operator==(const T& a, const S& b) {
  return std::string_view(a) == b.view();
}
template <typename S, typename T,
          typename = std::enable_if_t<std::is_same_v<S, String> && details::kStringComparable<T>>>
bool operator!=(const S& a, const T& b) {
  return !(a.view() == std::string_view(b));
}
template <typename T, typename S,
          std::enable_if_t<std::is_same_v<S, String> && details::kStringComparable<T>, int> = 0>
bool operator!=(const T& a, const S& b) {
  return !(std::string_view(a) == b.view());
}
inline String operator+(const String& a, const String& b) {
  return String(std::string(a) + std::string(b));
}
inline bool operator==(const Bytes& a, const Bytes& b) { return a.view() == b.view(); }
inline bool operator!=(const Bytes& a, const Bytes& b) { return !(a == b); }
inline std::ostream& operator<<(std::ostream& os, const String& s) { return os << s.view(); }

}  // namespace ffi
}  // namespace tvm

namespace std {
template <>
struct hash<::tvm::ffi::String> {
  size_t operator()(const ::tvm::ffi::String& s) const { return static_cast<size_t>(s.hash()); }
};
}  // namespace std
#endif  // TVM_FFI_STRING_H_
