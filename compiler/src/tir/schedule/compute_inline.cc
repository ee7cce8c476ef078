/*
 * compute_inline / reverse_compute_inline: remove an elementwise (injective) stage by
 * substituting its expression into its consumers, or its consumer's expression into it.
 *
 * A block qualifies when its body is one store `W[v_a, v_b, ...] = e` whose indices are
 * distinct iter vars covering all of them (every point of W is written once, from the
 * block's own point), with no init and only spatial vars. The buffer that disappears must
 * be an intermediate (not a function argument).
 */
#include <tvm/ir/structural.h>

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
  for (size_t d = 0; d < loads[0].size(); ++d) {
    const VarNode* v = loads[0][d].as<VarNode>();
    bool is_iv = false;
    for (const IterVar& iv : c->iter_vars) is_iv |= iv->var.get() == v;
    if (!is_iv || c_to_p.count(v)) {
      TVM_SCHEDULE_ERROR(prim) << "block \"" << name << "\" reads " << std::string(link->name) << " at indices that are not distinct iter vars";
    }
    c_to_p[v] = pst->indices[d];
    // The consumer must visit exactly the points the producer writes.
    IterVar civ, piv;  // by value: Array iteration yields temporaries
    for (const IterVar& iv : c->iter_vars) {
      if (iv->var.get() == v) civ = iv;
    }
    for (const IterVar& iv : p->iter_vars) {
      if (iv->var.same_as(pst->indices[d])) piv = iv;
    }
    if (!civ.defined() || !piv.defined()) TVM_FFI_THROW(InternalError) << prim << ": iter var lookup failed";
    if (!StructuralEqual(Any(civ->min), Any(piv->min)) || !StructuralEqual(Any(civ->extent), Any(piv->extent))) {
      TVM_SCHEDULE_ERROR(prim) << "block \"" << name << "\" does not read all of " << std::string(link->name)
                               << " (iter var " << std::string(civ->var->name) << " has another domain than the producer's)";
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
  const BlockNode* p2 = FindBlock(out, pname, prim).leaf().as<BlockRealizeNode>()->block.get();
  out = Replace(out, p2, nb);
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
