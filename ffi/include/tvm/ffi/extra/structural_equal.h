/*
 * Structural equality (apache-tvm-ffi 0.1.16's extra/structural_equal.h: same names, signatures
 * and behaviour). Unlike RecursiveEq it follows the structural kind each type registers
 * (TVMFFITypeMetadata::structural_eq_hash_kind) and binds free variables:
 *
 *   TreeNode        compared field by field
 *   ConstTreeNode   the same object is equal without looking further; else field by field
 *   DAGNode         field by field, then lhs and rhs are bound to each other: a node met
 *                   again must map to the same partner (sharing must match)
 *   FreeVar         equal when already bound to each other, when the same object, or (fields
 *                   equal) inside a definition region, where the pair gets bound
 *   UniqueInstance  equal only when the same object
 *   Unsupported     TypeError (as for a type without metadata)
 *
 * Field flags: SEqHashIgnore skips a field; SEqHashDefPattern / SEqHashDefSimple (the
 * TVMFFIDefRegionKind Pattern / Simple) make a field a definition region. `map_free_vars`
 * starts the whole comparison in a Pattern region. A type attribute `__s_equal__`
 * (Function `bool(const Object* lhs, const Object* rhs, Function eq_cb)`, eq_cb taking
 * `(AnyView lhs, AnyView rhs, int def_region_kind, AnyView field_name)`) replaces the field walk.
 * Values: strings/bytes by content (small and heap forms alike), floats bit-equal except that
 * every NaN equals every NaN, Array/List element-wise, Map/Dict by key (object keys through the
 * free-variable binding), Shape, Tensor by shape, dtype and (unless skip_tensor_content, CPU
 * contiguous tensors only) bytes. Different type indices are unequal.
 */
#ifndef TVM_FFI_EXTRA_STRUCTURAL_EQUAL_H_
#define TVM_FFI_EXTRA_STRUCTURAL_EQUAL_H_

#include <tvm/ffi/any.h>
#include <tvm/ffi/extra/base.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/optional.h>
#include <tvm/ffi/reflection/access_path.h>

namespace tvm {
namespace ffi {

class StructuralEqual {
 public:
  /*! \brief Whether lhs and rhs are structurally equal. */
  TVM_FFI_EXTRA_CXX_API static bool Equal(const Any& lhs, const Any& rhs,
                                          bool map_free_vars = false,
                                          bool skip_tensor_content = false);
  /*!
   * \brief The paths (lhs side, rhs side) to the first difference, or nothing when equal.
   * A missing element shows as an *ItemMissing / AttrMissing last step on the side that lacks it.
   */
  TVM_FFI_EXTRA_CXX_API static Optional<reflection::AccessPathPair> GetFirstMismatch(
      const Any& lhs, const Any& rhs, bool map_free_vars = false, bool skip_tensor_content = false);

  bool operator()(const Any& lhs, const Any& rhs) const { return Equal(lhs, rhs, false, false); }
};

}  // namespace ffi
}  // namespace tvm
#endif  // TVM_FFI_EXTRA_STRUCTURAL_EQUAL_H_
