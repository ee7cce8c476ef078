/*
 * Value operations driven by reflection (the field records every type registers through the C
 * ABI): deep copy, repr, recursive hash and comparison. Containers (Array, List, Map, Dict) are
 * walked; reflected objects are walked field by field (fields flagged ReprOff / CompareOff /
 * HashOff are skipped by the matching operation); type attributes `__ffi_repr__`,
 * `__ffi_hash__`, `__ffi_eq__`, `__ffi_compare__` and `__ffi_shallow_copy__` customise a type.
 * Names, signatures and behaviour are apache-tvm-ffi's (extra/dataclass.h there).
 */
#ifndef TVM_FFI_EXTRA_DATACLASS_H_
#define TVM_FFI_EXTRA_DATACLASS_H_

#include <tvm/ffi/any.h>
#include <tvm/ffi/extra/base.h>
#include <tvm/ffi/string.h>

#include <cstdint>

namespace tvm {
namespace ffi {

/*!
 * \brief Deep copy: containers and reflected objects reachable from `value` are copied (shared
 * references and cycles are preserved in the copy); strings, bytes, shapes and POD values are
 * returned as they are. An object type without `__ffi_shallow_copy__` raises.
 */
TVM_FFI_EXTRA_CXX_API Any DeepCopy(const Any& value);

/*!
 * \brief Human-readable text: `None`, `True`, `1`, `2.5`, `"str"`, `b"bytes"`, `(1, 2)` for
 * Array, `[1, 2]` for List, `{"k": v}` for Map/Dict, `Shape(1, 2)`, `float32[2, 3]@cpu:0` for
 * tensors, `type.key(field=value, ...)` for reflected objects; an object met again while it is
 * being printed shows as `...`. TVM_FFI_REPR_WITH_ADDR=1 adds addresses.
 */
TVM_FFI_EXTRA_CXX_API String ReprPrint(const Any& value);

/*! \brief Hash by value, consistent with RecursiveEq (a == b implies equal hashes). */
TVM_FFI_EXTRA_CXX_API int64_t RecursiveHash(const Any& value);

/*! \brief Equality by value: containers element-wise, objects field by field. */
TVM_FFI_EXTRA_CXX_API bool RecursiveEq(const Any& lhs, const Any& rhs);
/*!
 * \brief Orderings by value (lexicographic over sequences and fields). TypeError for values
 * that have no order (different types, maps that differ, NaN).
 */
TVM_FFI_EXTRA_CXX_API bool RecursiveLt(const Any& lhs, const Any& rhs);
TVM_FFI_EXTRA_CXX_API bool RecursiveLe(const Any& lhs, const Any& rhs);
TVM_FFI_EXTRA_CXX_API bool RecursiveGt(const Any& lhs, const Any& rhs);
TVM_FFI_EXTRA_CXX_API bool RecursiveGe(const Any& lhs, const Any& rhs);

}  // namespace ffi
}  // namespace tvm
#endif  // TVM_FFI_EXTRA_DATACLASS_H_
