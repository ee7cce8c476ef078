/*
 * Integer analysis and simplification.
 *
 *  - EvalConstIntBound: interval arithmetic with saturation (kNegInf/kPosInf are infinities).
 *  - EvalModularSet: value = coeff * k + base.
 *  - Simplify: bottom-up; folds constants (integers wrap at their width, as the generated
 *    code does), puts integer +,-,* into a canonical linear form (sum of coeff * term + c),
 *    splits floordiv/floormod by a constant over that form, and uses bounds to decide
 *    comparisons, min/max and small floordiv/floormod. Like TVM, index arithmetic is assumed
 *    not to overflow. Floats are only folded when both operands are constants.
 */
#include <tvm/arith/analyzer.h>
#include <tvm/ffi/error.h>
#include <tvm/ir/structural.h>
#include <tvm/tir/functor.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "../support/registry.h"

namespace tvm {
namespace arith {
namespace {

using i128 = __int128;

int64_t Sat(i128 v) {
  if (v >= static_cast<i128>(kPosInf)) return kPosInf;
  if (v <= static_cast<i128>(kNegInf)) return kNegInf;
  return static_cast<int64_t>(v);
}

/*! \brief a op b where infinities stay infinite. */
i128 Wide(int64_t v) {
  if (v == kPosInf) return static_cast<i128>(1) << 100;
  if (v == kNegInf) return -(static_cast<i128>(1) << 100);
  return v;
}

ConstIntBound TypeRange(DataType t) {
  if (IsBool(t)) return {0, 1};
  if (IsInt(t)) {
    if (t.bits >= 64) return {kNegInf, kPosInf};
    return {-(int64_t{1} << (t.bits - 1)), (int64_t{1} << (t.bits - 1)) - 1};
  }
  if (IsUInt(t)) {
    if (t.bits >= 63) return {0, kPosInf};
    return {0, (int64_t{1} << t.bits) - 1};
  }
  return {kNegInf, kPosInf};
}

ConstIntBound Intersect(ConstIntBound a, ConstIntBound b) {
  return {std::max(a.min_value, b.min_value), std::min(a.max_value, b.max_value)};
}

int64_t FloorDivI(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

int64_t FloorModI(int64_t a, int64_t b) {
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

ConstIntBound Corners(const ConstIntBound& a, const ConstIntBound& b, i128 (*op)(i128, i128)) {
  i128 v[4] = {op(Wide(a.min_value), Wide(b.min_value)), op(Wide(a.min_value), Wide(b.max_value)),
               op(Wide(a.max_value), Wide(b.min_value)), op(Wide(a.max_value), Wide(b.max_value))};
  i128 lo = *std::min_element(v, v + 4), hi = *std::max_element(v, v + 4);
  return {Sat(lo), Sat(hi)};
}

i128 MulW(i128 a, i128 b) {
  const i128 big = static_cast<i128>(1) << 100;
  if (a == 0 || b == 0) return 0;
  if (a >= big || a <= -big || b >= big || b <= -big) return ((a > 0) == (b > 0)) ? big : -big;
  i128 r = a * b;
  if (r >= big) return big;
  if (r <= -big) return -big;
  return r;
}

ConstIntBound Bound(const PrimExpr& e, const VarBounds& vars) {
  DataType t = e.dtype();
  ConstIntBound full = TypeRange(t);
  if (!(IsIntOrUInt(t) || IsBool(t)) || t.lanes != 1) return {kNegInf, kPosInf};
  if (auto* n = e.as<IntImmNode>()) return {n->value, n->value};
  if (e.as<VarNode>()) {
    auto it = vars.find(e.get());
    return it != vars.end() ? Intersect(it->second, full) : full;
  }
  ConstIntBound r = full;
  if (auto* n = e.as<AddNode>()) {
    ConstIntBound a = Bound(n->a, vars), b = Bound(n->b, vars);
    r = {Sat(Wide(a.min_value) + Wide(b.min_value)), Sat(Wide(a.max_value) + Wide(b.max_value))};
  } else if (auto* n = e.as<SubNode>()) {
    ConstIntBound a = Bound(n->a, vars), b = Bound(n->b, vars);
    r = {Sat(Wide(a.min_value) - Wide(b.max_value)), Sat(Wide(a.max_value) - Wide(b.min_value))};
  } else if (auto* n = e.as<MulNode>()) {
    r = Corners(Bound(n->a, vars), Bound(n->b, vars), MulW);
  } else if (e.as<FloorDivNode>() || e.as<DivNode>()) {
    bool floor = e.as<FloorDivNode>() != nullptr;
    PrimExpr a_e = floor ? e.as<FloorDivNode>()->a : e.as<DivNode>()->a;
    PrimExpr b_e = floor ? e.as<FloorDivNode>()->b : e.as<DivNode>()->b;
    ConstIntBound a = Bound(a_e, vars), b = Bound(b_e, vars);
    if (b.min_value > 0 || b.max_value < 0) {
      auto div = [&](int64_t x, int64_t y) -> i128 {
        if (x == kPosInf || x == kNegInf) return Wide(x) * (y > 0 ? 1 : -1);
        if (y == kPosInf || y == kNegInf) return 0;
        return floor ? FloorDivI(x, y) : x / y;
      };
      i128 v[4] = {div(a.min_value, b.min_value), div(a.min_value, b.max_value),
                   div(a.max_value, b.min_value), div(a.max_value, b.max_value)};
      r = {Sat(*std::min_element(v, v + 4)), Sat(*std::max_element(v, v + 4))};
    }
  } else if (auto* n = e.as<FloorModNode>()) {
    ConstIntBound a = Bound(n->a, vars), b = Bound(n->b, vars);
    if (b.min_value > 0) {
      int64_t m = b.max_value;
      if (a.min_value >= 0 && a.max_value < b.min_value) r = a;
      else r = {0, m == kPosInf ? kPosInf : m - 1};
    }
  } else if (auto* n = e.as<ModNode>()) {
    ConstIntBound a = Bound(n->a, vars), b = Bound(n->b, vars);
    if (b.min_value > 0 && b.max_value != kPosInf) {
      int64_t m = b.max_value - 1;
      if (a.min_value >= 0) r = {0, std::min(m, a.max_value)};
      else r = {std::max(-m, a.min_value), std::min(m, std::max<int64_t>(a.max_value, 0))};
    }
  } else if (auto* n = e.as<MinNode>()) {
    ConstIntBound a = Bound(n->a, vars), b = Bound(n->b, vars);
    r = {std::min(a.min_value, b.min_value), std::min(a.max_value, b.max_value)};
  } else if (auto* n = e.as<MaxNode>()) {
    ConstIntBound a = Bound(n->a, vars), b = Bound(n->b, vars);
    r = {std::max(a.min_value, b.min_value), std::max(a.max_value, b.max_value)};
  } else if (auto* n = e.as<SelectNode>()) {
    ConstIntBound a = Bound(n->true_value, vars), b = Bound(n->false_value, vars);
    r = {std::min(a.min_value, b.min_value), std::max(a.max_value, b.max_value)};
  } else if (auto* n = e.as<CastNode>()) {
    DataType from = n->value.dtype();
    if (IsIntOrUInt(from) || IsBool(from)) {
      ConstIntBound v = Bound(n->value, vars);
      if (v.min_value >= full.min_value && v.max_value <= full.max_value) r = v;
    }
  } else if (auto* n = e.as<LetNode>()) {
    VarBounds inner = vars;
    inner[n->var.get()] = Bound(n->value, vars);
    r = Bound(n->body, inner);
  }
  return Intersect(r, full);
}

int64_t Gcd(int64_t a, int64_t b) {
  a = a < 0 ? -a : a;
  b = b < 0 ? -b : b;
  return std::gcd(a, b);
}

ModularSet Norm(int64_t coeff, int64_t base) {
  coeff = coeff < 0 ? -coeff : coeff;
  if (coeff != 0) base = FloorModI(base, coeff);
  return {coeff, base};
}

ModularSet Modular(const PrimExpr& e, const VarBounds& vars) {
  DataType t = e.dtype();
  if (!IsIntOrUInt(t) || t.lanes != 1) return {1, 0};
  if (auto* n = e.as<IntImmNode>()) return {0, n->value};
  if (auto* n = e.as<AddNode>()) {
    ModularSet a = Modular(n->a, vars), b = Modular(n->b, vars);
    return Norm(Gcd(a.coeff, b.coeff), a.base + b.base);
  }
  if (auto* n = e.as<SubNode>()) {
    ModularSet a = Modular(n->a, vars), b = Modular(n->b, vars);
    return Norm(Gcd(a.coeff, b.coeff), a.base - b.base);
  }
  if (auto* n = e.as<MulNode>()) {
    ModularSet a = Modular(n->a, vars), b = Modular(n->b, vars);
    int64_t c = Gcd(Gcd(a.coeff * b.coeff, a.coeff * b.base), b.coeff * a.base);
    return Norm(c, a.base * b.base);
  }
  if (auto* n = e.as<FloorDivNode>()) {
    ModularSet a = Modular(n->a, vars);
    if (const int64_t* c = AsConstInt(n->b); c && *c > 0) {
      if (a.coeff == 0) return {0, FloorDivI(a.base, *c)};
      if (a.coeff % *c == 0) return Norm(a.coeff / *c, FloorDivI(a.base, *c));
    }
    return {1, 0};
  }
  if (auto* n = e.as<FloorModNode>()) {
    ModularSet a = Modular(n->a, vars);
    if (const int64_t* c = AsConstInt(n->b); c && *c > 0) {
      int64_t g = Gcd(a.coeff, *c);
      if (g == 0) return {0, FloorModI(a.base, *c)};
      return Norm(g, a.base);
    }
    return {1, 0};
  }
  auto Union = [](ModularSet a, ModularSet b) {
    return Norm(Gcd(Gcd(a.coeff, b.coeff), a.base - b.base), a.base);
  };
  if (auto* n = e.as<MinNode>()) return Union(Modular(n->a, vars), Modular(n->b, vars));
  if (auto* n = e.as<MaxNode>()) return Union(Modular(n->a, vars), Modular(n->b, vars));
  if (auto* n = e.as<SelectNode>()) return Union(Modular(n->true_value, vars), Modular(n->false_value, vars));
  return {1, 0};
}

// ------------------------------------------------------------------------------------------
// Simplifier
// ------------------------------------------------------------------------------------------

/*! \brief Wraps v to a `bits`-wide signed (or unsigned) integer. */
int64_t Wrap(i128 v, DataType t) {
  if (IsBool(t)) return v != 0;
  int bits = t.bits;
  if (bits >= 64) return static_cast<int64_t>(static_cast<uint64_t>(v));
  uint64_t mask = (uint64_t{1} << bits) - 1;
  uint64_t u = static_cast<uint64_t>(v) & mask;
  if (IsUInt(t)) return static_cast<int64_t>(u);
  if (u >> (bits - 1)) return static_cast<int64_t>(u | ~mask);
  return static_cast<int64_t>(u);
}

struct Linear {
  std::vector<std::pair<PrimExpr, int64_t>> terms;
  int64_t constant{0};
};

class Simplifier : public ExprMutator {
 public:
  explicit Simplifier(VarBounds vars) : vars_(std::move(vars)) {}

  PrimExpr VisitExpr(const PrimExpr& e) override {
    PrimExpr x = MutateExprChildren(e);
    // Rewrites may expose more: iterate a few times until a fixed point.
    for (int i = 0; i < 4; ++i) {
      PrimExpr y = Rewrite(x);
      if (y.same_as(x)) break;
      x = y;
    }
    return x;
  }

  Stmt VisitStmt(const Stmt& s) override {
    if (auto* n = s.as<ForNode>()) {
      PrimExpr mn = VisitExpr(n->min), ext = VisitExpr(n->extent);
      ConstIntBound bm = Bound(mn, vars_), be = Bound(ext, vars_);
      if (bm.min_value != kNegInf && be.max_value != kPosInf && bm.max_value != kPosInf) {
        vars_[n->loop_var.get()] = {bm.min_value, Sat(Wide(bm.max_value) + Wide(be.max_value) - 1)};
      }
      Stmt body = VisitStmt(n->body);
      vars_.erase(n->loop_var.get());
      if (const int64_t* c = AsConstInt(ext); c && *c <= 0) return MakeEvaluate(IntImm(Int(32), 0));
      if (mn.same_as(n->min) && ext.same_as(n->extent) && body.same_as(n->body)) return s;
      return MakeFor(n->loop_var, mn, ext, n->kind, body, std::string(n->thread_tag));
    }
    if (auto* n = s.as<IfThenElseNode>()) {
      PrimExpr c = VisitExpr(n->condition);
      if (const int64_t* v = AsConstInt(c)) {
        if (*v) return VisitStmt(n->then_case);
        return n->else_case.defined() ? VisitStmt(n->else_case) : MakeEvaluate(IntImm(Int(32), 0));
      }
    }
    return MutateStmtChildren(s);
  }

 private:
  VarBounds vars_;

  bool IsIndexInt(DataType t) const { return IsInt(t) && t.lanes == 1; }

  void AddTerm(Linear* l, const PrimExpr& term, int64_t coeff, DataType t) {
    for (auto& kv : l->terms) {
      if (StructuralEqual(kv.first, term)) {
        kv.second = Wrap(static_cast<i128>(kv.second) + coeff, t);
        return;
      }
    }
    l->terms.emplace_back(term, coeff);
  }

  /*! \brief e as a sum of coeff * term + constant (for int scalars). */
  Linear ToLinear(const PrimExpr& e, DataType t) {
    Linear l;
    if (auto* n = e.as<IntImmNode>()) {
      l.constant = n->value;
      return l;
    }
    if (e.as<AddNode>() || e.as<SubNode>()) {
      bool sub = e.as<SubNode>() != nullptr;
      PrimExpr a = sub ? e.as<SubNode>()->a : e.as<AddNode>()->a;
      PrimExpr b = sub ? e.as<SubNode>()->b : e.as<AddNode>()->b;
      Linear la = ToLinear(a, t), lb = ToLinear(b, t);
      int64_t s = sub ? -1 : 1;
      l = la;
      for (auto& kv : lb.terms) AddTerm(&l, kv.first, Wrap(static_cast<i128>(s) * kv.second, t), t);
      l.constant = Wrap(static_cast<i128>(la.constant) + s * static_cast<i128>(lb.constant), t);
      return l;
    }
    if (auto* n = e.as<MulNode>()) {
      Linear la = ToLinear(n->a, t), lb = ToLinear(n->b, t);
      const Linear* lin = nullptr;
      int64_t k = 0;
      if (lb.terms.empty()) {
        lin = &la;
        k = lb.constant;
      } else if (la.terms.empty()) {
        lin = &lb;
        k = la.constant;
      }
      if (lin != nullptr) {
        for (auto& kv : lin->terms) AddTerm(&l, kv.first, Wrap(static_cast<i128>(kv.second) * k, t), t);
        l.constant = Wrap(static_cast<i128>(lin->constant) * k, t);
        return l;
      }
    }
    l.terms.emplace_back(e, 1);
    return l;
  }

  PrimExpr FromLinear(const Linear& l, DataType t) {
    PrimExpr out;
    for (const auto& kv : l.terms) {
      if (kv.second == 0) continue;
      int64_t c = kv.second;
      if (!out.defined()) {
        if (c == 1) out = kv.first;
        else if (c == -1) out = MakeBinary("tir.Sub", IntImm(t, 0), kv.first);
        else out = MakeBinary("tir.Mul", kv.first, IntImm(t, c));
      } else if (c == 1) {
        out = MakeBinary("tir.Add", out, kv.first);
      } else if (c == -1) {
        out = MakeBinary("tir.Sub", out, kv.first);
      } else if (c < 0 && c != kNegInf) {
        out = MakeBinary("tir.Sub", out, MakeBinary("tir.Mul", kv.first, IntImm(t, -c)));
      } else {
        out = MakeBinary("tir.Add", out, MakeBinary("tir.Mul", kv.first, IntImm(t, c)));
      }
    }
    if (!out.defined()) return IntImm(t, l.constant);
    if (l.constant > 0) out = MakeBinary("tir.Add", out, IntImm(t, l.constant));
    if (l.constant < 0 && l.constant != kNegInf) out = MakeBinary("tir.Sub", out, IntImm(t, -l.constant));
    else if (l.constant == kNegInf) out = MakeBinary("tir.Add", out, IntImm(t, l.constant));
    return out;
  }

  PrimExpr Bool(bool v) { return IntImm(tvm::Bool(), v ? 1 : 0); }

  PrimExpr FoldInt(const PrimExpr& e, int64_t a, int64_t b) {
    DataType t = e.dtype();
    DataType ot = t;
    i128 x = a, y = b;
    if (e.as<AddNode>()) return IntImm(ot, Wrap(x + y, t));
    if (e.as<SubNode>()) return IntImm(ot, Wrap(x - y, t));
    if (e.as<MulNode>()) return IntImm(ot, Wrap(x * y, t));
    if (e.as<MinNode>()) return IntImm(ot, std::min(a, b));
    if (e.as<MaxNode>()) return IntImm(ot, std::max(a, b));
    if (b != 0 && !(b == -1 && a == TypeRange(t).min_value)) {
      if (e.as<DivNode>()) return IntImm(ot, a / b);
      if (e.as<ModNode>()) return IntImm(ot, a % b);
      if (e.as<FloorDivNode>()) return IntImm(ot, FloorDivI(a, b));
      if (e.as<FloorModNode>()) return IntImm(ot, FloorModI(a, b));
    }
    if (e.as<EQNode>()) return Bool(a == b);
    if (e.as<NENode>()) return Bool(a != b);
    if (e.as<LTNode>()) return Bool(a < b);
    if (e.as<LENode>()) return Bool(a <= b);
    if (e.as<GTNode>()) return Bool(a > b);
    if (e.as<GENode>()) return Bool(a >= b);
    if (e.as<AndNode>()) return Bool(a && b);
    if (e.as<OrNode>()) return Bool(a || b);
    return e;
  }

  PrimExpr FoldFloat(const PrimExpr& e, double a, double b, DataType ft) {
    auto mk = [&](double v) { return FloatImm(ft, ft.bits == 32 ? static_cast<float>(v) : v); };
    if (e.as<AddNode>()) return mk(a + b);
    if (e.as<SubNode>()) return mk(a - b);
    if (e.as<MulNode>()) return mk(a * b);
    if (e.as<DivNode>()) return mk(a / b);
    if (e.as<MinNode>()) return mk(std::min(a, b));
    if (e.as<MaxNode>()) return mk(std::max(a, b));
    if (e.as<EQNode>()) return Bool(a == b);
    if (e.as<NENode>()) return Bool(a != b);
    if (e.as<LTNode>()) return Bool(a < b);
    if (e.as<LENode>()) return Bool(a <= b);
    if (e.as<GTNode>()) return Bool(a > b);
    if (e.as<GENode>()) return Bool(a >= b);
    return e;
  }

  /*! \brief (a, b) of a binary node, or false. */
  static bool Operands(const PrimExpr& e, PrimExpr* a, PrimExpr* b) {
#define TVM_OPS(Name)                 \
  if (auto* n = e.as<Name##Node>()) { \
    *a = n->a;                        \
    *b = n->b;                        \
    return true;                      \
  }
    TVM_OPS(Add) TVM_OPS(Sub) TVM_OPS(Mul) TVM_OPS(Div) TVM_OPS(Mod) TVM_OPS(FloorDiv)
    TVM_OPS(FloorMod) TVM_OPS(Min) TVM_OPS(Max) TVM_OPS(EQ) TVM_OPS(NE) TVM_OPS(LT) TVM_OPS(LE)
    TVM_OPS(GT) TVM_OPS(GE) TVM_OPS(And) TVM_OPS(Or)
#undef TVM_OPS
    return false;
  }

  PrimExpr Rewrite(const PrimExpr& e) {
    PrimExpr a, b;
    DataType t = e.dtype();
    if (Operands(e, &a, &b)) {
      const IntImmNode* ia = a.as<IntImmNode>();
      const IntImmNode* ib = b.as<IntImmNode>();
      if (ia && ib) return FoldInt(e, ia->value, ib->value);
      const FloatImmNode* fa = a.as<FloatImmNode>();
      const FloatImmNode* fb = b.as<FloatImmNode>();
      if (fa && fb) return FoldFloat(e, fa->value, fb->value, a.dtype());
      DataType at = a.dtype();
      if (IsIndexInt(at)) return RewriteInt(e, a, b);
      if (IsBool(at) && at.lanes == 1) {
        if (e.as<AndNode>()) {
          if (ia) return ia->value ? b : Bool(false);
          if (ib) return ib->value ? a : Bool(false);
        }
        if (e.as<OrNode>()) {
          if (ia) return ia->value ? Bool(true) : b;
          if (ib) return ib->value ? Bool(true) : a;
        }
      }
      return e;
    }
    if (auto* n = e.as<NotNode>()) {
      if (const int64_t* v = AsConstInt(n->a)) return Bool(!*v);
      if (auto* m = n->a.as<NotNode>()) return m->a;
      return e;
    }
    if (auto* n = e.as<SelectNode>()) {
      if (const int64_t* v = AsConstInt(n->condition)) return *v ? n->true_value : n->false_value;
      if (StructuralEqual(n->true_value, n->false_value)) return n->true_value;
      return e;
    }
    if (auto* n = e.as<CastNode>()) {
      if (auto* i = n->value.as<IntImmNode>()) {
        if (IsIntOrUInt(t) || IsBool(t)) return IntImm(t, Wrap(i->value, t));
        if (IsFloat(t) && t.lanes == 1) {
          double v = IsUInt(i->dtype) ? static_cast<double>(static_cast<uint64_t>(i->value))
                                      : static_cast<double>(i->value);
          return FloatImm(t, t.bits == 32 ? static_cast<float>(v) : v);
        }
      }
      if (auto* f = n->value.as<FloatImmNode>()) {
        if (IsFloat(t) && t.lanes == 1) return FloatImm(t, t.bits == 32 ? static_cast<float>(f->value) : f->value);
      }
      return e;
    }
    return e;
  }

  PrimExpr RewriteInt(const PrimExpr& e, const PrimExpr& a, const PrimExpr& b) {
    DataType t = a.dtype();
    if (e.as<AddNode>() || e.as<SubNode>() || e.as<MulNode>()) {
      PrimExpr out = FromLinear(ToLinear(e, t), t);
      return StructuralEqual(out, e) ? e : out;
    }
    const int64_t* cb = AsConstInt(b);
    if ((e.as<FloorDivNode>() || e.as<FloorModNode>()) && cb && *cb > 0) {
      int64_t c = *cb;
      bool is_div = e.as<FloorDivNode>() != nullptr;
      if (c == 1) return is_div ? a : IntImm(t, 0);
      ConstIntBound ba = Bound(a, vars_);
      if (ba.min_value >= 0 && ba.max_value < c) return is_div ? IntImm(t, 0) : a;
      if (ba.min_value != kNegInf && ba.max_value != kPosInf &&
          FloorDivI(ba.min_value, c) == FloorDivI(ba.max_value, c)) {
        int64_t q = FloorDivI(ba.min_value, c);
        if (is_div) return IntImm(t, q);
        return FromLinear(ToLinear(MakeBinary("tir.Sub", a, IntImm(t, Wrap(static_cast<i128>(q) * c, t))), t), t);
      }
      // Split a = c * Q + R over the linear form: floordiv(a, c) = Q + floordiv(R, c).
      Linear l = ToLinear(a, t);
      Linear q, r;
      for (const auto& kv : l.terms) {
        if (kv.second % c == 0) q.terms.emplace_back(kv.first, kv.second / c);
        else r.terms.push_back(kv);
      }
      q.constant = FloorDivI(l.constant, c);
      r.constant = FloorModI(l.constant, c);
      if (!q.terms.empty() || q.constant != 0) {
        PrimExpr rem = FromLinear(r, t);
        if (is_div) {
          PrimExpr inner = MakeBinary("tir.FloorDiv", rem, b);
          return MakeBinary("tir.Add", FromLinear(q, t), Rewrite(inner));
        }
        return Rewrite(MakeBinary("tir.FloorMod", rem, b));
      }
      return e;
    }
    if (e.as<MinNode>() || e.as<MaxNode>()) {
      if (StructuralEqual(a, b)) return a;
      ConstIntBound d = Bound(MakeBinary("tir.Sub", a, b), vars_);
      bool is_min = e.as<MinNode>() != nullptr;
      if (d.max_value <= 0) return is_min ? a : b;
      if (d.min_value >= 0) return is_min ? b : a;
      return e;
    }
    if (e.as<EQNode>() || e.as<NENode>() || e.as<LTNode>() || e.as<LENode>() || e.as<GTNode>() ||
        e.as<GENode>()) {
      // Decide from the bound of a - b (computed in a wide-enough sense: skip if it may wrap).
      PrimExpr diff = FromLinear(ToLinear(MakeBinary("tir.Sub", a, b), t), t);
      ConstIntBound ba = Bound(a, vars_), bb = Bound(b, vars_);
      ConstIntBound tr = TypeRange(t);
      i128 lo = Wide(ba.min_value) - Wide(bb.max_value), hi = Wide(ba.max_value) - Wide(bb.min_value);
      bool no_wrap = lo >= Wide(tr.min_value) && hi <= Wide(tr.max_value);
      ConstIntBound d = Bound(diff, vars_);
      if (no_wrap) {
        d = Intersect(d, {Sat(lo), Sat(hi)});
        if (e.as<EQNode>()) {
          if (d.min_value == 0 && d.max_value == 0) return Bool(true);
          if (d.min_value > 0 || d.max_value < 0) return Bool(false);
        } else if (e.as<NENode>()) {
          if (d.min_value == 0 && d.max_value == 0) return Bool(false);
          if (d.min_value > 0 || d.max_value < 0) return Bool(true);
        } else if (e.as<LTNode>()) {
          if (d.max_value < 0) return Bool(true);
          if (d.min_value >= 0) return Bool(false);
        } else if (e.as<LENode>()) {
          if (d.max_value <= 0) return Bool(true);
          if (d.min_value > 0) return Bool(false);
        } else if (e.as<GTNode>()) {
          if (d.min_value > 0) return Bool(true);
          if (d.max_value <= 0) return Bool(false);
        } else if (e.as<GENode>()) {
          if (d.min_value >= 0) return Bool(true);
          if (d.max_value < 0) return Bool(false);
        }
      }
      return e;
    }
    return e;
  }
};

VarBounds FromMap(const Map<Var, Array<Any>>& m) {
  VarBounds vb;
  for (const auto& kv : m) {
    Array<Any> r = kv.second;
    if (r.size() != 2) TVM_FFI_THROW(ValueError) << "variable bounds must be [min, max]";
    vb[kv.first.get()] = {r[0].cast<int64_t>(), r[1].cast<int64_t>()};
  }
  return vb;
}

}  // namespace

ConstIntBound EvalConstIntBound(const PrimExpr& e, const VarBounds& vars) { return Bound(e, vars); }
ModularSet EvalModularSet(const PrimExpr& e, const VarBounds& vars) { return Modular(e, vars); }
PrimExpr Simplify(const PrimExpr& e, const VarBounds& vars) { return Simplifier(vars).VisitExpr(e); }
Stmt SimplifyStmt(const Stmt& s, const VarBounds& vars) { return Simplifier(vars).VisitStmt(s); }

TVM_FFI_STATIC_INIT_BLOCK() {
  RegisterCompilerGlobal("arith.Simplify", [](PrimExpr e, Map<Var, Array<Any>> bounds) {
    return Simplify(e, FromMap(bounds));
  });
  RegisterCompilerGlobal("arith.ConstIntBound", [](PrimExpr e, Map<Var, Array<Any>> bounds) {
    ConstIntBound b = EvalConstIntBound(e, FromMap(bounds));
    return Array<int64_t>{b.min_value, b.max_value};
  });
  RegisterCompilerGlobal("arith.ModularSet", [](PrimExpr e, Map<Var, Array<Any>> bounds) {
    ModularSet m = EvalModularSet(e, FromMap(bounds));
    return Array<int64_t>{m.coeff, m.base};
  });
  RegisterCompilerGlobal("tir.transform.Simplify", [](PrimFunc f) {
    Stmt body = SimplifyStmt(f->body, {});
    if (body.same_as(f->body)) return f;
    return MakePrimFunc(f->params, f->buffer_map, body, f->attrs);
  });
}

}  // namespace arith
}  // namespace tvm
