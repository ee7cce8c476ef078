/*
 * HoistIfThenElse: a guard that does not depend on a loop moves out of it.
 *
 *   for x in range(n):            if c(y):
 *     if c(y) and d(x):     ->      for x in range(n):
 *       body                          if d(x): body
 *
 * Conditions are split into conjuncts; those that use neither the loop variable nor a
 * variable bound inside the loop are hoisted (the loop runs no iteration when they are false,
 * so the behaviour is the same). Runs bottom-up, so a guard climbs as far as it is invariant:
 * the predicate of a block moved by compute_at leaves the innermost loop, which can then be
 * vectorized. Only guards without an else branch move.
 */
#include <tvm/ffi/error.h>
#include <tvm/tir/functor.h>

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

Stmt Hoist(const Stmt& x) {
  auto* loop = x.as<ForNode>();
  if (loop == nullptr) return x;
  auto* guard = loop->body.as<IfThenElseNode>();
  if (guard == nullptr || guard->else_case.defined()) return x;
  std::vector<PrimExpr> conds, hoisted, kept;
  Conjuncts(guard->condition, &conds);
  for (const PrimExpr& c : conds) (UsesVar(c, loop->loop_var.get()) ? kept : hoisted).push_back(c);
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
