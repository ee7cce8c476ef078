/*
 * Small expression helpers shared by passes and schedules (analysis.h).
 */
#include "analysis.h"

#include <tvm/arith/analyzer.h>

namespace tvm {
namespace tir {

PrimExpr Simp(const PrimExpr& e) { return arith::Simplify(e, {}); }
PrimExpr Add(PrimExpr a, PrimExpr b) { return MakeBinary("tir.Add", std::move(a), std::move(b)); }
PrimExpr Mul(PrimExpr a, PrimExpr b) { return MakeBinary("tir.Mul", std::move(a), std::move(b)); }

bool IsConstTrue(const PrimExpr& e) {
  const int64_t* v = AsConstInt(e);
  return v != nullptr && *v != 0;
}

PrimExpr AndAll(const std::vector<PrimExpr>& conds) {
  PrimExpr out;
  for (const PrimExpr& c : conds) {
    if (IsConstTrue(c)) continue;
    out = out.defined() ? MakeBinary("tir.And", out, c) : c;
  }
  return out.defined() ? out : IntImm(Bool(), 1);
}

void Conjuncts(const PrimExpr& e, std::vector<PrimExpr>* out) {
  if (auto* n = e.as<AndNode>()) {
    Conjuncts(n->a, out);
    Conjuncts(n->b, out);
  } else {
    out->push_back(e);
  }
}

}  // namespace tir
}  // namespace tvm
