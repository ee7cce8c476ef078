/*
 * Structural hash (apache-tvm-ffi 0.1.16's extra/structural_hash.h), consistent with
 * StructuralEqual: equal values hash equal, and the number is the reference library's (the
 * same StableHashCombine recipe over type indices, payloads and the shared type table's
 * `type_key_hash`). Free variables hash by address outside a definition region and by their
 * order of appearance inside one (`map_free_vars` starts in one); DAG nodes also mix in their
 * order of first appearance; Map/Dict entries are combined in key-hash order (entries whose
 * object key has not been hashed before are left out, as in the reference). A type attribute
 * `__s_hash__` (Function `int64_t(const Object*, int64_t init, Function hash_cb)`, hash_cb taking
 * `(AnyView value, int64_t init, int def_region_kind)`) replaces the field walk.
 */
#ifndef TVM_FFI_EXTRA_STRUCTURAL_HASH_H_
#define TVM_FFI_EXTRA_STRUCTURAL_HASH_H_

#include <tvm/ffi/any.h>
#include <tvm/ffi/extra/base.h>
#include <tvm/ffi/function.h>

#include <cstdint>

namespace tvm {
namespace ffi {

class StructuralHash {
 public:
  /*! \brief The structural hash of value. */
  TVM_FFI_EXTRA_CXX_API static uint64_t Hash(const Any& value, bool map_free_vars = false,
                                             bool skip_tensor_content = false);
  uint64_t operator()(const Any& value) const { return Hash(value); }
};

}  // namespace ffi
}  // namespace tvm
#endif  // TVM_FFI_EXTRA_STRUCTURAL_HASH_H_
