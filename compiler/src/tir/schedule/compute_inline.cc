/*
 * compute_inline / reverse_compute_inline: remove an elementwise (injective) stage by
 * substituting its expression into its consumers, or its consumer's expression into it.
 *
 * A block qualifies when its body is one store `W[v_a, v_b, ...] = e` whose indices are
 * distinct iter vars covering all of them (every point of W is written once, from the
 * block's own point), with no init and only spatial vars. The buffer that disappears must
 * be an intermediate (not a function argument).
 *
 * reverse_compute_inline also takes a consumer that reads the link through a reshape (several
 * of its iter vars fused into one index, h * W + w), as a matmul-shaped convolution's epilogue
 * does: the producer's iter var is split back into those vars. Where the producer writes
 * more points than the consumer reads (rows padded to a tile, along a fused or a plain axis)
 * the inlined store gets a guard.
 */
#include <tvm/ir/structural.h>

#include <algorithm>

#include "../../support/registry.h"
#include "utils.h"

namespace tvm {
namespace tir {
namespace {

/*! \brief The store of a complete block and the position of each iter var in its indices. */
const BufferStoreNode* CompleteStore(const BlockNode* b, const char* prim, std::vector<int>* pos) {
  std::string name(b->name_hint);
  if (b->init.defined()) TVM_SCHEDULE_ERROR(prim) << "block \"" << name << "\" is a reduction";
  for (const IterVar& iv : b->iter_vars) {
    if (iv->kind != 0) TVM_SCHEDULE_ERROR(prim) << "block \"" << name << "\" has the reduction var " << std::string(iv->var->name);
  }
  auto* st = b->body.as<BufferStoreNode>();
  if (st == nullptr) TVM_SCHEDULE_ERROR(prim) << "the body of block \"" << name << "\" is not a single buffer store";
  pos->assign(b->iter_vars.size(), -1);
  for (size_t d = 0; d < st->indices.size(); ++d) {
    int found = -1;
    for (size_t i = 0; i < b->iter_vars.size(); ++i) {
      if (st->indices[d].same_as(b->iter_vars[i]->var)) found = static_cast<int>(i);
    }
    if (found < 0 || (*pos)[found] >= 0) {
      TVM_SCHEDULE_ERROR(prim) << "block \"" << name << "\" stores " << std::string(st->buffer->name)
                               << " at indices that are not distinct iter vars";
    }
    (*pos)[found] = static_cast<int>(d);
  }
  for (size_t i = 0; i < pos->size(); ++i) {
    if ((*pos)[i] < 0) {
      TVM_SCHEDULE_ERROR(prim) << "iter var " << std::string(b->iter_vars[i]->var->name) << " of block \"" << name
                               << "\" does not index the buffer it writes";
    }
  }
  return st;
}

/*! \brief Replaces every load of `buf` by `value` with the iter vars bound to the load's indices. */
class LoadInliner : public ExprMutator {
 public:
  LoadInliner(const BlockNode* producer, const BufferStoreNode* st, const std::vector<int>& pos)
      : p_(producer), st_(st), pos_(pos) {}
  PrimExpr VisitExpr(const PrimExpr& e) override {
    PrimExpr x = MutateExprChildren(e);
    auto* n = x.as<BufferLoadNode>();
    if (n == nullptr || !n->buffer.same_as(st_->buffer)) return x;
    VarMap m;
    for (size_t i = 0; i < p_->iter_vars.size(); ++i) m[p_->iter_vars[i]->var.get()] = n->indices[pos_[i]];
    changed = true;
    return Substitute(st_->value, m);
  }
  bool changed{false};

 private:
  const BlockNode* p_;
  const BufferStoreNode* st_;
  std::vector<int> pos_;
};

/*! \brief The iter var of `b` whose Var is `v`; undefined when `v` is none of them. */
IterVar IterVarOf(const BlockNode* b, const Object* v) {
  for (const IterVar& iv : b->iter_vars) {
    if (iv->var.get() == v) return iv;
  }
  return IterVar();
}

/*! \brief The extent of `iv` when its domain is [0, a constant), else -1: the index rewrites
 * below count the points an axis covers, which needs both ends known. */
int64_t ZeroBasedExtent(const IterVar& iv) {
  auto* mn = iv->min.as<IntImmNode>();
  auto* ex = iv->extent.as<IntImmNode>();
  return mn != nullptr && mn->value == 0 && ex != nullptr ? ex->value : -1;
}

/*! \brief `e` in the index type `t`: a constant is rewritten (so it still compares equal to a
 * constant of `t`), anything else cast. TE makes extents from Python ints int32, while the
 * other block's vars may be int64; TIR's binary ops take no mixed operands. */
PrimExpr AsIndex(DataType t, const PrimExpr& e) {
  if (auto* n = e.as<IntImmNode>()) return n->dtype == t ? e : IntImm(t, n->value);
  return MakeCast(t, e);
}

/*! \brief Splits `e` into coefficient * var terms (vars of `c`), e.g. h * 56 + w; false when
 * `e` has another form (a non-zero constant, a product of vars, a division...). */
bool AffineTerms(const PrimExpr& e, const BlockNode* c, int64_t scale, std::vector<std::pair<IterVar, int64_t>>* out) {
  if (auto* v = e.as<VarNode>()) {
    for (const IterVar& iv : c->iter_vars) {
      if (iv->var.get() == v) {
        out->emplace_back(iv, scale);
        return true;
      }
    }
    return false;
  }
  if (auto* n = e.as<IntImmNode>()) return n->value == 0;
  if (auto* n = e.as<AddNode>()) return AffineTerms(n->a, c, scale, out) && AffineTerms(n->b, c, scale, out);
  if (auto* n = e.as<MulNode>()) {
    if (auto* k = n->b.as<IntImmNode>()) return AffineTerms(n->a, c, scale * k->value, out);
    if (auto* k = n->a.as<IntImmNode>()) return AffineTerms(n->b, c, scale * k->value, out);
  }
  return false;
}

/*!
 * \brief C reads the link at one dimension through several of its iter vars fused in mixed
 * radix (a reshape: conv2d_pixels[n, h * 56 + w, c]) where the producer stores it at its iter
 * var P: each var becomes a digit of P (h = P // 56, w = P % 56) in `c_to_p`. The producer may
 * write more points along P than C reads (rows padded to a register tile: P < 3138 for
 * 56 * 56 = 3136 pixels); `guards` then gets P < 3136, so the inlined store skips them.
 */
void FusedIndex(const BlockNode* c, const BlockNode* p, const PrimExpr& pidx, const PrimExpr& cidx,
                const std::string& name, const Buffer& link, const char* prim, VarMap* c_to_p,
                std::vector<PrimExpr>* guards) {
  auto fail = [&](const char* why) {
    TVM_SCHEDULE_ERROR(prim) << "block \"" << name << "\" reads " << std::string(link->name)
                             << " at indices that are not distinct iter vars (" << why << ")";
  };
  std::vector<std::pair<IterVar, int64_t>> terms, digits;
  if (!AffineTerms(cidx, c, 1, &terms)) fail("not a sum of iter vars times constants");
  for (const auto& [iv, coeff] : terms) {
    const VarNode* v = iv->var.get();
    if (c_to_p->count(v)) fail("an iter var used twice");
    for (const auto& [other, k] : digits) {
      if (other->var.get() == v) fail("an iter var used twice");
    }
    int64_t extent = ZeroBasedExtent(iv);
    if (extent < 0 || coeff <= 0) fail("a symbolic or shifted domain");
    if (extent == 1) {
      (*c_to_p)[v] = iv->min;  // a unit axis: its one value
      continue;
    }
    digits.emplace_back(iv, coeff);
  }
  std::sort(digits.begin(), digits.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  // Mixed radix: the last digit steps by 1, each other by the span of the ones after it.
  int64_t span = 1;
  for (size_t k = digits.size(); k-- > 0;) {
    if (digits[k].second != span) fail("not a fused (mixed-radix) index");
    span *= ZeroBasedExtent(digits[k].first);
  }
  IterVar piv = IterVarOf(p, pidx.as<VarNode>());
  if (!piv.defined()) fail("the producer does not store that axis at one of its iter vars");
  int64_t pext = ZeroBasedExtent(piv);
  if (pext < span) {
    TVM_SCHEDULE_ERROR(prim) << "block \"" << name << "\" reads " << std::string(link->name)
                             << " beyond what the producer writes along the fused axis";
  }
  DataType t = piv->var.dtype();
  for (size_t k = 0; k < digits.size(); ++k) {
    const IterVar& iv = digits[k].first;
    PrimExpr q = digits[k].second == 1 ? PrimExpr(piv->var)
                                       : MakeBinary("tir.FloorDiv", piv->var, IntImm(t, digits[k].second));
    if (k > 0) q = MakeBinary("tir.FloorMod", q, IntImm(t, ZeroBasedExtent(iv)));
    (*c_to_p)[iv->var.get()] = iv->var.dtype() == t ? q : MakeCast(iv->var.dtype(), q);
  }
  if (pext > span) guards->push_back(MakeBinary("tir.LT", piv->var, IntImm(t, span)));
}

/*!
 * \brief C reads the link at two dimensions through one of its iter vars split by a constant,
 * [..., c // K, ..., c % K, ...] (a grouped convolution's output channel c = g * K + o read
 * back from a (groups, channels per group) product), where the producer stores those
 * dimensions at its iter vars G and O: c becomes G * K + O in `c_to_p`. The producer may
 * write more channels per group than C reads (O padded up to the tile's columns); `guards`
 * then gets O < K, and G * K + O < extent(c) where G's extent overshoots. Returns the
 * dimensions so mapped.
 */
std::vector<bool> SplitIndices(const BlockNode* c, const BlockNode* p, const BufferStoreNode* pst,
                               const Array<PrimExpr>& idx, VarMap* c_to_p, std::vector<PrimExpr>* guards) {
  std::vector<bool> done(idx.size(), false);
  for (size_t d1 = 0; d1 < idx.size(); ++d1) {
    auto* div = idx[d1].as<FloorDivNode>();
    if (div == nullptr) continue;
    auto* k = div->b.as<IntImmNode>();
    auto* v = div->a.as<VarNode>();
    if (k == nullptr || v == nullptr || k->value <= 0) continue;
    for (size_t d2 = 0; d2 < idx.size(); ++d2) {
      auto* mod = idx[d2].as<FloorModNode>();
      if (mod == nullptr || !mod->a.same_as(div->a) || mod->b.as<IntImmNode>() == nullptr ||
          mod->b.as<IntImmNode>()->value != k->value) {
        continue;
      }
      IterVar civ = IterVarOf(c, v);
      IterVar g = IterVarOf(p, pst->indices[d1].get()), o = IterVarOf(p, pst->indices[d2].get());
      if (!civ.defined() || !g.defined() || !o.defined() || c_to_p->count(v)) continue;
      int64_t ec = ZeroBasedExtent(civ), eg = ZeroBasedExtent(g), eo = ZeroBasedExtent(o);
      if (ec < 0 || eg < 0 || eo < 0) continue;
      if (eo < k->value || eg * k->value < ec) continue;  // C would read points never written
      DataType t = g->var.dtype();
      PrimExpr kk = IntImm(t, k->value);
      PrimExpr flat = Add(Mul(g->var, kk), o->var);
      (*c_to_p)[v] = civ->var.dtype() == t ? flat : MakeCast(civ->var.dtype(), flat);
      if (eo > k->value) guards->push_back(MakeBinary("tir.LT", o->var, kk));
      if (eg * k->value > ec) guards->push_back(MakeBinary("tir.LT", flat, IntImm(t, ec)));
      done[d1] = done[d2] = true;
      break;
    }
  }
  return done;
}

/*! \brief Does the block itself (not a block nested in it) load `buf`? */
bool ReadsBuffer(const BlockNode* b, const Buffer& buf) {
  class Finder : public ExprMutator {
   public:
    explicit Finder(const Object* buf) : buf_(buf) {}
    PrimExpr VisitExpr(const PrimExpr& e) override {
      if (auto* n = e.as<BufferLoadNode>(); n && n->buffer.get() == buf_) found = true;
      return found ? e : MutateExprChildren(e);
    }
    Stmt VisitStmt(const Stmt& s) override {
      if (found || s.as<BlockRealizeNode>()) return s;
      return MutateStmtChildren(s);
    }
    bool found{false};

   private:
    const Object* buf_;
  };
  Finder f(buf.get());
  f.VisitStmt(b->body);
  f.VisitStmt(b->init);
  return f.found;
}

PrimFunc ComputeInline(const PrimFunc& f, const std::string& name) {
  const char* prim = "compute_inline";
  StmtPath p = FindBlock(f, name, prim);
  const BlockRealizeNode* pr = p.leaf().as<BlockRealizeNode>();
  const BlockNode* b = pr->block.get();
  std::vector<int> pos;
  const BufferStoreNode* st = CompleteStore(b, prim, &pos);
  if (IsParamBuffer(f, st->buffer)) {
    TVM_SCHEDULE_ERROR(prim) << "block \"" << name << "\" writes " << std::string(st->buffer->name)
                             << ", an argument of the function: it cannot be inlined";
  }
  if (!IsConstTrue(pr->predicate)) TVM_SCHEDULE_ERROR(prim) << "block \"" << name << "\" has a predicate";
  for (const BlockRealizeNode* r : AllBlocks(f->body)) {
    if (r == pr) continue;
    for (const BufferRegion& w : r->block->writes) {
      if (w->buffer.same_as(st->buffer)) {
        TVM_SCHEDULE_ERROR(prim) << "block \"" << std::string(r->block->name_hint) << "\" also writes "
                                 << std::string(st->buffer->name);
      }
    }
  }
  PrimFunc out = Replace(f, pr, Stmt());
  std::vector<std::string> consumers;
  for (const BlockRealizeNode* r : AllBlocks(out->body)) {
    if (ReadsBuffer(r->block.get(), st->buffer)) consumers.push_back(std::string(r->block->name_hint));
  }
  for (const std::string& c : consumers) {
    const BlockNode* cb = FindBlock(out, c, prim).leaf().as<BlockRealizeNode>()->block.get();
    LoadInliner li(b, st, pos);
    Stmt body = li.VisitStmt(cb->body), init = li.VisitStmt(cb->init);
    Block nb = WithAccessRegions(MakeBlock(cb->iter_vars, {}, {}, c, body, init, cb->alloc_buffers, cb->annotations));
    out = Replace(out, cb, nb);
  }
  return RemoveAlloc(out, st->buffer);
}

PrimFunc ReverseComputeInline(const PrimFunc& f, const std::string& name) {
  const char* prim = "reverse_compute_inline";
  StmtPath cp = FindBlock(f, name, prim);
  const BlockRealizeNode* cr = cp.leaf().as<BlockRealizeNode>();
  const BlockNode* c = cr->block.get();
  if (c->init.defined()) TVM_SCHEDULE_ERROR(prim) << "block \"" << name << "\" is a reduction";
  auto* cst = c->body.as<BufferStoreNode>();
  if (cst == nullptr) TVM_SCHEDULE_ERROR(prim) << "the body of block \"" << name << "\" is not a single buffer store";
  if (!IsConstTrue(cr->predicate)) TVM_SCHEDULE_ERROR(prim) << "block \"" << name << "\" has a predicate";
  // The producer: the one block writing a buffer C reads.
  const BlockRealizeNode* pr = nullptr;
  Buffer link;
  for (const BlockRealizeNode* r : AllBlocks(f->body)) {
    if (r == cr) continue;
    for (const BufferRegion& w : r->block->writes) {
      if (ReadsBuffer(c, w->buffer)) {
        if (pr != nullptr && pr != r) {
          TVM_SCHEDULE_ERROR(prim) << "block \"" << name << "\" reads the output of more than one block";
        }
        pr = r;
        link = w->buffer;
      }
    }
  }
  if (pr == nullptr) TVM_SCHEDULE_ERROR(prim) << "block \"" << name << "\" reads no buffer written by another block";
  if (IsParamBuffer(f, link)) {
    TVM_SCHEDULE_ERROR(prim) << "the buffer " << std::string(link->name) << " between the blocks is an argument of the function";
  }
  for (const BlockRealizeNode* r : AllBlocks(f->body)) {
    if (r != cr && r != pr && ReadsBuffer(r->block.get(), link)) {
      TVM_SCHEDULE_ERROR(prim) << "block \"" << std::string(r->block->name_hint) << "\" also reads "
                               << std::string(link->name);
    }
  }
  const BlockNode* p = pr->block.get();
  if (p->init.defined()) TVM_SCHEDULE_ERROR(prim) << "the producer \"" << std::string(p->name_hint) << "\" is a reduction";
  std::vector<int> ppos;
  const BufferStoreNode* pst = CompleteStore(p, prim, &ppos);
  // C loads the link at one index u: distinct iter vars of C covering all of them.
  std::vector<Array<PrimExpr>> loads;
  CollectAccesses(c->body, link.get(), true, false, &loads);
  for (const Array<PrimExpr>& x : loads) {
    if (!StructuralEqual(Any(x), Any(loads[0]))) TVM_SCHEDULE_ERROR(prim) << "block \"" << name << "\" reads " << std::string(link->name) << " at more than one index";
  }
  VarMap c_to_p;
  std::vector<PrimExpr> guards;  // in the producer's iter vars: points it writes that C does not read
  std::vector<bool> split = SplitIndices(c, p, pst, loads[0], &c_to_p, &guards);
  for (size_t d = 0; d < loads[0].size(); ++d) {
    if (split[d]) continue;
    const VarNode* v = loads[0][d].as<VarNode>();
    if (v == nullptr) {
      FusedIndex(c, p, pst->indices[d], Simp(loads[0][d]), name, link, prim, &c_to_p, &guards);
      continue;
    }
    bool is_iv = false;
    for (const IterVar& iv : c->iter_vars) is_iv |= iv->var.get() == v;
    if (!is_iv || c_to_p.count(v)) {
      TVM_SCHEDULE_ERROR(prim) << "block \"" << name << "\" reads " << std::string(link->name) << " at indices that are not distinct iter vars";
    }
    // The consumer must visit exactly the points the producer writes.
    IterVar civ = IterVarOf(c, v), piv = IterVarOf(p, pst->indices[d].get());
    if (!civ.defined() || !piv.defined()) TVM_FFI_THROW(InternalError) << prim << ": iter var lookup failed";
    DataType t = piv->var.dtype();
    c_to_p[v] = AsIndex(civ->var.dtype(), piv->var);
    // The domains compared in the producer's index type: 0..6 of int32 is 0..6 of int64.
    PrimExpr cext = AsIndex(t, civ->extent);
    if (!StructuralEqual(Any(AsIndex(t, civ->min)), Any(piv->min)) || !StructuralEqual(Any(cext), Any(piv->extent))) {
      // A prefix of the producer's rows (a product over rows rounded up to the tile, then
      // the first M taken): both start at 0 and the producer covers the link's whole extent
      // there, so an in-bounds read of C's is one the producer wrote; the points past C's
      // extent are skipped by a guard.
      auto* cmin = civ->min.as<IntImmNode>();
      auto* pmin = piv->min.as<IntImmNode>();
      bool prefix = cmin && pmin && cmin->value == 0 && pmin->value == 0 && d < link->shape.size() &&
                    StructuralEqual(Any(piv->extent), Any(link->shape[d]));
      if (!prefix) {
        TVM_SCHEDULE_ERROR(prim) << "block \"" << name << "\" does not read all of " << std::string(link->name)
                                 << " (iter var " << std::string(civ->var->name) << " has another domain than the producer's)";
      }
      guards.push_back(MakeBinary("tir.LT", piv->var, cext));
    }
  }
  for (const IterVar& iv : c->iter_vars) {
    if (!c_to_p.count(iv->var.get())) {
      TVM_SCHEDULE_ERROR(prim) << "iter var " << std::string(iv->var->name) << " of block \"" << name << "\" does not index "
                               << std::string(link->name);
    }
  }
  class LinkReplacer : public ExprMutator {
   public:
    LinkReplacer(const Buffer& b, PrimExpr v) : b_(b), v_(std::move(v)) {}
    PrimExpr VisitExpr(const PrimExpr& e) override {
      if (auto* n = e.as<BufferLoadNode>(); n && n->buffer.same_as(b_)) return v_;
      return MutateExprChildren(e);
    }

   private:
    Buffer b_;
    PrimExpr v_;
  };
  PrimExpr value = Substitute(LinkReplacer(link, pst->value).VisitExpr(cst->value), c_to_p);
  Array<PrimExpr> idx;
  for (const PrimExpr& e : cst->indices) idx.push_back(Simp(Substitute(e, c_to_p)));
  for (const PrimExpr& e : idx) {
    for (const IterVar& iv : c->iter_vars) {
      if (UsesVar(e, iv->var.get())) TVM_SCHEDULE_ERROR(prim) << "internal: unmapped iter var";
    }
  }
  Stmt body = MakeBufferStore(cst->buffer, value, idx);
  std::string pname(p->name_hint);
  Block nb = WithAccessRegions(MakeBlock(p->iter_vars, {}, {}, pname, body, Stmt(), p->alloc_buffers, p->annotations));
  PrimFunc out = Replace(f, cr, Stmt());
  const BlockRealizeNode* pr2 = FindBlock(out, pname, prim).leaf().as<BlockRealizeNode>();
  // The guards speak of the producer's iter vars; the realize's predicate of its bindings.
  VarMap bind;
  for (size_t i = 0; i < p->iter_vars.size(); ++i) bind[p->iter_vars[i]->var.get()] = pr2->iter_values[i];
  std::vector<PrimExpr> pred{pr2->predicate};
  for (const PrimExpr& g : guards) pred.push_back(Simp(Substitute(g, bind)));
  out = Replace(out, pr2, MakeBlockRealize(pr2->iter_values, AndAll(pred), nb));
  return RemoveAlloc(out, link);
}

}  // namespace

TVM_FFI_STATIC_INIT_BLOCK() {
  RegisterCompilerGlobal("tir.schedule.ComputeInline", [](PrimFunc f, std::string b) { return ComputeInline(f, b); });
  RegisterCompilerGlobal("tir.schedule.ReverseComputeInline", [](PrimFunc f, std::string b) {
    return ReverseComputeInline(f, b);
  });
}

}  // namespace tir
}  // namespace tvm
