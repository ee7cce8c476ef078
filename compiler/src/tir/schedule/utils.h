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

#include "../analysis/analysis.h"

namespace tvm {
namespace tir {

#define TVM_SCHEDULE_ERROR(prim) TVM_FFI_THROW(ScheduleError) << prim << ": "

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

/*! \brief `root` with the statement `target` replaced (a null replacement removes it, and
 * then any loop or sequence left empty). */
Stmt ReplaceStmt(const Stmt& root, const Object* target, const Stmt& replacement);
PrimFunc Replace(const PrimFunc& f, const Object* target, const Stmt& replacement);

/*! \brief A block name not used in `f`: `base`, else `base_1`, `base_2`... */
std::string FreshBlockName(const PrimFunc& f, const std::string& base);

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
