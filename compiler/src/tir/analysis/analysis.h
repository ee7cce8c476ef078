/*
 * TIR helpers shared across layers: the passes (src/tir/transforms*), the schedule primitives
 * (src/tir/schedule), TE's create_prim_func and Relax's TIR passes (fuse_tir, op_pattern).
 * Written once here so that none of them reaches into another's internals. Internal to
 * libtvm_compiler; every function is pure (the IR is immutable).
 *
 *   walk.cc           statement walks: blocks, variable uses, buffer accesses
 *   rewrite.cc        substitution of variables and buffers
 *   expr_utils.cc     small expression builders and predicates
 *   access_region.cc  blocks' read/write regions and interval bounds of index expressions
 */
#ifndef TVM_COMPILER_TIR_ANALYSIS_ANALYSIS_H_
#define TVM_COMPILER_TIR_ANALYSIS_ANALYSIS_H_

#include <tvm/arith/analyzer.h>
#include <tvm/ffi/error.h>
#include <tvm/tir/functor.h>

#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

namespace tvm {
namespace tir {

/*! \brief Variable (by object) -> its replacement. */
using VarMap = std::unordered_map<const Object*, PrimExpr>;

// ---- walks (walk.cc) ----

/*!
 * \brief Pre-order walk of the statements under `s` (into blocks' init and body), keeping in
 * `stack` the path from `s` to the statement visited; `visit` returns true to stop, and
 * then the stack is left at the statement it stopped on. Returns whether it stopped.
 */
bool WalkPath(const Stmt& s, std::vector<Stmt>* stack, const std::function<bool(const Stmt&)>& visit);
/*! \brief Every BlockRealize under `s` (pre-order), not descending into them. */
std::vector<const BlockRealizeNode*> ChildBlocks(const Stmt& s);
/*! \brief Every BlockRealize under `s`, at any depth, pre-order. */
std::vector<const BlockRealizeNode*> AllBlocks(const Stmt& s);
bool UsesVar(const Stmt& s, const Object* v);
bool UsesVar(const PrimExpr& e, const Object* v);
/*! \brief Buffer loads/stores under `s` (block bodies included, with their iter vars). */
void CollectAccesses(const Stmt& s, const Object* buffer, bool loads, bool stores,
                     std::vector<Array<PrimExpr>>* out);

// ---- rewrites (rewrite.cc) ----

Stmt Substitute(const Stmt& s, VarMap map);
PrimExpr Substitute(const PrimExpr& e, VarMap map);
/*! \brief Replaces buffer `from` by `to` in every load, store and region (same indices). */
Stmt ReplaceBuffer(const Stmt& s, const Buffer& from, const Buffer& to);

// ---- expressions (expr_utils.cc) ----

/*! \brief arith::Simplify with no variable bounds. */
PrimExpr Simp(const PrimExpr& e);
PrimExpr Add(PrimExpr a, PrimExpr b);
PrimExpr Mul(PrimExpr a, PrimExpr b);
/*! \brief The conjunction of `conds` without the constant-true ones (true when none is left). */
PrimExpr AndAll(const std::vector<PrimExpr>& conds);
bool IsConstTrue(const PrimExpr& e);
/*! \brief Appends the operands of the nested `&&` in `e` to `out`, left to right. */
void Conjuncts(const PrimExpr& e, std::vector<PrimExpr>* out);

// ---- access regions and intervals (access_region.cc) ----

/*!
 * \brief The reads/writes regions of a block body, TVM's way: per buffer, the hull of its
 * accesses (a point when all accesses agree; constant offsets widen it; else the whole
 * buffer). A buffer that is written is not listed in reads.
 */
void ComputeAccessRegions(const Stmt& body, const Stmt& init, Array<BufferRegion>* reads,
                          Array<BufferRegion>* writes);
/*! \brief The block with recomputed reads/writes. */
Block WithAccessRegions(const Block& b);
/*! \brief Recomputes the regions of every block in the function (after buffer rewrites). */
PrimFunc RefreshAccessRegions(const PrimFunc& f);

/*! \brief [min, max] (inclusive) of an integer expression when the `relax` vars range over
 * their Ranges; other vars stay symbolic. `ok` false when it cannot bound the expression. */
struct Interval {
  PrimExpr min, max;
  bool ok{true};
};
Interval EvalInterval(const PrimExpr& e, const std::unordered_map<const Object*, Range>& relax);
/*!
 * \brief Grows `hull` to cover `iv` (an undefined hull becomes `iv`). Bounds a constant distance
 * apart (a stencil's reads) keep the extreme one; others become min/max expressions, or, with
 * `symbolic` false, make it return false (the caller then takes the whole dimension).
 */
bool UnionInto(Interval* hull, const Interval& iv, bool symbolic = true);

}  // namespace tir
}  // namespace tvm
#endif  // TVM_COMPILER_TIR_ANALYSIS_ANALYSIS_H_
