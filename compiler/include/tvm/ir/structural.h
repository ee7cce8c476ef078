/*
 * Structural equality and hashing of IR (see src/ir/structural.cc).
 */
#ifndef TVM_IR_STRUCTURAL_H_
#define TVM_IR_STRUCTURAL_H_

#include <tvm/ffi/any.h>

#include <cstdint>

namespace tvm {

/*! \brief Equality up to variable renaming of definitions (free vars by identity unless mapped). */
bool StructuralEqual(const ffi::Any& a, const ffi::Any& b, bool map_free_vars = false);
/*! \brief A hash consistent with StructuralEqual. */
int64_t StructuralHash(const ffi::Any& a, bool map_free_vars = false);
/*! \brief The printer's text of any IR value. */
std::string AsText(const ffi::Any& node);

}  // namespace tvm
#endif  // TVM_IR_STRUCTURAL_H_
