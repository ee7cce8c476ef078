/*
 * ExprMutator: rebuilds TIR bottom-up. Subclasses override VisitExpr/VisitStmt and call the
 * *Children helpers to recurse; a node whose children did not change is returned as is.
 */
#ifndef TVM_TIR_FUNCTOR_H_
#define TVM_TIR_FUNCTOR_H_

#include <tvm/tir/ir.h>

#include <functional>

namespace tvm {

class ExprMutator {
 public:
  virtual ~ExprMutator() = default;
  virtual PrimExpr VisitExpr(const PrimExpr& e) { return MutateExprChildren(e); }
  virtual Stmt VisitStmt(const Stmt& s) { return MutateStmtChildren(s); }

 protected:
  /*! \brief The same node with VisitExpr applied to every sub-expression. */
  PrimExpr MutateExprChildren(const PrimExpr& e);
  /*! \brief The same statement with VisitExpr/VisitStmt applied to its children. */
  Stmt MutateStmtChildren(const Stmt& s);
  Array<PrimExpr> VisitArray(const Array<PrimExpr>& arr, bool* changed);
  /*! \brief VisitExpr on every range bound of `regions` (the buffers are kept). */
  Array<BufferRegion> VisitRegions(const Array<BufferRegion>& regions, bool* changed);
};

/*!
 * \brief `s` rebuilt bottom-up: every statement, after its children, goes through `f` (which
 * returns it or its replacement). Expressions are not visited. The shape of most passes.
 */
Stmt PostOrderRewrite(const Stmt& s, const std::function<Stmt(const Stmt&)>& f);

}  // namespace tvm
#endif  // TVM_TIR_FUNCTOR_H_
