/*
 * AnyView (a borrowed TVMFFIAny) and Any (an owned one), and TypeTraits<T>, the single table
 * that says how each C++ type travels in a TVMFFIAny. Adding support for a type means adding a
 * TypeTraits specialisation with:
 *   static void CopyToAnyView(const T&, TVMFFIAny* out);   // borrowed, no reference taken
 *   static void MoveToAny(T, TVMFFIAny* out);              // owned
 *   static std::optional<T> TryCastFromAnyView(const TVMFFIAny*);  // with the usual conversions
 *   static bool CheckAnyStrict(const TVMFFIAny*);          // already stored exactly as T
 *   static std::string TypeStr();                          // for error messages
 */
#ifndef TVM_FFI_ANY_H_
#define TVM_FFI_ANY_H_

#include <tvm/ffi/error.h>
#include <tvm/ffi/object.h>
#include <tvm/ffi/string.h>

#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

namespace tvm {
namespace ffi {

template <typename T, typename = void>
struct TypeTraits {
  static constexpr bool enabled = false;
};

template <typename T>
using TypeTraitsNoCR = TypeTraits<std::remove_const_t<std::remove_reference_t<T>>>;

class Any;
class AnyView;
template <>
struct TypeTraits<Any>;
template <>
struct TypeTraits<AnyView>;

namespace details {
/*! \brief True for types that convert into a value, other than Any/AnyView themselves. */
template <typename T>
struct IsAnyLike : std::bool_constant<std::is_same_v<std::decay_t<T>, Any> ||
                                      std::is_same_v<std::decay_t<T>, AnyView>> {};
template <typename T>
struct TraitsEnabled : std::bool_constant<TypeTraitsNoCR<T>::enabled> {};
template <typename T>
constexpr bool kConvertibleToAny =
    std::conjunction_v<std::negation<IsAnyLike<T>>, TraitsEnabled<T>>;
}  // namespace details

namespace details {

/*! \brief Type key of a type index, e.g. "int" or "ffi.Array". */
inline std::string TypeIndexToKey(int32_t type_index) {
  const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(type_index);
  return std::string(info->type_key.data, info->type_key.size);
}

inline void InitNone(TVMFFIAny* out) {
  out->type_index = kTVMFFINone;
  out->zero_padding = 0;
  out->v_int64 = 0;
}

inline void IncRefIfObject(const TVMFFIAny* v) {
  if (v->type_index >= kTVMFFIStaticObjectBegin) TVMFFIObjectIncRef(v->v_obj);
}
inline void DecRefIfObject(const TVMFFIAny* v) {
  if (v->type_index >= kTVMFFIStaticObjectBegin) TVMFFIObjectDecRef(v->v_obj);
}

/*! \brief Owned copy of a view, inline form of TVMFFIAnyViewToOwnedAny for the common kinds. */
inline void CopyViewToOwned(const TVMFFIAny* view, TVMFFIAny* out) {
  switch (view->type_index) {
    case kTVMFFIRawStr:
      MakeBytesValue<StringObj>(view->v_c_str, std::strlen(view->v_c_str), kTVMFFISmallStr, out);
      return;
    case kTVMFFIByteArrayPtr: {
      const TVMFFIByteArray* arr = static_cast<const TVMFFIByteArray*>(view->v_ptr);
      MakeBytesValue<BytesObj>(arr->data, arr->size, kTVMFFISmallBytes, out);
      return;
    }
    case kTVMFFIObjectRValueRef:
      TVM_FFI_CHECK_SAFE_CALL(TVMFFIAnyViewToOwnedAny(view, out));
      return;
    default:
      *out = *view;
      IncRefIfObject(out);
  }
}

}  // namespace details

/*! \brief A borrowed value: valid only while whatever it points at lives. */
class AnyView {
 public:
  AnyView() { details::InitNone(&data_); }
  AnyView(const AnyView&) = default;
  AnyView& operator=(const AnyView&) = default;
  template <typename T, typename = std::enable_if_t<details::kConvertibleToAny<T>>>
  AnyView(const T& value) {  // NOLINT(*)
    TypeTraitsNoCR<T>::CopyToAnyView(value, &data_);
  }
  /*! \brief A view of a raw C value (borrowed). */
  static AnyView FromRaw(const TVMFFIAny& raw) {
    AnyView out;
    out.data_ = raw;
    return out;
  }

  int32_t type_index() const { return data_.type_index; }
  std::string GetTypeKey() const { return details::TypeIndexToKey(data_.type_index); }
  bool is_none() const { return data_.type_index == kTVMFFINone; }

  /*! \brief The value as T, or nullopt if it is not convertible. */
  template <typename T>
  std::optional<T> as() const {
    return TypeTraitsNoCR<T>::TryCastFromAnyView(&data_);
  }
  /*! \brief The value as T; TypeError if it is not convertible. */
  template <typename T>
  T cast() const;

  const TVMFFIAny* raw() const { return &data_; }
  TVMFFIAny* raw_mutable() { return &data_; }

 private:
  TVMFFIAny data_;
};

/*! \brief An owned value: holds a reference when it is an object. */
class Any {
 public:
  Any() { details::InitNone(&data_); }
  Any(const Any& other) : data_(other.data_) { details::IncRefIfObject(&data_); }
  Any(Any&& other) noexcept : data_(other.data_) { details::InitNone(&other.data_); }
  Any(const AnyView& view) { details::CopyViewToOwned(view.raw(), &data_); }  // NOLINT(*)
  template <typename T, typename = std::enable_if_t<details::kConvertibleToAny<T>>>
  Any(T value) {  // NOLINT(*)
    TypeTraitsNoCR<T>::MoveToAny(std::move(value), &data_);
  }
  ~Any() { details::DecRefIfObject(&data_); }
  Any& operator=(const Any& other) {
    Any(other).swap(*this);
    return *this;
  }
  Any& operator=(Any&& other) noexcept {
    Any(std::move(other)).swap(*this);
    return *this;
  }
  void swap(Any& other) noexcept { std::swap(data_, other.data_); }

  /*! \brief Adopts an owned raw value. */
  static Any FromOwnedRaw(const TVMFFIAny& owned) {
    Any out;
    out.data_ = owned;
    return out;
  }
  /*! \brief Moves the owned raw value out, leaving None. */
  TVMFFIAny release() {
    TVMFFIAny out = data_;
    details::InitNone(&data_);
    return out;
  }

  int32_t type_index() const { return data_.type_index; }
  std::string GetTypeKey() const { return details::TypeIndexToKey(data_.type_index); }
  bool is_none() const { return data_.type_index == kTVMFFINone; }
  operator AnyView() const { return AnyView::FromRaw(data_); }  // NOLINT(*)

  template <typename T>
  std::optional<T> as() const {
    return TypeTraitsNoCR<T>::TryCastFromAnyView(&data_);
  }
  template <typename T>
  T cast() const;

  const TVMFFIAny* raw() const { return &data_; }
  TVMFFIAny* raw_mutable() { return &data_; }

 private:
  TVMFFIAny data_;
};

namespace details {
template <typename T>
T CastOrThrow(const TVMFFIAny* value) {
  std::optional<T> out = TypeTraitsNoCR<T>::TryCastFromAnyView(value);
  if (!out.has_value()) {
    TVM_FFI_THROW(TypeError) << "Cannot convert from type `" << TypeIndexToKey(value->type_index)
                             << "` to `" << TypeTraitsNoCR<T>::TypeStr() << "`";
  }
  return std::move(*out);
}
}  // namespace details

template <typename T>
T AnyView::cast() const {
  return details::CastOrThrow<T>(&data_);
}
template <typename T>
T Any::cast() const {
  return details::CastOrThrow<T>(&data_);
}

// ---------------------------------------------------------------------------------------------
// TypeTraits for plain values
// ---------------------------------------------------------------------------------------------

/*! \brief Helpers for traits whose borrowed and owned forms are the same bits. */
template <typename T>
struct PODTraitsBase {
  static constexpr bool enabled = true;
  static void MoveToAny(T value, TVMFFIAny* out) { TypeTraits<T>::CopyToAnyView(value, out); }
};

template <>
struct TypeTraits<std::nullptr_t> : PODTraitsBase<std::nullptr_t> {
  static void CopyToAnyView(std::nullptr_t, TVMFFIAny* out) { details::InitNone(out); }
  static bool CheckAnyStrict(const TVMFFIAny* v) { return v->type_index == kTVMFFINone; }
  static std::optional<std::nullptr_t> TryCastFromAnyView(const TVMFFIAny* v) {
    if (v->type_index == kTVMFFINone) return nullptr;
    return std::nullopt;
  }
  static std::string TypeStr() { return "None"; }
};

template <>
struct TypeTraits<bool> : PODTraitsBase<bool> {
  static void CopyToAnyView(bool value, TVMFFIAny* out) {
    out->type_index = kTVMFFIBool;
    out->zero_padding = 0;
    out->v_int64 = value ? 1 : 0;
  }
  static bool CheckAnyStrict(const TVMFFIAny* v) { return v->type_index == kTVMFFIBool; }
  static std::optional<bool> TryCastFromAnyView(const TVMFFIAny* v) {
    if (v->type_index == kTVMFFIBool || v->type_index == kTVMFFIInt) return v->v_int64 != 0;
    return std::nullopt;
  }
  static std::string TypeStr() { return "bool"; }
};

template <typename Int>
struct TypeTraits<Int, std::enable_if_t<std::is_integral_v<Int> && !std::is_same_v<Int, bool>>>
    : PODTraitsBase<Int> {
  static void CopyToAnyView(Int value, TVMFFIAny* out) {
    out->type_index = kTVMFFIInt;
    out->zero_padding = 0;
    out->v_int64 = static_cast<int64_t>(value);
  }
  static bool CheckAnyStrict(const TVMFFIAny* v) {
    return v->type_index == kTVMFFIInt && InRange(v->v_int64);
  }
  static std::optional<Int> TryCastFromAnyView(const TVMFFIAny* v) {
    if ((v->type_index == kTVMFFIInt || v->type_index == kTVMFFIBool) && InRange(v->v_int64)) {
      return static_cast<Int>(v->v_int64);
    }
    return std::nullopt;
  }
  static std::string TypeStr() { return "int"; }

 private:
  static bool InRange(int64_t x) {
    if constexpr (std::is_unsigned_v<Int>) {
      return x >= 0 && static_cast<uint64_t>(x) <= std::numeric_limits<Int>::max();
    } else {
      return x >= std::numeric_limits<Int>::min() && x <= std::numeric_limits<Int>::max();
    }
  }
};

template <typename Float>
struct TypeTraits<Float, std::enable_if_t<std::is_floating_point_v<Float>>> : PODTraitsBase<Float> {
  static void CopyToAnyView(Float value, TVMFFIAny* out) {
    out->type_index = kTVMFFIFloat;
    out->zero_padding = 0;
    out->v_float64 = static_cast<double>(value);
  }
  static bool CheckAnyStrict(const TVMFFIAny* v) { return v->type_index == kTVMFFIFloat; }
  static std::optional<Float> TryCastFromAnyView(const TVMFFIAny* v) {
    if (v->type_index == kTVMFFIFloat) return static_cast<Float>(v->v_float64);
    if (v->type_index == kTVMFFIInt || v->type_index == kTVMFFIBool) {
      return static_cast<Float>(v->v_int64);
    }
    return std::nullopt;
  }
  static std::string TypeStr() { return "float"; }
};

template <>
struct TypeTraits<void*> : PODTraitsBase<void*> {
  static void CopyToAnyView(void* value, TVMFFIAny* out) {
    out->zero_padding = 0;
    out->v_int64 = 0;
    if (value == nullptr) {
      out->type_index = kTVMFFINone;
    } else {
      out->type_index = kTVMFFIOpaquePtr;
      out->v_ptr = value;
    }
  }
  static bool CheckAnyStrict(const TVMFFIAny* v) { return v->type_index == kTVMFFIOpaquePtr; }
  static std::optional<void*> TryCastFromAnyView(const TVMFFIAny* v) {
    if (v->type_index == kTVMFFIOpaquePtr) return v->v_ptr;
    if (v->type_index == kTVMFFINone) return static_cast<void*>(nullptr);
    return std::nullopt;
  }
  static std::string TypeStr() { return "void*"; }
};

template <>
struct TypeTraits<DLDevice> : PODTraitsBase<DLDevice> {
  static void CopyToAnyView(DLDevice value, TVMFFIAny* out) {
    out->type_index = kTVMFFIDevice;
    out->zero_padding = 0;
    out->v_device = value;
  }
  static bool CheckAnyStrict(const TVMFFIAny* v) { return v->type_index == kTVMFFIDevice; }
  static std::optional<DLDevice> TryCastFromAnyView(const TVMFFIAny* v) {
    if (v->type_index == kTVMFFIDevice) return v->v_device;
    return std::nullopt;
  }
  static std::string TypeStr() { return "Device"; }
};

template <>
struct TypeTraits<DLDataType> : PODTraitsBase<DLDataType> {
  static void CopyToAnyView(DLDataType value, TVMFFIAny* out) {
    out->type_index = kTVMFFIDataType;
    out->zero_padding = 0;
    out->v_int64 = 0;
    out->v_dtype = value;
  }
  static bool CheckAnyStrict(const TVMFFIAny* v) { return v->type_index == kTVMFFIDataType; }
  static std::optional<DLDataType> TryCastFromAnyView(const TVMFFIAny* v) {
    if (v->type_index == kTVMFFIDataType) return v->v_dtype;
    if (v->type_index == kTVMFFISmallStr || v->type_index == kTVMFFIStr) {
      TVMFFIByteArray text = details::BytesValueContent(v);
      DLDataType out;
      if (TVMFFIDataTypeFromString(&text, &out) == 0) return out;
      TVMFFIObjectHandle err = nullptr;
      TVMFFIErrorMoveFromRaised(&err);  // a failed parse only means "not convertible"
      TVMFFIObjectDecRef(err);
    }
    return std::nullopt;
  }
  static std::string TypeStr() { return "DataType"; }
};

/*! \brief A borrowed DLTensor*: from a DLTensorPtr view or the cell of a Tensor object. */
template <>
struct TypeTraits<DLTensor*> : PODTraitsBase<DLTensor*> {
  static void CopyToAnyView(DLTensor* value, TVMFFIAny* out) {
    out->type_index = kTVMFFIDLTensorPtr;
    out->zero_padding = 0;
    out->v_ptr = value;
  }
  static bool CheckAnyStrict(const TVMFFIAny* v) { return v->type_index == kTVMFFIDLTensorPtr; }
  static std::optional<DLTensor*> TryCastFromAnyView(const TVMFFIAny* v) {
    if (v->type_index == kTVMFFIDLTensorPtr) return static_cast<DLTensor*>(v->v_ptr);
    if (v->type_index == kTVMFFITensor) return TVMFFITensorGetDLTensorPtr(v->v_obj);
    return std::nullopt;
  }
  static std::string TypeStr() { return "DLTensor*"; }
};

/*! \brief const char* travels as a borrowed RawStr; it cannot be taken back out of an Any. */
template <>
struct TypeTraits<const char*> {
  static constexpr bool enabled = true;
  static void CopyToAnyView(const char* value, TVMFFIAny* out) {
    out->type_index = kTVMFFIRawStr;
    out->zero_padding = 0;
    out->v_c_str = value;
  }
  static void MoveToAny(const char* value, TVMFFIAny* out) {
    details::MakeBytesValue<StringObj>(value, std::strlen(value), kTVMFFISmallStr, out);
  }
  static bool CheckAnyStrict(const TVMFFIAny*) { return false; }
  static std::optional<const char*> TryCastFromAnyView(const TVMFFIAny* v) {
    if (v->type_index == kTVMFFIRawStr) return v->v_c_str;
    return std::nullopt;
  }
  static std::string TypeStr() { return "const char*"; }
};
template <size_t N>
struct TypeTraits<char[N]> : TypeTraits<const char*> {
  static void CopyToAnyView(const char (&value)[N], TVMFFIAny* out) {
    TypeTraits<const char*>::CopyToAnyView(value, out);
  }
  static void MoveToAny(const char (&value)[N], TVMFFIAny* out) {
    TypeTraits<const char*>::MoveToAny(value, out);
  }
};

template <>
struct TypeTraits<String> {
  static constexpr bool enabled = true;
  static void CopyToAnyView(const String& value, TVMFFIAny* out) { *out = *value.raw(); }
  static void MoveToAny(String value, TVMFFIAny* out) { *out = value.release(); }
  static bool CheckAnyStrict(const TVMFFIAny* v) {
    return v->type_index == kTVMFFISmallStr || v->type_index == kTVMFFIStr;
  }
  static std::optional<String> TryCastFromAnyView(const TVMFFIAny* v) {
    if (CheckAnyStrict(v)) {
      details::IncRefIfObject(v);
      return String::FromOwnedValue(*v);
    }
    if (v->type_index == kTVMFFIRawStr) return String(v->v_c_str);
    return std::nullopt;
  }
  static std::string TypeStr() { return "str"; }
};

template <>
struct TypeTraits<Bytes> {
  static constexpr bool enabled = true;
  static void CopyToAnyView(const Bytes& value, TVMFFIAny* out) { *out = *value.raw(); }
  static void MoveToAny(Bytes value, TVMFFIAny* out) { *out = value.release(); }
  static bool CheckAnyStrict(const TVMFFIAny* v) {
    return v->type_index == kTVMFFISmallBytes || v->type_index == kTVMFFIBytes;
  }
  static std::optional<Bytes> TryCastFromAnyView(const TVMFFIAny* v) {
    if (CheckAnyStrict(v)) {
      details::IncRefIfObject(v);
      return Bytes::FromOwnedValue(*v);
    }
    if (v->type_index == kTVMFFIByteArrayPtr) {
      const TVMFFIByteArray* arr = static_cast<const TVMFFIByteArray*>(v->v_ptr);
      return Bytes(arr->data, arr->size);
    }
    return std::nullopt;
  }
  static std::string TypeStr() { return "bytes"; }
};

/*! \brief std::string travels as a String (copied). */
template <>
struct TypeTraits<std::string> {
  static constexpr bool enabled = true;
  static void CopyToAnyView(const std::string& value, TVMFFIAny* out) {
    // A view must not own anything, so a std::string is viewed as a raw C string.
    TypeTraits<const char*>::CopyToAnyView(value.c_str(), out);
  }
  static void MoveToAny(std::string value, TVMFFIAny* out) {
    TypeTraits<String>::MoveToAny(String(value), out);
  }
  static bool CheckAnyStrict(const TVMFFIAny*) { return false; }
  static std::optional<std::string> TryCastFromAnyView(const TVMFFIAny* v) {
    std::optional<String> s = TypeTraits<String>::TryCastFromAnyView(v);
    if (!s.has_value()) return std::nullopt;
    return std::string(*s);
  }
  static std::string TypeStr() { return "str"; }
};

template <>
struct TypeTraits<Any> {
  static constexpr bool enabled = true;
  static void CopyToAnyView(const Any& value, TVMFFIAny* out) { *out = *value.raw(); }
  static void MoveToAny(Any value, TVMFFIAny* out) { *out = value.release(); }
  static bool CheckAnyStrict(const TVMFFIAny*) { return true; }
  static std::optional<Any> TryCastFromAnyView(const TVMFFIAny* v) {
    return Any(AnyView::FromRaw(*v));
  }
  static std::string TypeStr() { return "Any"; }
};

template <>
struct TypeTraits<AnyView> {
  static constexpr bool enabled = true;
  static void CopyToAnyView(const AnyView& value, TVMFFIAny* out) { *out = *value.raw(); }
  static bool CheckAnyStrict(const TVMFFIAny*) { return true; }
  static std::optional<AnyView> TryCastFromAnyView(const TVMFFIAny* v) {
    return AnyView::FromRaw(*v);
  }
  static std::string TypeStr() { return "AnyView"; }
};

/*! \brief Generic object references: any ObjectRef subclass declared with the macros. */
template <typename RefType>
struct ObjectRefTraitsBase {
  using ObjectType = typename RefType::ContainerType;
  static constexpr bool enabled = true;
  static void CopyToAnyView(const RefType& value, TVMFFIAny* out) {
    const Object* obj = value.get();
    out->zero_padding = 0;
    if (obj == nullptr) {
      details::InitNone(out);
    } else {
      out->type_index = obj->type_index();
      out->v_obj = details::ObjectUnsafe::GetHeader(obj);
    }
  }
  static void MoveToAny(RefType value, TVMFFIAny* out) {
    CopyToAnyView(value, out);
    details::ObjectUnsafe::MoveToHandle(static_cast<ObjectRef&&>(value));
  }
  static bool CheckAnyStrict(const TVMFFIAny* v) {
    if (v->type_index == kTVMFFINone) return RefType::_type_is_nullable;
    if (v->type_index < kTVMFFIStaticObjectBegin) return false;
    return details::ObjectUnsafe::FromHandle(v->v_obj)->IsInstance<ObjectType>();
  }
  static std::optional<RefType> TryCastFromAnyView(const TVMFFIAny* v) {
    if (!CheckAnyStrict(v)) return std::nullopt;
    if (v->type_index == kTVMFFINone) return details::ObjectUnsafe::RefFromPtr<RefType>(nullptr);
    return details::ObjectUnsafe::RefFromPtr<RefType>(
        details::ObjectUnsafe::PtrFromUnowned<Object>(details::ObjectUnsafe::FromHandle(v->v_obj)));
  }
  static std::string TypeStr() { return ObjectType::_type_key; }
};

template <typename RefType>
struct TypeTraits<RefType, std::enable_if_t<std::is_base_of_v<ObjectRef, RefType> &&
                                            !RefType::_type_custom_traits>>
    : ObjectRefTraitsBase<RefType> {};

/*! \brief std::optional<T>: None <-> nullopt. */
template <typename T>
struct TypeTraits<std::optional<T>> {
  static constexpr bool enabled = TypeTraits<T>::enabled;
  static void CopyToAnyView(const std::optional<T>& value, TVMFFIAny* out) {
    if (value.has_value()) {
      TypeTraits<T>::CopyToAnyView(*value, out);
    } else {
      details::InitNone(out);
    }
  }
  static void MoveToAny(std::optional<T> value, TVMFFIAny* out) {
    if (value.has_value()) {
      TypeTraits<T>::MoveToAny(std::move(*value), out);
    } else {
      details::InitNone(out);
    }
  }
  static bool CheckAnyStrict(const TVMFFIAny* v) {
    return v->type_index == kTVMFFINone || TypeTraits<T>::CheckAnyStrict(v);
  }
  static std::optional<std::optional<T>> TryCastFromAnyView(const TVMFFIAny* v) {
    if (v->type_index == kTVMFFINone) return std::optional<T>();
    std::optional<T> inner = TypeTraits<T>::TryCastFromAnyView(v);
    if (!inner.has_value()) return std::nullopt;
    return inner;
  }
  static std::string TypeStr() { return "Optional[" + TypeTraits<T>::TypeStr() + "]"; }
};

// ---------------------------------------------------------------------------------------------
// Equality and hashing with the ABI's rules (used by Map/Dict, whose layout modules share)
// ---------------------------------------------------------------------------------------------

namespace details {

/*! \brief Hash of a value: strings/bytes by content, everything else by its payload word. */
inline uint64_t AnyHash(const TVMFFIAny* v) {
  switch (v->type_index) {
    case kTVMFFISmallStr:
      return StableHashCombine(kTVMFFIStr, v->v_uint64 % 2147483647ULL);
    case kTVMFFISmallBytes:
      return StableHashCombine(kTVMFFIBytes, v->v_uint64 % 2147483647ULL);
    case kTVMFFIStr:
    case kTVMFFIBytes: {
      const TVMFFIByteArray* arr = TVMFFIBytesGetByteArrayPtr(v->v_obj);
      return StableHashCombine(v->type_index, StableHashBytes(arr->data, arr->size));
    }
    default:
      break;
  }
  if (v->type_index >= kTVMFFIDynObjectBegin) {
    static const TVMFFITypeAttrColumn* column = [] {
      TVMFFIByteArray name = MakeByteArray("__any_hash__", 12);
      return TVMFFIGetTypeAttrColumn(&name);
    }();
    if (column != nullptr) {
      int32_t offset = v->type_index - column->begin_index;
      if (offset >= 0 && offset < column->size &&
          column->data[offset].type_index == kTVMFFIOpaquePtr) {
        using HashFn = int64_t (*)(const Any&);
        HashFn fn = reinterpret_cast<HashFn>(column->data[offset].v_ptr);
        return StableHashCombine(v->type_index,
                                 static_cast<uint64_t>(fn(*reinterpret_cast<const Any*>(v))));
      }
    }
  }
  return StableHashCombine(static_cast<uint64_t>(static_cast<int64_t>(v->type_index)),
                           v->v_uint64);
}

inline bool IsStrKind(int32_t idx) { return idx == kTVMFFIStr || idx == kTVMFFISmallStr; }
inline bool IsBytesKind(int32_t idx) { return idx == kTVMFFIBytes || idx == kTVMFFISmallBytes; }

/*! \brief Equality of values: identical words, or equal string/bytes content. */
inline bool AnyEqual(const TVMFFIAny* a, const TVMFFIAny* b) {
  if (a->type_index == b->type_index && a->zero_padding == b->zero_padding &&
      a->v_uint64 == b->v_uint64) {
    return true;
  }
  if ((IsStrKind(a->type_index) && IsStrKind(b->type_index)) ||
      (IsBytesKind(a->type_index) && IsBytesKind(b->type_index))) {
    TVMFFIByteArray x = BytesValueContent(a);
    TVMFFIByteArray y = BytesValueContent(b);
    return x.size == y.size && (x.size == 0 || std::memcmp(x.data, y.data, x.size) == 0);
  }
  if (a->type_index == b->type_index && a->type_index >= kTVMFFIDynObjectBegin) {
    static const TVMFFITypeAttrColumn* column = [] {
      TVMFFIByteArray name = MakeByteArray("__any_equal__", 13);
      return TVMFFIGetTypeAttrColumn(&name);
    }();
    if (column != nullptr) {
      int32_t offset = a->type_index - column->begin_index;
      if (offset >= 0 && offset < column->size &&
          column->data[offset].type_index == kTVMFFIOpaquePtr) {
        using EqFn = bool (*)(const Any&, const Any&);
        EqFn fn = reinterpret_cast<EqFn>(column->data[offset].v_ptr);
        return fn(*reinterpret_cast<const Any*>(a), *reinterpret_cast<const Any*>(b));
      }
    }
  }
  return false;
}

}  // namespace details

/*! \brief Hash functor for Any keys (std containers). */
struct AnyHash {
  size_t operator()(const Any& v) const { return static_cast<size_t>(details::AnyHash(v.raw())); }
};
/*! \brief Equality functor for Any keys. */
struct AnyEqual {
  bool operator()(const Any& a, const Any& b) const { return details::AnyEqual(a.raw(), b.raw()); }
};

inline bool operator==(const Any& a, const Any& b) { return details::AnyEqual(a.raw(), b.raw()); }
inline bool operator!=(const Any& a, const Any& b) { return !(a == b); }

}  // namespace ffi
}  // namespace tvm

// Optional<T> (ABI-shaped) is part of the value vocabulary; see optional.h.
#include <tvm/ffi/optional.h>  // NOLINT(build/include_order)
#endif  // TVM_FFI_ANY_H_
