/*
 * Shared machinery of the schedule primitives (tir.schedule.*).
 *
 * The IR is immutable, so a schedule is a sequence of PrimFuncs: every primitive takes the
 * current function and returns a new one. Handles stay valid across primitives because they
 * are names, not pointers: a block is named by its `name_hint` (unique in a function), a loop
 * by its loop Var (a unique object; primitives keep the Vars of loops they do not replace).
 * Primitives check their preconditions first and raise ScheduleError naming the block or loop
 * and the violated condition; nothing is changed when they raise.
 */
#ifndef TVM_COMPILER_TIR_SCHEDULE_UTILS_H_
#define TVM_COMPILER_TIR_SCHEDULE_UTILS_H_

#include <tvm/arith/analyzer.h>
#include <tvm/ffi/error.h>
#include <tvm/tir/functor.h>

#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

namespace tvm {
namespace tir {

#define TVM_SCHEDULE_ERROR(prim) TVM_FFI_THROW(ScheduleError) << prim << ": "

using VarMap = std::unordered_map<const Object*, PrimExpr>;

/*! \brief A statement and the chain of statements above it (root first, itself last). */
struct StmtPath {
  std::vector<Stmt> stack;
  const Stmt& leaf() const { return stack.back(); }
  /*! \brief The loops on the path, outermost first (stopping at the enclosing block). */
  std::vector<const ForNode*> Loops() const;
  /*! \brief The innermost block strictly above the leaf (the root block at least). */
  const BlockNode* ParentBlock() const;
};

/*! \brief The BlockRealize of block `name`; ScheduleError if there is none. */
StmtPath FindBlock(const PrimFunc& f, const std::string& name, const char* prim);
/*! \brief The For of `loop`; ScheduleError if there is none. */
StmtPath FindLoop(const PrimFunc& f, const Var& loop, const char* prim);
/*! \brief Every BlockRealize under `s` (pre-order), not descending into them. */
std::vector<const BlockRealizeNode*> ChildBlocks(const Stmt& s);
/*! \brief Every BlockRealize under `s`, at any depth, pre-order. */
std::vector<const BlockRealizeNode*> AllBlocks(const Stmt& s);

/*! \brief `root` with the statement `target` replaced (a null replacement removes it, and
 * then any loop or sequence left empty). */
Stmt ReplaceStmt(const Stmt& root, const Object* target, const Stmt& replacement);
PrimFunc WithBody(const PrimFunc& f, Stmt body);
PrimFunc Replace(const PrimFunc& f, const Object* target, const Stmt& replacement);

Stmt Substitute(const Stmt& s, VarMap map);
PrimExpr Substitute(const PrimExpr& e, VarMap map);
/*! \brief Replaces buffer `from` by `to` in every load, store and region (same indices). */
Stmt ReplaceBuffer(const Stmt& s, const Buffer& from, const Buffer& to);
bool UsesVar(const Stmt& s, const Object* v);
bool UsesVar(const PrimExpr& e, const Object* v);
PrimExpr Simp(const PrimExpr& e);
PrimExpr Add(PrimExpr a, PrimExpr b);
PrimExpr Mul(PrimExpr a, PrimExpr b);
PrimExpr AndAll(const std::vector<PrimExpr>& conds);
bool IsConstTrue(const PrimExpr& e);

/*! \brief A block name not used in `f`: `base`, else `base_1`, `base_2`... */
std::string FreshBlockName(const PrimFunc& f, const std::string& base);

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

/*! \brief Buffer loads/stores under `s` (block bodies included, with their iter vars). */
void CollectAccesses(const Stmt& s, const Object* buffer, bool loads, bool stores,
                     std::vector<Array<PrimExpr>>* out);

/*! \brief ScheduleError unless `block` is the only block of the function writing `buf`. */
void CheckSingleWriter(const PrimFunc& f, const BlockNode* block, const Buffer& buf, const char* prim);

/*! \brief The buffer named `name` among the function's arguments and allocations. */
Buffer FindBufferByName(const PrimFunc& f, const std::string& name);
/*! \brief Is `b` one of the function's argument buffers? */
bool IsParamBuffer(const PrimFunc& f, const Buffer& b);
/*! \brief Adds `b` to the root block's alloc_buffers. */
PrimFunc AddRootAlloc(const PrimFunc& f, const Buffer& b);
/*! \brief Drops `b` from the alloc_buffers of the block that allocates it (if any). */
PrimFunc RemoveAlloc(const PrimFunc& f, const Buffer& b);

}  // namespace tir
}  // namespace tvm
#endif  // TVM_COMPILER_TIR_SCHEDULE_UTILS_H_
