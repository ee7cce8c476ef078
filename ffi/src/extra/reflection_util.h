/*
 * Reading reflected objects through the type table the C ABI shares (TVMFFIGetTypeInfo,
 * field records, type attribute columns). The extra C++ API (repr, deep copy, recursive and
 * structural comparison, JSON graphs) works on any object whose type registered fields,
 * whichever headers registered them: it never assumes a C++ layout beyond the field records.
 * Never installed.
 */
#ifndef TVM_FFI_SRC_EXTRA_REFLECTION_UTIL_H_
#define TVM_FFI_SRC_EXTRA_REFLECTION_UTIL_H_

#include <tvm/ffi/any.h>
#include <tvm/ffi/c_api.h>
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/dict.h>
#include <tvm/ffi/container/list.h>
#include <tvm/ffi/container/map.h>
#include <tvm/ffi/container/shape.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/object.h>
#include <tvm/ffi/string.h>

#include <string>
#include <string_view>
#include <vector>

namespace tvm {
namespace ffi {
namespace extra_detail {

inline bool IsStr(int32_t ti) { return ti == kTVMFFIStr || ti == kTVMFFISmallStr; }
inline bool IsBytes(int32_t ti) { return ti == kTVMFFIBytes || ti == kTVMFFISmallBytes; }
inline bool IsObject(int32_t ti) { return ti >= kTVMFFIStaticObjectBegin; }

/*! \brief The object a value holds (NULL for POD values). */
inline TVMFFIObject* ObjectOf(const Any& v) {
  return IsObject(v.type_index()) ? static_cast<TVMFFIObject*>(v.raw()->v_obj) : nullptr;
}

/*! \brief Content of a string or bytes value (small or heap). */
inline std::string_view BytesView(const Any& v) {
  TVMFFIByteArray b = details::BytesValueContent(v.raw());
  return std::string_view(b.data, b.size);
}

inline const TVMFFITypeInfo* TypeInfo(int32_t ti) { return TVMFFIGetTypeInfo(ti); }

inline std::string TypeKey(int32_t ti) {
  const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(ti);
  if (info == nullptr) return "<unknown type " + std::to_string(ti) + ">";
  return std::string(info->type_key.data, info->type_key.size);
}

/*!
 * \brief Calls fn(field) for every field of the type, ancestors' first (root to leaf), in
 * registration order: the order the reference's ForEachFieldInfo uses.
 */
template <typename F>
void ForEachField(const TVMFFITypeInfo* info, F fn) {
  if (info == nullptr) return;
  for (int32_t d = 0; d < info->type_depth; ++d) {
    const TVMFFITypeInfo* anc = info->type_ancestors[d];
    for (int32_t i = 0; i < anc->num_fields; ++i) fn(&anc->fields[i]);
  }
  for (int32_t i = 0; i < info->num_fields; ++i) fn(&info->fields[i]);
}

/*! \brief Every field, flattened; the vector is cheap to keep per frame. */
inline std::vector<const TVMFFIFieldInfo*> AllFields(int32_t ti) {
  std::vector<const TVMFFIFieldInfo*> out;
  ForEachField(TVMFFIGetTypeInfo(ti), [&](const TVMFFIFieldInfo* f) { out.push_back(f); });
  return out;
}

inline std::string_view FieldName(const TVMFFIFieldInfo* f) {
  return std::string_view(f->name.data, f->name.size);
}

/*! \brief Reads a field through its getter (owned result). */
inline Any GetField(const TVMFFIFieldInfo* f, const TVMFFIObject* obj) {
  TVMFFIAny out;
  out.type_index = kTVMFFINone;
  out.zero_padding = 0;
  out.v_int64 = 0;
  void* addr = reinterpret_cast<char*>(const_cast<TVMFFIObject*>(obj)) + f->offset;
  if (f->getter == nullptr) {
    TVM_FFI_THROW(TypeError) << "Field `" << FieldName(f) << "` has no getter";
  }
  if (f->getter(addr, &out) != 0) throw details::MoveFromRaised();
  return Any::FromOwnedRaw(out);
}

/*! \brief Writes a field through its setter (a C function or a Function object). */
inline void SetField(const TVMFFIFieldInfo* f, TVMFFIObject* obj, const Any& value) {
  void* addr = reinterpret_cast<char*>(obj) + f->offset;
  if (f->setter == nullptr) {
    TVM_FFI_THROW(TypeError) << "Field `" << FieldName(f) << "` has no setter";
  }
  if (f->flags & kTVMFFIFieldFlagBitSetterIsFunctionObj) {
    TVMFFIAny args[2];
    args[0].type_index = kTVMFFIOpaquePtr;
    args[0].zero_padding = 0;
    args[0].v_ptr = addr;
    args[1] = *value.raw();
    TVMFFIAny result;
    result.type_index = kTVMFFINone;
    result.zero_padding = 0;
    result.v_int64 = 0;
    if (TVMFFIFunctionCall(f->setter, args, 2, &result) != 0) throw details::MoveFromRaised();
    Any::FromOwnedRaw(result);
    return;
  }
  auto setter = reinterpret_cast<TVMFFIFieldSetter>(f->setter);
  if (setter(addr, value.raw()) != 0) throw details::MoveFromRaised();
}

/*! \brief The value of a type attribute for a type index, or None. */
inline AnyView TypeAttr(const char* name, int32_t ti) {
  TVMFFIByteArray key{name, std::char_traits<char>::length(name)};
  const TVMFFITypeAttrColumn* col = TVMFFIGetTypeAttrColumn(&key);
  if (col == nullptr) return AnyView();
  int32_t off = ti - col->begin_index;
  if (off < 0 || off >= col->size) return AnyView();
  return AnyView::FromRaw(col->data[off]);
}

/*! \brief A type attribute that must be a Function (None when absent). */
inline std::optional<Function> TypeAttrFunction(const char* name, int32_t ti) {
  AnyView v = TypeAttr(name, ti);
  if (v.is_none()) return std::nullopt;
  return v.cast<Function>();
}

/*! \brief The items of an Array or List value. */
inline std::vector<Any> SequenceItems(const Any& v) {
  std::vector<Any> out;
  if (v.type_index() == kTVMFFIList) {
    for (const Any& x : v.cast<List<Any>>()) out.push_back(x);
  } else {
    for (const Any& x : v.cast<Array<Any>>()) out.push_back(x);
  }
  return out;
}

/*! \brief The entries of a Map or Dict value, in iteration order. */
inline std::vector<std::pair<Any, Any>> MapItems(const Any& v) {
  std::vector<std::pair<Any, Any>> out;
  if (v.type_index() == kTVMFFIDict) {
    for (const auto& kv : v.cast<Dict<Any, Any>>()) out.emplace_back(kv.first, kv.second);
  } else {
    for (const auto& kv : v.cast<Map<Any, Any>>()) out.emplace_back(kv.first, kv.second);
  }
  return out;
}

/*! \brief An owned Any holding a borrowed object handle. */
inline Any AnyFromObject(TVMFFIObject* obj) {
  TVMFFIAny v;
  v.type_index = obj->type_index;
  v.zero_padding = 0;
  v.v_obj = obj;
  return Any(AnyView::FromRaw(v));
}

}  // namespace extra_detail
}  // namespace ffi
}  // namespace tvm
#endif  // TVM_FFI_SRC_EXTRA_REFLECTION_UTIL_H_
