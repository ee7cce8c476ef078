/*
 * Structural equality and hashing of IR (see src/ir/structural.cc).
 */
#ifndef TVM_IR_STRUCTURAL_H_
#define TVM_IR_STRUCTURAL_H_

#include <tvm/ffi/any.h>

#include <cstdint>
#include <string>
#include <vector>

namespace tvm {

/*! \brief Equality up to variable renaming of definitions (free vars by identity unless mapped). */
bool StructuralEqual(const ffi::Any& a, const ffi::Any& b, bool map_free_vars = false);
/*! \brief A hash consistent with StructuralEqual. */
int64_t StructuralHash(const ffi::Any& a, bool map_free_vars = false);
class IntImmNode;
/*! \brief An integer constant of one side of a comparison and the values on both sides. */
struct IntDiff {
  const IntImmNode* node;  // in the first argument
  int64_t first, second;
};
/*!
 * \brief StructuralEqual (free vars by identity) with integer constants equal whatever their
 * values (not their dtypes); each pair that differs is appended to `diffs`, in visiting order.
 */
bool StructuralEqualModuloInts(const ffi::Any& a, const ffi::Any& b, std::vector<IntDiff>* diffs);
/*! \brief A hash consistent with StructuralEqualModuloInts (constants' values left out). */
int64_t StructuralHashModuloInts(const ffi::Any& a);
/*! \brief The printer's text of any IR value (dispatch: tvm/ir/printer.h). */
std::string AsText(const ffi::Any& node);

namespace ir {
/*!
 * \brief Declares the nodes of `type_index` (a PrimExprNode type, e.g. tir.Var) variables:
 * structural equality compares them by binding and dtype, never by their fields. Called by
 * the dialect that defines the type, at static-init time.
 */
void RegisterVarType(int32_t type_index);
}  // namespace ir

}  // namespace tvm
#endif  // TVM_IR_STRUCTURAL_H_
