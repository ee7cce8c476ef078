/*
 * Shared by structural_equal.cc and structural_hash.cc (never installed): the structural kind
 * of an object's type, the def-region rules, object-keyed maps.
 */
#ifndef TVM_FFI_SRC_EXTRA_STRUCTURAL_COMMON_H_
#define TVM_FFI_SRC_EXTRA_STRUCTURAL_COMMON_H_

#include <tvm/ffi/container/map_base.h>
#include <tvm/ffi/container/tensor.h>

#include <functional>

#include "reflection_util.h"

namespace tvm {
namespace ffi {
namespace extra_detail {

/*! \brief Nesting depth beyond which the structural walks raise ValueError (as Recursive*). */
constexpr int kStructuralMaxDepth = 1000;

/*! \brief Hash/equality of ObjectRef by address, for the binding and memo tables. */
struct RefPtrHash {
  size_t operator()(const ObjectRef& r) const { return std::hash<const Object*>()(r.get()); }
};
struct RefPtrEqual {
  bool operator()(const ObjectRef& a, const ObjectRef& b) const { return a.same_as(b); }
};

/*! \brief The object a value holds, as a reference. */
inline ObjectRef RefOf(const Any& v) { return v.cast<ObjectRef>(); }

/*!
 * \brief The structural kind of an object's type: TypeError when the type has no metadata or
 * declares none (Unsupported).
 */
inline TVMFFISEqHashKind StructuralKindOrThrow(int32_t ti, const char* what) {
  const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(ti);
  if (info == nullptr || info->metadata == nullptr) {
    TVM_FFI_THROW(TypeError) << what << ": type `" << TypeKey(ti)
                             << "` has no reflection metadata, so it has no structural kind";
  }
  if (info->metadata->structural_eq_hash_kind == kTVMFFISEqHashKindUnsupported) {
    TVM_FFI_THROW(TypeError) << what << ": type `" << TypeKey(ti)
                             << "` does not support structural equality/hash "
                                "(its _type_s_eq_hash_kind is Unsupported)";
  }
  return info->metadata->structural_eq_hash_kind;
}

/*! \brief The def-region kind a field with these flags opens inside `current`. */
inline TVMFFIDefRegionKind FieldRegion(int64_t flags, TVMFFIDefRegionKind current, bool* opens) {
  constexpr int64_t kDefAny =
      kTVMFFIFieldFlagBitMaskSEqHashDefPattern | kTVMFFIFieldFlagBitMaskSEqHashDefSimple;
  *opens = (flags & kDefAny) != 0;
  if (!*opens) return current;
  if (current == kTVMFFIDefRegionKindPattern) return kTVMFFIDefRegionKindPattern;  // sticky
  return (flags & kTVMFFIFieldFlagBitMaskSEqHashDefSimple) ? kTVMFFIDefRegionKindSimple
                                                           : kTVMFFIDefRegionKindPattern;
}

/*! \brief The region a hook's callback asks for (None = stay) inside `current`. */
inline TVMFFIDefRegionKind CallbackRegion(int requested, TVMFFIDefRegionKind current) {
  if (current == kTVMFFIDefRegionKindPattern) return kTVMFFIDefRegionKindPattern;
  if (requested == kTVMFFIDefRegionKindNone) return current;
  return static_cast<TVMFFIDefRegionKind>(requested);
}

/*! \brief The map object of a Map or Dict value. */
inline const MapBaseObj* MapObjOf(const Any& v) {
  return static_cast<const MapBaseObj*>(
      details::ObjectUnsafe::FromHandle(const_cast<TVMFFIObject*>(ObjectOf(v))));
}

/*! \brief The DLTensor of a Tensor value. */
inline const DLTensor* TensorOf(const Any& v) {
  return static_cast<const DLTensor*>(static_cast<const TensorObj*>(
      details::ObjectUnsafe::FromHandle(const_cast<TVMFFIObject*>(ObjectOf(v)))));
}

/*! \brief Bytes of a compact tensor's data; checks CPU and contiguity (InternalError otherwise). */
inline size_t TensorDataBytes(const DLTensor* t, const char* what) {
  if (t->device.device_type != kDLCPU) {
    TVM_FFI_THROW(InternalError) << what << ": can only compare/hash the content of CPU tensors";
  }
  if (!details::IsContiguousLayout(*t)) {
    TVM_FFI_THROW(InternalError) << what << ": can only compare/hash contiguous tensors";
  }
  return details::DataBytes(t->dtype, details::ShapeNumel(t->shape, t->ndim));
}

/*! \brief The int64 words of a BigInt value. */
inline std::string_view BigIntWords(const Any& v) {
  TVMFFIByteArray b = TVMFFIBigIntGetContentByteArray(v.raw());
  return std::string_view(b.data, b.size);
}

}  // namespace extra_detail
}  // namespace ffi
}  // namespace tvm
#endif  // TVM_FFI_SRC_EXTRA_STRUCTURAL_COMMON_H_
