/*
 * HoistIfThenElse: a guard that does not depend on a loop moves out of it.
 *
 *   for x in range(n):            if c(y):
 *     if c(y) and d(x):     ->      for x in range(n):
 *       body                          if d(x): body
 *
 * Conditions are split into conjuncts; those that use neither the loop variable nor a
 * buffer the loop stores to are hoisted (the loop runs no iteration when they are false, so
 * the behaviour is the same). A conjunct reading a buffer written in the loop is not
 * invariant, loop variable or not: `for t: if cnt[0] < lim: cnt[0] += 1` must test the count
 * on every iteration (hoisted, it ran the body every time). Runs bottom-up, so a guard climbs as far as it is invariant:
 * the predicate of a block moved by compute_at leaves the innermost loop, which can then be
 * vectorized. Only guards without an else branch move.
 */
#include <tvm/ffi/error.h>
#include <tvm/tir/functor.h>

#include <unordered_set>

#include "../../support/registry.h"
#include "../analysis/analysis.h"

namespace tvm {
namespace tir {
namespace {

PrimExpr AndOf(const std::vector<PrimExpr>& v) {
  PrimExpr out;
  for (const PrimExpr& e : v) out = out.defined() ? MakeBinary("tir.And", out, e) : e;
  return out;
}

// The data variables of the buffers `s` stores to, and (with `loads`) of those `e` reads.
class BufferVars : public ExprMutator {
 public:
  explicit BufferVars(bool loads) : loads_(loads) {}
  std::unordered_set<const Object*> vars;
  PrimExpr VisitExpr(const PrimExpr& e) override {
    if (auto* n = e.as<BufferLoadNode>(); loads_ && n) vars.insert(n->buffer->data.get());
    return MutateExprChildren(e);
  }
  Stmt VisitStmt(const Stmt& st) override {
    if (auto* n = st.as<BufferStoreNode>(); !loads_ && n) vars.insert(n->buffer->data.get());
    return MutateStmtChildren(st);
  }

 private:
  bool loads_;
};

bool ReadsAny(const PrimExpr& c, const std::unordered_set<const Object*>& written) {
  BufferVars reads(true);
  reads.VisitExpr(c);
  for (const Object* v : reads.vars) {
    if (written.count(v)) return true;
  }
  return false;
}

Stmt Hoist(const Stmt& x) {
  auto* loop = x.as<ForNode>();
  if (loop == nullptr) return x;
  auto* guard = loop->body.as<IfThenElseNode>();
  if (guard == nullptr || guard->else_case.defined()) return x;
  std::vector<PrimExpr> conds, hoisted, kept;
  Conjuncts(guard->condition, &conds);
  BufferVars stores(false);
  stores.VisitStmt(guard->then_case);
  for (const PrimExpr& c : conds) {
    bool variant = UsesVar(c, loop->loop_var.get()) || ReadsAny(c, stores.vars);
    (variant ? kept : hoisted).push_back(c);
  }
  if (hoisted.empty()) return x;
  Stmt body = kept.empty() ? guard->then_case : MakeIfThenElse(AndOf(kept), guard->then_case, Stmt());
  return MakeIfThenElse(AndOf(hoisted), WithBody(loop, body), Stmt());
}

}  // namespace

PrimFunc HoistIfThenElse(const PrimFunc& f) {
  return WithBody(f, PostOrderRewrite(f->body, Hoist));
}

TVM_FFI_STATIC_INIT_BLOCK() {
  RegisterCompilerGlobal("tir.transform.HoistIfThenElse", [](PrimFunc f) { return HoistIfThenElse(f); });
}

}  // namespace tir
}  // namespace tvm
