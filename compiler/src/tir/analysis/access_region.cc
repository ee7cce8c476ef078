/*
 * Buffer access regions of blocks and interval bounds of index expressions (analysis.h).
 */
#include "analysis.h"

#include <tvm/ir/structural.h>

namespace tvm {
namespace tir {

namespace {

struct Access {
  Buffer buffer;
  std::vector<Array<PrimExpr>> points;
};

class AccessCollector : public ExprMutator {
 public:
  PrimExpr VisitExpr(const PrimExpr& e) override {
    if (auto* n = e.as<BufferLoadNode>()) Note(&reads, n->buffer, n->indices);
    return MutateExprChildren(e);
  }
  Stmt VisitStmt(const Stmt& s) override {
    if (auto* n = s.as<BufferStoreNode>()) Note(&writes, n->buffer, n->indices);
    if (auto* n = s.as<ForNode>()) inner_[n->loop_var.get()] = Range(n->min, n->extent);
    if (auto* n = s.as<BlockRealizeNode>()) {
      // A nested block: its regions, with its iter vars replaced by their bindings.
      VarMap m;
      for (size_t i = 0; i < n->iter_values.size(); ++i) m[n->block->iter_vars[i]->var.get()] = n->iter_values[i];
      for (const BufferRegion& r : n->block->reads) AddRegion(&reads, r, m);
      for (const BufferRegion& r : n->block->writes) AddRegion(&writes, r, m);
      return s;
    }
    return MutateStmtChildren(s);
  }
  std::vector<Access> reads, writes;
  std::unordered_map<const Object*, Range> inner_;

 private:
  static void Note(std::vector<Access>* v, const Buffer& b, const Array<PrimExpr>& idx) {
    for (Access& a : *v) {
      if (a.buffer.same_as(b)) {
        a.points.push_back(idx);
        return;
      }
    }
    v->push_back(Access{b, {idx}});
  }
  static void AddRegion(std::vector<Access>* v, const BufferRegion& r, const VarMap& m) {
    Array<PrimExpr> lo, hi;
    for (const Range& x : r->region) {
      lo.push_back(Substitute(x->min, m));
      hi.push_back(Simp(Substitute(MakeBinary("tir.Sub", Add(x->min, x->extent), IntImm(x->extent.dtype(), 1)), m)));
    }
    Note(v, r->buffer, lo);
    Note(v, r->buffer, hi);
  }
};

Array<BufferRegion> ToRegions(const std::vector<Access>& acc, const std::unordered_map<const Object*, Range>& inner) {
  Array<BufferRegion> out;
  for (const Access& a : acc) {
    Array<Range> region;
    size_t nd = a.buffer->shape.size();
    for (size_t d = 0; d < nd; ++d) {
      Interval total;
      bool ok = true;
      for (const Array<PrimExpr>& p : a.points) {
        Interval iv = EvalInterval(p[d], inner);
        if (!iv.ok) {
          ok = false;
          break;
        }
        if (!UnionInto(&total, iv, /*symbolic=*/false)) {
          ok = false;
          break;
        }
      }
      PrimExpr ext0 = a.buffer->shape[d];
      if (!ok || !total.min.defined()) {
        region.push_back(Range(IntImm(ext0.dtype(), 0), ext0));
      } else {
        PrimExpr ext = Simp(Add(MakeBinary("tir.Sub", total.max, total.min), IntImm(total.min.dtype(), 1)));
        region.push_back(Range(total.min, ext));
      }
    }
    out.push_back(BufferRegion(a.buffer, region));
  }
  return out;
}

}  // namespace

void ComputeAccessRegions(const Stmt& body, const Stmt& init, Array<BufferRegion>* reads,
                          Array<BufferRegion>* writes) {
  AccessCollector c;
  c.VisitStmt(body);
  if (init.defined()) c.VisitStmt(init);
  std::vector<Access> r;
  for (const Access& a : c.reads) {
    bool written = false;
    for (const Access& w : c.writes) written |= w.buffer.same_as(a.buffer);
    if (!written) r.push_back(a);
  }
  *reads = ToRegions(r, c.inner_);
  *writes = ToRegions(c.writes, c.inner_);
}

Block WithAccessRegions(const Block& b) {
  Array<BufferRegion> reads, writes;
  ComputeAccessRegions(b->body, b->init, &reads, &writes);
  return MakeBlock(b->iter_vars, reads, writes, std::string(b->name_hint), b->body, b->init,
                   b->alloc_buffers, b->annotations);
}

PrimFunc RefreshAccessRegions(const PrimFunc& f) {
  return WithBody(f, PostOrderRewrite(f->body, [](const Stmt& x) {
    auto* n = x.as<BlockNode>();
    if (n == nullptr || (std::string(n->name_hint) == "root" && n->iter_vars.empty())) return x;
    return Stmt(WithAccessRegions(UncheckedCast<Block>(x)));
  }));
}

Interval EvalInterval(const PrimExpr& e, const std::unordered_map<const Object*, Range>& relax) {
  auto point = [&](const PrimExpr& x) { return Interval{x, x, true}; };
  auto fail = [] { return Interval{PrimExpr(), PrimExpr(), false}; };
  bool any = false;
  for (const auto& kv : relax) {
    if (UsesVar(e, kv.first)) {
      any = true;
      break;
    }
  }
  if (!any) return point(e);
  if (auto* v = e.as<VarNode>()) {
    const Range& r = relax.at(v);
    return Interval{r->min, Simp(MakeBinary("tir.Sub", Add(r->min, r->extent), IntImm(r->min.dtype(), 1))), true};
  }
  auto both = [&](const PrimExpr& a, const PrimExpr& b, Interval* x, Interval* y) {
    *x = EvalInterval(a, relax);
    *y = EvalInterval(b, relax);
    return x->ok && y->ok;
  };
  Interval x, y;
  if (auto* n = e.as<AddNode>()) {
    if (!both(n->a, n->b, &x, &y)) return fail();
    return Interval{Simp(Add(x.min, y.min)), Simp(Add(x.max, y.max)), true};
  }
  if (auto* n = e.as<SubNode>()) {
    if (!both(n->a, n->b, &x, &y)) return fail();
    return Interval{Simp(MakeBinary("tir.Sub", x.min, y.max)), Simp(MakeBinary("tir.Sub", x.max, y.min)), true};
  }
  if (auto* n = e.as<MulNode>()) {
    const int64_t* c = AsConstInt(n->b);
    PrimExpr other = n->a;
    if (c == nullptr) {
      c = AsConstInt(n->a);
      other = n->b;
    }
    if (c == nullptr) return fail();
    x = EvalInterval(other, relax);
    if (!x.ok) return fail();
    PrimExpr k = IntImm(e.dtype(), *c);
    if (*c >= 0) return Interval{Simp(Mul(x.min, k)), Simp(Mul(x.max, k)), true};
    return Interval{Simp(Mul(x.max, k)), Simp(Mul(x.min, k)), true};
  }
  if (auto* n = e.as<FloorDivNode>()) {
    const int64_t* c = AsConstInt(n->b);
    if (c == nullptr || *c <= 0) return fail();
    x = EvalInterval(n->a, relax);
    if (!x.ok) return fail();
    return Interval{Simp(MakeBinary("tir.FloorDiv", x.min, n->b)), Simp(MakeBinary("tir.FloorDiv", x.max, n->b)), true};
  }
  if (auto* n = e.as<FloorModNode>()) {
    const int64_t* c = AsConstInt(n->b);
    if (c == nullptr || *c <= 0) return fail();
    x = EvalInterval(n->a, relax);
    if (!x.ok) return fail();
    // Within one period the mod is monotonic: when min and max share a quotient.
    PrimExpr q = Simp(MakeBinary("tir.Sub", MakeBinary("tir.FloorDiv", x.max, n->b), MakeBinary("tir.FloorDiv", x.min, n->b)));
    if (const int64_t* qc = AsConstInt(q); qc && *qc == 0) {
      return Interval{Simp(MakeBinary("tir.FloorMod", x.min, n->b)), Simp(MakeBinary("tir.FloorMod", x.max, n->b)), true};
    }
    return Interval{IntImm(e.dtype(), 0), IntImm(e.dtype(), *c - 1), true};
  }
  if (auto* n = e.as<MinNode>()) {
    if (!both(n->a, n->b, &x, &y)) return fail();
    return Interval{Simp(MakeBinary("tir.Min", x.min, y.min)), Simp(MakeBinary("tir.Min", x.max, y.max)), true};
  }
  if (auto* n = e.as<MaxNode>()) {
    if (!both(n->a, n->b, &x, &y)) return fail();
    return Interval{Simp(MakeBinary("tir.Max", x.min, y.min)), Simp(MakeBinary("tir.Max", x.max, y.max)), true};
  }
  return fail();
}

bool UnionInto(Interval* hull, const Interval& iv_in, bool symbolic) {
  if (!hull->min.defined()) {
    *hull = iv_in;
    return true;
  }
  // One buffer may be indexed in int32 at one site and int64 at another (TE makes extents
  // from Python ints int32 beside int64 shapes); the hull takes the wider type, so no bound
  // is narrowed, and TIR's binary ops get operands of one type.
  Interval iv = iv_in;
  if (iv.min.dtype() != hull->min.dtype() || iv.max.dtype() != hull->max.dtype()) {
    DataType t = iv.min.dtype().bits > hull->min.dtype().bits ? iv.min.dtype() : hull->min.dtype();
    for (PrimExpr* e : {&hull->min, &hull->max, &iv.min, &iv.max}) *e = Simp(MakeCast(t, *e));
  }
  const PrimExpr dmin = Simp(MakeBinary("tir.Sub", iv.min, hull->min));
  const PrimExpr dmax = Simp(MakeBinary("tir.Sub", iv.max, hull->max));
  const int64_t* cmin = AsConstInt(dmin);
  const int64_t* cmax = AsConstInt(dmax);
  if (!symbolic && (cmin == nullptr || cmax == nullptr)) return false;
  hull->min = cmin ? (*cmin < 0 ? iv.min : hull->min) : Simp(MakeBinary("tir.Min", hull->min, iv.min));
  hull->max = cmax ? (*cmax > 0 ? iv.max : hull->max) : Simp(MakeBinary("tir.Max", hull->max, iv.max));
  return true;
}

}  // namespace tir
}  // namespace tvm
