/*
 * Integer arithmetic analysis: constant integer bounds, modular sets, and the simplifier.
 * Variable ranges come from a VarBounds table (loop variables, Analyzer.bind from Python).
 */
#ifndef TVM_ARITH_ANALYZER_H_
#define TVM_ARITH_ANALYZER_H_

#include <tvm/tir/ir.h>

#include <cstdint>
#include <limits>
#include <unordered_map>

namespace tvm {
namespace arith {

constexpr int64_t kPosInf = std::numeric_limits<int64_t>::max();
constexpr int64_t kNegInf = std::numeric_limits<int64_t>::min();

/*! \brief value in [min_value, max_value]; kNegInf/kPosInf mean unbounded. */
struct ConstIntBound {
  int64_t min_value;
  int64_t max_value;
};

/*! \brief value = coeff * k + base for some integer k (coeff 0: the constant base). */
struct ModularSet {
  int64_t coeff;
  int64_t base;
};

using VarBounds = std::unordered_map<const Object*, ConstIntBound>;

ConstIntBound EvalConstIntBound(const PrimExpr& e, const VarBounds& vars);
ModularSet EvalModularSet(const PrimExpr& e, const VarBounds& vars);
/*! \brief Constant folding, linear canonical form, bound-based rewrites. */
PrimExpr Simplify(const PrimExpr& e, const VarBounds& vars);
/*! \brief Simplify every expression of a statement (loop variables get their ranges). */
Stmt SimplifyStmt(const Stmt& s, const VarBounds& vars);

}  // namespace arith
}  // namespace tvm
#endif  // TVM_ARITH_ANALYZER_H_
