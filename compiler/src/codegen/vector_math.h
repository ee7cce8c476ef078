/*
 * Vector exp, erf and tanh for float32 lanes, as LLVM IR functions the code generator inlines.
 *
 * Why: libm has no vector entry points, so a vectorized loop calling expf/erff/tanhf runs one
 * scalar call per lane (LLVM scalarizes llvm.exp too without a vector library). GELU's erf was
 * a fifth of a BERT encoder's time that way. These are branch-free polynomials (exp: Cody-Waite
 * range reduction and a degree-7 polynomial; erf: three pieces fitted by
 * tools/fit_vector_math.py; tanh: a small-argument polynomial, else 1 - 2 / (exp(2|x|) + 1)),
 * accurate to a few float32 ulp (exp ~1, erf <= 2.4, tanh ~2), with IEEE specials kept:
 * NaN in, NaN out; exp overflows to +inf and underflows through subnormals to 0; erf and
 * tanh reach +-1. Scalar code keeps libm. Internal to libtvm_compiler.
 */
#ifndef TVM_COMPILER_CODEGEN_VECTOR_MATH_H_
#define TVM_COMPILER_CODEGEN_VECTOR_MATH_H_

#include <string>
#include <utility>
#include <vector>

namespace tvm {
namespace codegen {

/*! \brief True when `op` ("exp", "erf", "tanh") has a float32 vector form here. */
bool HasVectorMath(const std::string& op);

/*! \brief The internal function computing `op` on `<lanes x float>` (lanes >= 2). */
std::string VectorMathName(const std::string& op, int lanes);

/*!
 * \brief Every module-level entry the function needs, as (name, text) pairs: the intrinsics it
 * declares, the functions it calls, and its own `define` last. The caller declares each once by
 * name (CodeGenLLVM::Declare), so two kernels of a module share one definition.
 */
std::vector<std::pair<std::string, std::string>> VectorMathDefinitions(const std::string& op, int lanes);

}  // namespace codegen
}  // namespace tvm
#endif  // TVM_COMPILER_CODEGEN_VECTOR_MATH_H_
