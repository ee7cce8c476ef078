/*
 * ExprMutator's generic child rebuilding.
 */
#include <tvm/ffi/error.h>
#include <tvm/tir/functor.h>

namespace tvm {

Array<PrimExpr> ExprMutator::VisitArray(const Array<PrimExpr>& arr, bool* changed) {
  Array<PrimExpr> out;
  for (const PrimExpr& e : arr) {
    PrimExpr n = VisitExpr(e);
    if (!n.same_as(e)) *changed = true;
    out.push_back(n);
  }
  return out;
}

Array<BufferRegion> ExprMutator::VisitRegions(const Array<BufferRegion>& regions, bool* changed) {
  Array<BufferRegion> out;
  for (const BufferRegion& r : regions) {
    bool c = false;
    Array<Range> rs;
    for (const Range& x : r->region) {
      PrimExpr mn = VisitExpr(x->min), ext = VisitExpr(x->extent);
      if (!mn.same_as(x->min) || !ext.same_as(x->extent)) c = true;
      rs.push_back(c ? Range(mn, ext) : x);
    }
    if (c) *changed = true;
    out.push_back(c ? BufferRegion(r->buffer, rs) : r);
  }
  return out;
}

PrimExpr ExprMutator::MutateExprChildren(const PrimExpr& e) {
  if (!e.defined()) return e;
#define TVM_MUTATE_BIN(Name)                                            \
  if (auto* n = e.as<Name##Node>()) {                                   \
    PrimExpr a = VisitExpr(n->a), b = VisitExpr(n->b);                  \
    if (a.same_as(n->a) && b.same_as(n->b)) return e;                   \
    return MakeBinary("tir." #Name, a, b);                              \
  }
  TVM_MUTATE_BIN(Add)
  TVM_MUTATE_BIN(Sub)
  TVM_MUTATE_BIN(Mul)
  TVM_MUTATE_BIN(Div)
  TVM_MUTATE_BIN(Mod)
  TVM_MUTATE_BIN(FloorDiv)
  TVM_MUTATE_BIN(FloorMod)
  TVM_MUTATE_BIN(Min)
  TVM_MUTATE_BIN(Max)
  TVM_MUTATE_BIN(EQ)
  TVM_MUTATE_BIN(NE)
  TVM_MUTATE_BIN(LT)
  TVM_MUTATE_BIN(LE)
  TVM_MUTATE_BIN(GT)
  TVM_MUTATE_BIN(GE)
  TVM_MUTATE_BIN(And)
  TVM_MUTATE_BIN(Or)
#undef TVM_MUTATE_BIN
  if (auto* n = e.as<NotNode>()) {
    PrimExpr a = VisitExpr(n->a);
    return a.same_as(n->a) ? e : MakeNot(a);
  }
  if (auto* n = e.as<SelectNode>()) {
    PrimExpr c = VisitExpr(n->condition), t = VisitExpr(n->true_value), f = VisitExpr(n->false_value);
    if (c.same_as(n->condition) && t.same_as(n->true_value) && f.same_as(n->false_value)) return e;
    return MakeSelect(c, t, f);
  }
  if (auto* n = e.as<CastNode>()) {
    PrimExpr v = VisitExpr(n->value);
    return v.same_as(n->value) ? e : MakeCast(n->dtype, v);
  }
  if (auto* n = e.as<CallNode>()) {
    bool changed = false;
    Array<PrimExpr> args = VisitArray(n->args, &changed);
    return changed ? MakeCall(n->dtype, std::string(n->op), args) : e;
  }
  if (auto* n = e.as<RampNode>()) {
    PrimExpr b = VisitExpr(n->base), s = VisitExpr(n->stride);
    return b.same_as(n->base) && s.same_as(n->stride) ? e : MakeRamp(b, s, n->lanes);
  }
  if (auto* n = e.as<BroadcastNode>()) {
    PrimExpr v = VisitExpr(n->value);
    return v.same_as(n->value) ? e : MakeBroadcast(v, n->lanes);
  }
  if (auto* n = e.as<LetNode>()) {
    PrimExpr v = VisitExpr(n->value), b = VisitExpr(n->body);
    if (v.same_as(n->value) && b.same_as(n->body)) return e;
    ObjectPtr<LetNode> m = make_object<LetNode>();
    m->dtype = b.dtype();
    m->var = n->var;
    m->value = v;
    m->body = b;
    return PrimExpr(m);
  }
  if (auto* n = e.as<BufferLoadNode>()) {
    bool changed = false;
    Array<PrimExpr> idx = VisitArray(n->indices, &changed);
    return changed ? MakeBufferLoad(n->buffer, idx) : e;
  }
  if (auto* n = e.as<ReduceNode>()) {
    PrimExpr src = VisitExpr(n->source);
    PrimExpr cond = VisitExpr(n->condition);
    if (src.same_as(n->source) && cond.same_as(n->condition)) return e;
    ObjectPtr<ReduceNode> m = make_object<ReduceNode>();
    m->combiner = n->combiner;
    m->axis = n->axis;
    m->source = src;
    m->condition = cond;
    m->dtype = src.dtype();
    return PrimExpr(m);
  }
  return e;  // leaves: IntImm, FloatImm, StringImm, Var
}

Stmt ExprMutator::MutateStmtChildren(const Stmt& s) {
  if (!s.defined()) return s;
  if (auto* n = s.as<ForNode>()) {
    PrimExpr mn = VisitExpr(n->min), ext = VisitExpr(n->extent);
    Stmt body = VisitStmt(n->body);
    if (mn.same_as(n->min) && ext.same_as(n->extent) && body.same_as(n->body)) return s;
    return MakeFor(n->loop_var, mn, ext, n->kind, body, std::string(n->thread_tag), n->annotations);
  }
  if (auto* n = s.as<BufferStoreNode>()) {
    bool changed = false;
    PrimExpr v = VisitExpr(n->value);
    Array<PrimExpr> idx = VisitArray(n->indices, &changed);
    if (!changed && v.same_as(n->value)) return s;
    return MakeBufferStore(n->buffer, v, idx);
  }
  if (auto* n = s.as<LetStmtNode>()) {
    PrimExpr v = VisitExpr(n->value);
    Stmt b = VisitStmt(n->body);
    return v.same_as(n->value) && b.same_as(n->body) ? s : MakeLetStmt(n->var, v, b);
  }
  if (auto* n = s.as<IfThenElseNode>()) {
    PrimExpr c = VisitExpr(n->condition);
    Stmt t = VisitStmt(n->then_case), f = VisitStmt(n->else_case);
    if (c.same_as(n->condition) && t.same_as(n->then_case) && f.same_as(n->else_case)) return s;
    return MakeIfThenElse(c, t, f);
  }
  if (auto* n = s.as<SeqStmtNode>()) {
    bool changed = false;
    Array<Stmt> seq;
    for (const Stmt& x : n->seq) {
      Stmt y = VisitStmt(x);
      if (!y.same_as(x)) changed = true;
      seq.push_back(y);
    }
    if (!changed) return s;
    ObjectPtr<SeqStmtNode> m = make_object<SeqStmtNode>();
    m->seq = seq;
    return Stmt(m);
  }
  if (auto* n = s.as<AllocateNode>()) {
    Stmt b = VisitStmt(n->body);
    return b.same_as(n->body) ? s : MakeAllocate(n->buffer, b);
  }
  if (auto* n = s.as<EvaluateNode>()) {
    PrimExpr v = VisitExpr(n->value);
    return v.same_as(n->value) ? s : MakeEvaluate(v);
  }
  if (auto* n = s.as<AssertStmtNode>()) {
    PrimExpr c = VisitExpr(n->condition);
    Stmt b = VisitStmt(n->body);
    if (c.same_as(n->condition) && b.same_as(n->body)) return s;
    return MakeAssert(c, std::string(n->kind), std::string(n->message), b);
  }
  if (auto* n = s.as<BlockRealizeNode>()) {
    bool changed = false;
    Array<PrimExpr> values = VisitArray(n->iter_values, &changed);
    PrimExpr pred = VisitExpr(n->predicate);
    Stmt b = VisitStmt(n->block);
    if (!changed && pred.same_as(n->predicate) && b.same_as(n->block)) return s;
    return MakeBlockRealize(values, pred, UncheckedCast<Block>(b));
  }
  if (auto* n = s.as<BlockNode>()) {
    bool changed = false;
    Array<IterVar> ivs;
    for (const IterVar& iv : n->iter_vars) {
      PrimExpr mn = VisitExpr(iv->min), ext = VisitExpr(iv->extent);
      if (mn.same_as(iv->min) && ext.same_as(iv->extent)) {
        ivs.push_back(iv);
      } else {
        changed = true;
        ivs.push_back(MakeIterVar(iv->var, mn, ext, iv->kind));
      }
    }
    Array<BufferRegion> reads = VisitRegions(n->reads, &changed);
    Array<BufferRegion> writes = VisitRegions(n->writes, &changed);
    Stmt init = VisitStmt(n->init), body = VisitStmt(n->body);
    if (!changed && init.same_as(n->init) && body.same_as(n->body)) return s;
    return MakeBlock(ivs, reads, writes, std::string(n->name_hint), body, init, n->alloc_buffers,
                     n->annotations);
  }
  TVM_FFI_THROW(ValueError) << "ExprMutator: unsupported statement " << s.GetTypeKey();
}

namespace {
class PostOrder : public ExprMutator {
 public:
  explicit PostOrder(const std::function<Stmt(const Stmt&)>& f) : f_(f) {}
  PrimExpr VisitExpr(const PrimExpr& e) override { return e; }
  Stmt VisitStmt(const Stmt& s) override { return s.defined() ? f_(MutateStmtChildren(s)) : s; }

 private:
  const std::function<Stmt(const Stmt&)>& f_;
};
}  // namespace

Stmt PostOrderRewrite(const Stmt& s, const std::function<Stmt(const Stmt&)>& f) { return PostOrder(f).VisitStmt(s); }

}  // namespace tvm
