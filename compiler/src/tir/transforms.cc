/*
 * Lowering passes: FlattenBuffer ("tir.transform.FlattenBuffer") and VectorizeLoop
 * ("tir.transform.VectorizeLoop").
 *
 * FlattenBuffer rewrites every BufferLoad/BufferStore/Allocate in the body to a 1-D buffer
 * sharing the original data Var (row-major, or the Buffer's strides). `buffer_map` keeps the
 * N-D buffers, which describe the arguments to the packed entry point.
 *
 * VectorizeLoop turns a vectorized loop of constant extent L into straight-line vector code:
 * the loop var becomes Ramp(min, 1, L), scalars meeting vectors are broadcast, and affine
 * index arithmetic keeps Ramps (Ramp + x -> Ramp, Ramp * c -> Ramp), so contiguous accesses
 * reach codegen as Ramp(base, 1, L). Loops it cannot vectorize (non-constant extents,
 * unsupported calls, Let) stay scalar loops. A loop whose guards or index clamps differ
 * between lanes (a register tile's write-back guarded to the real columns, `c0 + lane < 34`;
 * a padding copy reading `x[min(c, C - 1)]`) is versioned: where every lane agrees (tested
 * at the first and last lane: the terms are linear in the lane) the vector code runs without
 * them; elsewhere the loop as it would have been (VectorizeWhereLanesAgree).
 */
#include <tvm/arith/analyzer.h>
#include <tvm/ffi/error.h>
#include <tvm/tir/functor.h>

#include <unordered_map>

#include "../support/registry.h"
#include "analysis/analysis.h"

namespace tvm {
namespace {

class Flattener : public ExprMutator {
 public:
  PrimExpr VisitExpr(const PrimExpr& e) override {
    PrimExpr x = MutateExprChildren(e);
    if (auto* n = x.as<BufferLoadNode>()) {
      if (n->indices.size() == 1 && n->buffer->shape.size() == 1 && n->buffer->strides.empty()) return x;
      return MakeBufferLoad(Flat(n->buffer), {Index(n->buffer, n->indices)});
    }
    return x;
  }
  Stmt VisitStmt(const Stmt& s) override {
    Stmt x = MutateStmtChildren(s);
    if (auto* n = x.as<BufferStoreNode>()) {
      if (n->indices.size() == 1 && n->buffer->shape.size() == 1 && n->buffer->strides.empty()) return x;
      return MakeBufferStore(Flat(n->buffer), n->value, {Index(n->buffer, n->indices)});
    }
    if (auto* n = x.as<AllocateNode>()) return MakeAllocate(Flat(n->buffer), n->body);
    return x;
  }

 private:
  std::unordered_map<const Object*, Buffer> flat_;

  Buffer Flat(const Buffer& b) {
    auto it = flat_.find(b.get());
    if (it != flat_.end()) return it->second;
    PrimExpr size;
    if (!b->strides.empty()) {
      // A strided (e.g. storage_align-padded) allocation spans the last element's offset + 1.
      size = IntImm(Int(64), 1);
      for (size_t k = 0; k < b->shape.size(); ++k) {
        PrimExpr span = MakeBinary("tir.Sub", MakeCast(Int(64), b->shape[k]), IntImm(Int(64), 1));
        size = MakeBinary("tir.Add", size, MakeBinary("tir.Mul", span, MakeCast(Int(64), b->strides[k])));
      }
    } else {
      for (const PrimExpr& d : b->shape) {
        PrimExpr d64 = MakeCast(Int(64), d);
        size = size.defined() ? MakeBinary("tir.Mul", size, d64) : d64;
      }
    }
    if (!size.defined()) size = IntImm(Int(64), 1);
    Buffer f = MakeBuffer(b->data, b->dtype, {arith::Simplify(size, {})}, {}, std::string(b->name),
                          std::string(b->scope));
    flat_[b.get()] = f;
    return f;
  }

  PrimExpr Index(const Buffer& b, const Array<PrimExpr>& idx) {
    // Index arithmetic in the widest index type used (int32 unless something is int64).
    DataType t = Int(32);
    for (const PrimExpr& i : idx) {
      if (ElementOf(i.dtype()).bits == 64) t = Int(64);
    }
    for (const PrimExpr& s : b->shape) {
      if (s.dtype().bits == 64) t = Int(64);
    }
    auto cast = [&](const PrimExpr& e) {
      return ElementOf(e.dtype()) == t ? e : MakeCast(WithLanes(t, e.dtype().lanes), e);
    };
    PrimExpr flat;
    if (idx.empty()) return IntImm(t, 0);
    for (size_t k = 0; k < idx.size(); ++k) {
      PrimExpr i = cast(idx[k]);
      if (!b->strides.empty()) {
        PrimExpr term = MakeBinary("tir.Mul", i, cast(b->strides[k]));
        flat = flat.defined() ? MakeBinary("tir.Add", flat, term) : term;
      } else if (!flat.defined()) {
        flat = i;
      } else {
        flat = MakeBinary("tir.Add", MakeBinary("tir.Mul", flat, cast(b->shape[k])), i);
      }
    }
    return flat;
  }
};

/*! \brief Raised (as a C++ exception) when a loop cannot be vectorized. */
struct CannotVectorize {};

PrimExpr Widen(const PrimExpr& e, int lanes) {
  if (e.dtype().lanes == lanes) return e;
  if (e.dtype().lanes != 1) throw CannotVectorize();
  return MakeBroadcast(e, lanes);
}

bool VectorizableCall(const std::string& op) {
  static const char* kOps[] = {"tir.exp", "tir.exp2", "tir.log", "tir.log2", "tir.log10",
                               "tir.sqrt", "tir.sin", "tir.cos", "tir.floor", "tir.ceil",
                               "tir.trunc", "tir.round", "tir.fabs", "tir.nearbyint", "tir.pow",
                               "tir.abs", "tir.if_then_else", "tir.sigmoid", "tir.erf", "tir.tanh", "tir.bitwise_and",
                               "tir.bitwise_or", "tir.bitwise_xor", "tir.bitwise_not",
                               "tir.shift_left", "tir.shift_right"};
  for (const char* k : kOps) {
    if (op == k) return true;
  }
  return false;
}

/*! \brief Whether base + s * i, i in [0, lanes), lies within one multiple of c for every
 * value of base (its modular set: base = coeff * k + r). */
bool NoLaneCrosses(const PrimExpr& base, int64_t s, int64_t lanes, int64_t c) {
  arith::ModularSet m = arith::EvalModularSet(base, arith::VarBounds());
  int64_t span = s * (lanes - 1);
  int64_t coeff = m.coeff < 0 ? -m.coeff : m.coeff;
  auto residue = [&](int64_t q) { return ((m.base % q) + q) % q; };
  // base mod c is fixed (a constant base: coeff 0), or base mod c is at most c - coeff + r
  if (coeff % c == 0) return residue(c) + span < c;
  if (c % coeff == 0) return residue(coeff) + span < coeff;
  return false;
}

/*! \brief Rewrites one loop body with the loop var replaced by Ramp(min, 1, lanes). */
class Vectorizer : public ExprMutator {
 public:
  Vectorizer(const Var& v, PrimExpr min, int lanes) : var_(v), min_(std::move(min)), lanes_(lanes) {}

  PrimExpr VisitExpr(const PrimExpr& e) override {
    if (e.get() == var_.get()) return MakeRamp(min_, IntImm(min_.dtype(), 1), lanes_);
    if (e.as<IntImmNode>() || e.as<FloatImmNode>() || e.as<StringImmNode>() || e.as<VarNode>()) return e;
#define TVM_VEC_BIN(Name)                                         \
  if (auto* n = e.as<Name##Node>()) {                             \
    PrimExpr a = VisitExpr(n->a), b = VisitExpr(n->b);            \
    if (a.same_as(n->a) && b.same_as(n->b)) return e;             \
    return Binary("tir." #Name, a, b);                            \
  }
    TVM_VEC_BIN(Add) TVM_VEC_BIN(Sub) TVM_VEC_BIN(Mul) TVM_VEC_BIN(Div) TVM_VEC_BIN(Mod)
    TVM_VEC_BIN(FloorDiv) TVM_VEC_BIN(FloorMod) TVM_VEC_BIN(Min) TVM_VEC_BIN(Max) TVM_VEC_BIN(EQ)
    TVM_VEC_BIN(NE) TVM_VEC_BIN(LT) TVM_VEC_BIN(LE) TVM_VEC_BIN(GT) TVM_VEC_BIN(GE)
    TVM_VEC_BIN(And) TVM_VEC_BIN(Or)
#undef TVM_VEC_BIN
    if (auto* n = e.as<NotNode>()) {
      PrimExpr a = VisitExpr(n->a);
      return a.same_as(n->a) ? e : MakeNot(a);
    }
    if (auto* n = e.as<SelectNode>()) {
      PrimExpr c = VisitExpr(n->condition), t = VisitExpr(n->true_value), f = VisitExpr(n->false_value);
      if (c.same_as(n->condition) && t.same_as(n->true_value) && f.same_as(n->false_value)) return e;
      int l = std::max({c.dtype().lanes, t.dtype().lanes, f.dtype().lanes});
      return MakeSelect(Widen(c, l), Widen(t, l), Widen(f, l));
    }
    if (auto* n = e.as<CastNode>()) {
      PrimExpr v = VisitExpr(n->value);
      return v.same_as(n->value) ? e : MakeCast(WithLanes(n->dtype, v.dtype().lanes), v);
    }
    if (auto* n = e.as<CallNode>()) {
      bool changed = false;
      int l = 1;
      Array<PrimExpr> args;
      for (const PrimExpr& a : n->args) {
        PrimExpr b = VisitExpr(a);
        changed |= !b.same_as(a);
        l = std::max<int>(l, b.dtype().lanes);
        args.push_back(b);
      }
      if (!changed) return e;
      if (l > 1 && !VectorizableCall(std::string(n->op))) throw CannotVectorize();
      Array<PrimExpr> wide;
      for (const PrimExpr& a : args) wide.push_back(Widen(a, l));
      return MakeCall(WithLanes(n->dtype, l), std::string(n->op), wide);
    }
    if (auto* n = e.as<BufferLoadNode>()) {
      bool changed = false;
      int l = 1;
      Array<PrimExpr> idx;
      for (const PrimExpr& i : n->indices) {
        PrimExpr j = VisitExpr(i);
        changed |= !j.same_as(i);
        l = std::max<int>(l, j.dtype().lanes);
        idx.push_back(j);
      }
      if (!changed) return e;
      Array<PrimExpr> wide;
      for (const PrimExpr& i : idx) wide.push_back(Widen(i, l));
      return MakeBufferLoad(n->buffer, wide);
    }
    throw CannotVectorize();  // Let, Reduce, Ramp/Broadcast already present, ...
  }

  Stmt VisitStmt(const Stmt& s) override {
    if (auto* n = s.as<BufferStoreNode>()) {
      PrimExpr v = VisitExpr(n->value);
      bool changed = !v.same_as(n->value);
      Array<PrimExpr> idx;
      int lanes = v.dtype().lanes;
      for (const PrimExpr& i : n->indices) {
        PrimExpr j = VisitExpr(i);
        changed |= !j.same_as(i);
        lanes = std::max<int>(lanes, j.dtype().lanes);
        idx.push_back(j);
      }
      if (!changed) return s;
      if (lanes > 1) {
        // Every index must be a vector: a scalar index would store all lanes to one place.
        bool any_vec_index = false;
        for (const PrimExpr& i : idx) any_vec_index |= i.dtype().lanes > 1;
        if (!any_vec_index) throw CannotVectorize();
      }
      Array<PrimExpr> wide;
      for (const PrimExpr& i : idx) wide.push_back(Widen(i, lanes));
      return MakeBufferStore(n->buffer, Widen(v, lanes), wide);
    }
    if (auto* n = s.as<ForNode>()) {
      PrimExpr mn = VisitExpr(n->min), ext = VisitExpr(n->extent);
      if (mn.dtype().lanes > 1 || ext.dtype().lanes > 1) throw CannotVectorize();
      return MutateStmtChildren(s);
    }
    if (auto* n = s.as<IfThenElseNode>()) {
      if (VisitExpr(n->condition).dtype().lanes > 1) throw CannotVectorize();
      return MutateStmtChildren(s);
    }
    if (s.as<LetStmtNode>() || s.as<AllocateNode>()) throw CannotVectorize();
    return MutateStmtChildren(s);
  }

 private:
  Var var_;
  PrimExpr min_;
  int lanes_;

  PrimExpr Binary(const std::string& key, PrimExpr a, PrimExpr b) {
    // A broadcast operand is its scalar: every lane the same value (a floordiv that does
    // not cross a boundary, below, times a row stride stays a broadcast, and a broadcast
    // plus a Ramp a Ramp: a transpose's source index stays contiguous, not a gather).
    int64_t bcast = 0;
    if (auto* n = a.as<BroadcastNode>()) bcast = n->lanes, a = n->value;
    if (auto* n = b.as<BroadcastNode>()) {
      if (bcast != 0 && bcast != n->lanes) throw CannotVectorize();
      bcast = n->lanes, b = n->value;
    }
    int la = a.dtype().lanes, lb = b.dtype().lanes;
    if (bcast != 0 && std::max(la, lb) > 1 && std::max(la, lb) != bcast) throw CannotVectorize();
    if (la == 1 && lb == 1) {
      PrimExpr x = MakeBinary(key, a, b);
      return bcast ? MakeBroadcast(x, bcast) : x;
    }
    const RampNode* ra = a.as<RampNode>();
    const RampNode* rb = b.as<RampNode>();
    if ((key == "tir.FloorDiv" || key == "tir.FloorMod") && ra && lb == 1) {
      // Ramp(base, s, L) by a constant c: when no lane crosses a multiple of c (base's
      // residue mod c, at its largest, plus s * (L - 1) stays below c), the quotient is
      // the same in every lane and the remainder a Ramp. TIR's reshapes and transposes
      // split a contiguous axis this way (x // 64, x % 64 over 16 lanes of x).
      auto* c = b.as<IntImmNode>();
      auto* s = ra->stride.as<IntImmNode>();
      if (c && s && c->value > 0 && s->value >= 0 && NoLaneCrosses(ra->base, s->value, ra->lanes, c->value)) {
        if (key == "tir.FloorDiv") return MakeBroadcast(MakeBinary(key, ra->base, b), ra->lanes);
        return MakeRamp(MakeBinary(key, ra->base, b), ra->stride, ra->lanes);
      }
    }
    if (key == "tir.Add" || key == "tir.Sub") {
      if (ra && lb == 1) return MakeRamp(MakeBinary(key, ra->base, b), ra->stride, ra->lanes);
      if (rb && la == 1 && key == "tir.Add") return MakeRamp(MakeBinary(key, a, rb->base), rb->stride, rb->lanes);
      if (ra && rb && ra->lanes == rb->lanes) {
        return MakeRamp(MakeBinary(key, ra->base, rb->base), MakeBinary(key, ra->stride, rb->stride), ra->lanes);
      }
    }
    if (key == "tir.Mul") {
      if (ra && lb == 1) return MakeRamp(MakeBinary(key, ra->base, b), MakeBinary(key, ra->stride, b), ra->lanes);
      if (rb && la == 1) return MakeRamp(MakeBinary(key, a, rb->base), MakeBinary(key, a, rb->stride), rb->lanes);
    }
    int lanes = std::max(la, lb);
    return MakeBinary(key, Widen(a, lanes), Widen(b, lanes));
  }
};

/*! \brief Vars bound inside `s` (loops, lets): a condition naming one cannot be tested
 * before the loop. */
std::vector<const Object*> BoundInside(const Stmt& s) {
  std::vector<const Object*> out;
  std::vector<Stmt> stack;
  tir::WalkPath(s, &stack, [&](const Stmt& x) {
    if (auto* n = x.as<ForNode>()) out.push_back(n->loop_var.get());
    if (auto* n = x.as<LetStmtNode>()) out.push_back(n->var.get());
    return false;
  });
  return out;
}

/*!
 * \brief A vectorized loop's body rewritten for the vectors where every lane agrees: each
 * comparison of two expressions linear in the loop var (a store's guard `c0 + lane < 34`, a
 * padding's `c < C`) taken as true, each clamp min/max of such an expression by a
 * lane-free bound (an index kept in bounds, `min(c, C - 1)`) taken as the identity, and a
 * store guarded by such comparisons unguarded; `conds` collects what makes each so (in
 * scalar form). A linear expression is monotone in the lane, so every condition that holds
 * at the first and the last lane holds at all of them. Terms naming a var bound inside the
 * loop are left alone (they cannot be tested before it).
 */
class LaneAssumptions : public ExprMutator {
 public:
  LaneAssumptions(const Var& v, PrimExpr min, int lanes)
      : v_(v), min_(std::move(min)), lanes_(lanes), inner_() {}
  std::vector<PrimExpr> conds;

  Stmt Rewrite(const Stmt& body) {
    inner_ = BoundInside(body);
    return VisitStmt(body);
  }

  PrimExpr VisitExpr(const PrimExpr& e) override {
    PrimExpr x = MutateExprChildren(e);
    PrimExpr a, b;
    bool is_min = false, is_cmp = false;
    if (auto* n = x.as<MinNode>()) a = n->a, b = n->b, is_min = true;
    else if (auto* n = x.as<MaxNode>()) a = n->a, b = n->b;
    else if (auto* n = x.as<LTNode>()) a = n->a, b = n->b, is_cmp = true;
    else if (auto* n = x.as<LENode>()) a = n->a, b = n->b, is_cmp = true;
    else if (auto* n = x.as<GTNode>()) a = n->a, b = n->b, is_cmp = true;
    else if (auto* n = x.as<GENode>()) a = n->a, b = n->b, is_cmp = true;
    else return x;
    if (!IsIntOrUInt(a.dtype()) || !tir::UsesVar(x, v_.get()) || NamesInner(x)) return x;
    int la = Lanes(a), lb = Lanes(b);
    if (la < 0 || lb < 0) return x;
    if (is_cmp) {
      conds.push_back(x);
      return IntImm(Bool(), 1);
    }
    // a clamp: the lane-dependent side (a Ramp) is the result when it stays on its side
    if (la > 1 && lb == 1) {
      conds.push_back(is_min ? MakeBinary("tir.LE", a, b) : MakeBinary("tir.GE", a, b));
      return a;
    }
    if (lb > 1 && la == 1) {
      conds.push_back(is_min ? MakeBinary("tir.LE", b, a) : MakeBinary("tir.GE", b, a));
      return b;
    }
    return x;
  }

  Stmt VisitStmt(const Stmt& s) override {
    Stmt x = MutateStmtChildren(s);
    auto* n = x.as<IfThenElseNode>();
    // a store guard whose condition became true: the store itself
    if (n != nullptr && !n->else_case.defined() && IsConstTrueBool(n->condition)) return n->then_case;
    return x;
  }

 private:
  Var v_;
  PrimExpr min_;
  int lanes_;
  std::vector<const Object*> inner_;

  /*! \brief Lanes of `e` vectorized: 1 (lane-free), lanes_ when a Ramp, -1 otherwise. */
  int Lanes(const PrimExpr& e) {
    try {
      PrimExpr w = Vectorizer(v_, min_, lanes_).VisitExpr(e);
      if (w.dtype().lanes == 1) return 1;
      return w.as<RampNode>() != nullptr ? lanes_ : -1;
    } catch (const CannotVectorize&) {
      return -1;
    }
  }
  bool NamesInner(const PrimExpr& e) {
    for (const Object* x : inner_) {
      if (tir::UsesVar(e, x)) return true;
    }
    return false;
  }
  static bool IsConstTrueBool(const PrimExpr& e) {
    const int64_t* c = AsConstInt(e);
    return c != nullptr && *c != 0;
  }
};

/*!
 * \brief For a vectorized loop that is one guarded store whose guard fails on its last
 * lanes whatever the enclosing loops do (a tile's write-back of 28 real columns of 32,
 * `if (c < 28) out[...] = ...`): the store over the first K lanes, where the guard holds,
 * vectorized K wide (LLVM splits a 28-lane vector into 16 + 8 + 4), the guard's lane-free
 * terms kept as a scalar guard; an undefined Stmt when the loop is not so. Before, such a
 * loop ran its scalar fallback, one branch a lane, which LLVM vectorized again with masks
 * and unrolled: ShuffleNet's two largest kernels were mostly that code. Only a store guard
 * qualifies: a lane it fails on does nothing, so leaving the lane out is exact (a select's
 * or a clamp's condition would change the value instead).
 */
Stmt VectorizeValidPrefix(const ForNode* loop, int lanes) {
  auto* guard = loop->body.as<IfThenElseNode>();
  if (guard == nullptr || guard->else_case.defined()) return Stmt();
  const Var& v = loop->loop_var;
  LaneAssumptions inside(v, loop->min, lanes);
  inside.Rewrite(guard->then_case);
  if (!inside.conds.empty()) return Stmt();  // lane-dependent values inside: not just a guard
  std::vector<PrimExpr> terms, lane_free;
  std::vector<PrimExpr> todo = {guard->condition};
  while (!todo.empty()) {
    PrimExpr c = todo.back();
    todo.pop_back();
    if (auto* n = c.as<AndNode>()) {
      todo.push_back(n->a);
      todo.push_back(n->b);
    } else {
      (tir::UsesVar(c, v.get()) ? terms : lane_free).push_back(c);
    }
  }
  int valid = 0;
  for (int k = 0; k < lanes; ++k) {
    PrimExpr at = tir::Add(loop->min, IntImm(loop->min.dtype(), k));
    bool holds = true;
    for (const PrimExpr& c : terms) {
      PrimExpr value = tir::Simp(tir::Substitute(c, {{v.get(), at}}));
      const int64_t* b = AsConstInt(value);
      if (b == nullptr) return Stmt();  // depends on an enclosing loop: not static
      holds = holds && *b != 0;
    }
    if (holds && valid != k) return Stmt();  // not a prefix
    valid += holds ? 1 : 0;
  }
  Stmt store;
  if (valid == 0) return MakeEvaluate(IntImm(Int(32), 0));  // no lane stores
  if (valid == 1) {
    store = tir::Substitute(guard->then_case, {{v.get(), loop->min}});
  } else {
    try {
      store = Vectorizer(v, loop->min, valid).VisitStmt(guard->then_case);
    } catch (const CannotVectorize&) {
      return Stmt();
    }
  }
  if (lane_free.empty()) return store;
  return MakeIfThenElse(tir::AndAll(lane_free), store, Stmt());
}

/*!
 * \brief `if (every lane agrees) <vector body without the guards and clamps> else
 * <fallback>` for a vectorized loop whose guards or index clamps depend on the lane
 * (LaneAssumptions), or an undefined Stmt when it has none or the rewritten body does not
 * vectorize. Before, such a loop ran as scalar stores behind a branch each (a tile's
 * write-back over 34 of 48 columns) or gathered its loads one lane at a time (a padding
 * copy clamping its channel index): on ShuffleNet's grouped and depthwise convolutions each
 * was about as long as the product.
 */
Stmt VectorizeWhereLanesAgree(const ForNode* loop, const Stmt& fallback, int lanes) {
  const Var& v = loop->loop_var;
  LaneAssumptions assume(v, loop->min, lanes);
  Stmt body = assume.Rewrite(loop->body);
  if (assume.conds.empty()) return Stmt();
  PrimExpr last = tir::Add(loop->min, IntImm(loop->min.dtype(), lanes - 1));
  std::vector<PrimExpr> ends;
  for (const PrimExpr& c : assume.conds) {
    ends.push_back(tir::Substitute(c, {{v.get(), loop->min}}));
    ends.push_back(tir::Substitute(c, {{v.get(), last}}));
  }
  Stmt fast;
  try {
    fast = Vectorizer(v, loop->min, lanes).VisitStmt(body);
  } catch (const CannotVectorize&) {
    return Stmt();
  }
  PrimExpr agree = tir::Simp(tir::AndAll(ends));
  if (const int64_t* c = AsConstInt(agree)) {
    if (*c) return fast;
    Stmt prefix = VectorizeValidPrefix(loop, lanes);
    return prefix.defined() ? prefix : fallback;
  }
  return MakeIfThenElse(agree, fast, fallback);
}

class LoopVectorizer : public ExprMutator {
 public:
  PrimExpr VisitExpr(const PrimExpr& e) override { return e; }
  Stmt VisitStmt(const Stmt& s) override {
    Stmt x = MutateStmtChildren(s);
    auto* n = x.as<ForNode>();
    if (n == nullptr || n->kind != static_cast<int64_t>(ForKind::kVectorized)) return x;
    const int64_t* ext = AsConstInt(n->extent);
    if (ext == nullptr || *ext < 1) return x;
    if (*ext > kMaxLanes) return SplitLongLoop(x, n, *ext);
    if (*ext == 1) return x;
    Stmt plain = x;  // a scalar loop when it does not vectorize (codegen adds the hint)
    try {
      plain = Vectorizer(n->loop_var, n->min, static_cast<int>(*ext)).VisitStmt(n->body);
    } catch (const CannotVectorize&) {
    }
    Stmt agreed = VectorizeWhereLanesAgree(n, plain, static_cast<int>(*ext));
    return agreed.defined() ? agreed : plain;
  }

 private:
  // The widest vector a loop becomes (64 floats: four AVX-512 registers).
  static constexpr int64_t kMaxLanes = 64;

  // A vectorized loop longer than kMaxLanes whose extent a power of two from 16 up divides:
  // a serial loop over vectorized chunks of that many lanes (then vectorized as above), e.g. a
  // 256-column register tile's write-back, 4 x 64 lanes. Left a loop, LLVM's loop vectorizer
  // would make a vector body, a scalar remainder and alias checks of it: 2-3x the code and
  // the compile time (and the accumulators go through memory). Other extents stay loops.
  Stmt SplitLongLoop(const Stmt& loop, const ForNode* n, int64_t ext) {
    int64_t lanes = kMaxLanes;
    while (lanes >= 16 && ext % lanes != 0) lanes /= 2;
    if (lanes < 16) return loop;
    DataType t = n->loop_var->dtype;
    Var outer(std::string(n->loop_var->name) + "_chunk", t), inner(std::string(n->loop_var->name) + "_lane", t);
    PrimExpr at = tir::Simp(MakeBinary("tir.Add", MakeBinary("tir.Add", n->min, MakeBinary("tir.Mul", outer, IntImm(t, lanes))), inner));
    Stmt body = tir::Substitute(n->body, {{n->loop_var.get(), at}});
    Stmt chunk = VisitStmt(MakeFor(inner, IntImm(t, 0), IntImm(t, lanes), static_cast<int64_t>(ForKind::kVectorized), body));
    return MakeFor(outer, IntImm(t, 0), IntImm(t, ext / lanes), static_cast<int64_t>(ForKind::kSerial), chunk);
  }
};

}  // namespace

TVM_FFI_STATIC_INIT_BLOCK() {
  RegisterCompilerGlobal("tir.transform.FlattenBuffer", [](PrimFunc f) {
    Stmt body = Flattener().VisitStmt(f->body);
    return MakePrimFunc(f->params, f->buffer_map, arith::SimplifyStmt(body, {}), f->attrs);
  });
  RegisterCompilerGlobal("tir.transform.VectorizeLoop", [](PrimFunc f) {
    // Loops of one iteration (a split's outer part over a single column panel) go first: a
    // guard naming their var (`oo * 32 + c < 28`) is then static, which VectorizeValidPrefix
    // needs.
    Stmt body = PostOrderRewrite(f->body, [](const Stmt& s) -> Stmt {
      auto* n = s.as<ForNode>();
      const int64_t* ext = n != nullptr ? AsConstInt(n->extent) : nullptr;
      if (ext == nullptr || *ext != 1 || n->kind == static_cast<int64_t>(ForKind::kParallel) ||
          n->kind == static_cast<int64_t>(ForKind::kThreadBinding)) {
        return s;
      }
      return tir::Substitute(n->body, {{n->loop_var.get(), n->min}});
    });
    body = LoopVectorizer().VisitStmt(body);
    if (body.same_as(f->body)) return f;
    return MakePrimFunc(f->params, f->buffer_map, body, f->attrs);
  });
}

}  // namespace tvm
