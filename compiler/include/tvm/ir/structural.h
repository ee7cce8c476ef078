/*
 * Structural equality and hashing of IR (see src/ir/structural.cc).
 */
#ifndef TVM_IR_STRUCTURAL_H_
#define TVM_IR_STRUCTURAL_H_

#include <tvm/ffi/any.h>

#include <cstdint>
#include <string>

namespace tvm {

/*! \brief Equality up to variable renaming of definitions (free vars by identity unless mapped). */
bool StructuralEqual(const ffi::Any& a, const ffi::Any& b, bool map_free_vars = false);
/*! \brief A hash consistent with StructuralEqual. */
int64_t StructuralHash(const ffi::Any& a, bool map_free_vars = false);
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
