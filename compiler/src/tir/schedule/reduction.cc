/*
 * Reduction primitives: decompose_reduction (the init becomes a block of its own before a
 * loop) and rfactor (a reduction loop becomes a spatial dimension of partial results, then a
 * second block combines them).
 */
#include "../../support/registry.h"
#include "utils.h"

#include <tvm/ir/structural.h>

namespace tvm {
namespace tir {
namespace {

/*! \brief The conjuncts of `e` that are not constant true. */
std::vector<PrimExpr> NonTrivialConjuncts(const PrimExpr& e) {
  std::vector<PrimExpr> all, out;
  Conjuncts(e, &all);
  for (const PrimExpr& c : all) {
    if (!IsConstTrue(c)) out.push_back(c);
  }
  return out;
}

// The conjuncts of `pred` that use only vars in `keep` (after substitution by `m`); loops not
// copied (reduction loops) must not leak into the new predicate.
PrimExpr KeepPredicate(const PrimExpr& pred, const std::vector<const ForNode*>& dropped, const VarMap& m) {
  std::vector<PrimExpr> out;
  for (const PrimExpr& c : NonTrivialConjuncts(pred)) {
    bool uses = false;
    for (const ForNode* l : dropped) uses |= UsesVar(c, l->loop_var.get());
    if (!uses) out.push_back(Substitute(c, m));
  }
  return AndAll(out);
}

Array<Any> DecomposeReduction(const PrimFunc& f, const std::string& name, const Var& loop_var) {
  const char* prim = "decompose_reduction";
  StmtPath p = FindBlock(f, name, prim);
  const BlockRealizeNode* r = p.leaf().as<BlockRealizeNode>();
  const BlockNode* b = r->block.get();
  if (!b->init.defined()) TVM_SCHEDULE_ERROR(prim) << "block \"" << name << "\" has no init (not a reduction, or already decomposed)";
  std::vector<const ForNode*> loops = p.Loops();
  size_t at = loops.size();
  for (size_t k = 0; k < loops.size(); ++k) {
    if (loops[k]->loop_var.same_as(loop_var)) at = k;
  }
  if (at == loops.size()) TVM_SCHEDULE_ERROR(prim) << "loop " << std::string(loop_var->name) << " is not a loop of block \"" << name << "\"";
  // As in TVM: `loop` must be above every loop the reduction vars depend on.
  for (size_t k = 0; k < at; ++k) {
    for (size_t i = 0; i < b->iter_vars.size(); ++i) {
      if (b->iter_vars[i]->kind == 2 && UsesVar(r->iter_values[i], loops[k]->loop_var.get())) {
        TVM_SCHEDULE_ERROR(prim) << "loop " << std::string(loop_var->name) << " must be above the reduction loop "
                                 << std::string(loops[k]->loop_var->name) << " of block \"" << name << "\"";
      }
    }
  }
  // Spatial iter vars and the loops (from `loop` down) their bindings use.
  Array<IterVar> ivs;
  Array<PrimExpr> spatial_values;
  VarMap to_new_iv;
  for (size_t i = 0; i < b->iter_vars.size(); ++i) {
    const IterVar& iv = b->iter_vars[i];
    if (iv->kind != 0) continue;
    Var nv(std::string(iv->var->name) + "_init", iv->var->dtype);
    ivs.push_back(MakeIterVar(nv, iv->min, iv->extent, 0));
    to_new_iv[iv->var.get()] = nv;
    spatial_values.push_back(r->iter_values[i]);
  }
  std::vector<const ForNode*> copied, dropped;
  VarMap to_new_loop;
  std::vector<Var> new_loops;
  for (size_t k = at; k < loops.size(); ++k) {
    bool used = false;
    for (const PrimExpr& v : spatial_values) used |= UsesVar(v, loops[k]->loop_var.get());
    if (used) {
      copied.push_back(loops[k]);
      Var nl(std::string(loops[k]->loop_var->name) + "_init", loops[k]->loop_var->dtype);
      new_loops.push_back(nl);
      to_new_loop[loops[k]->loop_var.get()] = nl;
    } else {
      dropped.push_back(loops[k]);
    }
  }
  Array<PrimExpr> values;
  for (const PrimExpr& v : spatial_values) values.push_back(Substitute(v, to_new_loop));
  Stmt init_body = Substitute(b->init, to_new_iv);
  std::string init_name = FreshBlockName(f, name + "_init");
  Block ib = WithAccessRegions(MakeBlock(ivs, {}, {}, init_name, init_body, Stmt(), {}, {}));
  Stmt nest = MakeBlockRealize(values, KeepPredicate(r->predicate, dropped, to_new_loop), ib);
  for (size_t k = copied.size(); k-- > 0;) {
    const ForNode* l = copied[k];
    nest = MakeFor(new_loops[k], Substitute(l->min, to_new_loop), Substitute(l->extent, to_new_loop), l->kind, nest,
                   std::string(l->thread_tag));
  }
  Block nb = MakeBlock(b->iter_vars, b->reads, b->writes, name, b->body, Stmt(), b->alloc_buffers, b->annotations);
  PrimFunc out = Replace(f, b, nb);
  StmtPath lp = FindLoop(out, loop_var, prim);
  out = Replace(out, lp.leaf().get(), MakeSeq({nest, lp.leaf()}));
  return Array<Any>{out, String(init_name)};
}

// The combiner of a reduction update `C[idx] = C[idx] <op> rhs` (either operand order).
struct Update {
  std::string op;  // tir.Add / tir.Mul / tir.Max / tir.Min
  PrimExpr rhs;
  PrimExpr guard;  // the where= condition (IfThenElse around the store), or undefined
  const BufferStoreNode* store;
};

bool MatchUpdate(const Stmt& body, Update* u) {
  Stmt s = body;
  if (auto* i = s.as<IfThenElseNode>(); i && !i->else_case.defined()) {
    u->guard = i->condition;
    s = i->then_case;
  }
  auto* st = s.as<BufferStoreNode>();
  if (st == nullptr) return false;
  auto self = [&](const PrimExpr& e) {
    auto* l = e.as<BufferLoadNode>();
    return l && l->buffer.same_as(st->buffer) && StructuralEqual(Any(l->indices), Any(st->indices));
  };
  const char* ops[] = {"tir.Add", "tir.Mul", "tir.Max", "tir.Min"};
  for (const char* op : ops) {
    PrimExpr a, b;
    if (std::string(op) == "tir.Add") {
      if (auto* n = st->value.as<AddNode>()) a = n->a, b = n->b;
    } else if (std::string(op) == "tir.Mul") {
      if (auto* n = st->value.as<MulNode>()) a = n->a, b = n->b;
    } else if (std::string(op) == "tir.Max") {
      if (auto* n = st->value.as<MaxNode>()) a = n->a, b = n->b;
    } else if (auto* n = st->value.as<MinNode>()) {
      a = n->a, b = n->b;
    }
    if (!a.defined()) continue;
    if (self(a) && !self(b)) {
      u->op = op, u->rhs = b, u->store = st;
      return true;
    }
    if (self(b) && !self(a)) {
      u->op = op, u->rhs = a, u->store = st;
      return true;
    }
  }
  return false;
}

Array<Any> RFactor(const PrimFunc& f, const Var& loop_var, int64_t factor_axis) {
  const char* prim = "rfactor";
  StmtPath lp = FindLoop(f, loop_var, prim);
  const ForNode* rl = lp.leaf().as<ForNode>();
  std::vector<const BlockRealizeNode*> under = AllBlocks(rl->body);
  if (under.size() != 1) TVM_SCHEDULE_ERROR(prim) << "loop " << std::string(loop_var->name) << " must contain exactly one block";
  const BlockRealizeNode* r = under[0];
  const BlockNode* b = r->block.get();
  std::string name(b->name_hint);
  Update u;
  if (!b->init.defined() || !MatchUpdate(b->body, &u)) {
    TVM_SCHEDULE_ERROR(prim) << "block \"" << name << "\" is not a reduction with an init and a body C[...] = C[...] op x";
  }
  auto* init_store = b->init.as<BufferStoreNode>();
  if (init_store == nullptr) TVM_SCHEDULE_ERROR(prim) << "block \"" << name << "\": init must be one store";
  StmtPath bp = FindBlock(f, name, prim);
  std::vector<const ForNode*> loops = bp.Loops();
  // The rfactor loop must be bound to reduction vars only; which loops feed the reduce vars.
  bool in_reduce = false;
  for (size_t i = 0; i < b->iter_vars.size(); ++i) {
    bool uses = UsesVar(r->iter_values[i], loop_var.get());
    if (uses && b->iter_vars[i]->kind == 0) {
      TVM_SCHEDULE_ERROR(prim) << "loop " << std::string(loop_var->name) << " is bound to the spatial var "
                               << std::string(b->iter_vars[i]->var->name) << " of block \"" << name << "\"";
    }
    in_reduce |= uses;
  }
  if (!in_reduce) TVM_SCHEDULE_ERROR(prim) << "loop " << std::string(loop_var->name) << " is not a reduction loop of block \"" << name << "\"";
  Buffer out = u.store->buffer;
  int64_t nd = static_cast<int64_t>(out->shape.size());
  int64_t axis = factor_axis < 0 ? factor_axis + nd + 1 : factor_axis;
  if (axis < 0 || axis > nd) TVM_SCHEDULE_ERROR(prim) << "factor_axis " << factor_axis << " is out of range for " << nd << " dimensions";
  DataType lt = loop_var->dtype;
  Array<PrimExpr> rf_shape;
  for (int64_t d = 0; d <= nd; ++d) {
    if (d == axis) rf_shape.push_back(rl->extent);
    if (d < nd) rf_shape.push_back(out->shape[d]);
  }
  std::string rf_name_buf = std::string(out->name) + "_rf";
  Buffer rf = MakeBufferLike(out, rf_name_buf, rf_shape, std::string(out->scope));
  // rf block: spatial vars kept, a spatial var for the rfactor loop, a reduce var per other
  // loop feeding the reduce vars; the old reduce vars become expressions of those.
  Array<IterVar> ivs;
  Array<PrimExpr> values;
  VarMap loop_to_var;
  Var vrf("v" + std::string(loop_var->name), lt);
  loop_to_var[loop_var.get()] = vrf;
  for (size_t i = 0; i < b->iter_vars.size(); ++i) {
    if (b->iter_vars[i]->kind == 0) {
      ivs.push_back(b->iter_vars[i]);
      values.push_back(r->iter_values[i]);
    }
  }
  ivs.push_back(MakeIterVar(vrf, rl->min, rl->extent, 0));
  values.push_back(loop_var);
  for (const ForNode* l : loops) {
    if (l == rl) continue;
    bool feeds = false;
    for (size_t i = 0; i < b->iter_vars.size(); ++i) {
      if (b->iter_vars[i]->kind == 2) feeds |= UsesVar(r->iter_values[i], l->loop_var.get());
    }
    if (!feeds) continue;
    for (size_t i = 0; i < b->iter_vars.size(); ++i) {
      if (b->iter_vars[i]->kind == 0 && UsesVar(r->iter_values[i], l->loop_var.get())) {
        TVM_SCHEDULE_ERROR(prim) << "loop " << std::string(l->loop_var->name) << " is bound to both the spatial var "
                                 << std::string(b->iter_vars[i]->var->name)
                                 << " and a reduction var of block \"" << name << "\" (fused across them)";
      }
    }
    Var v("v" + std::string(l->loop_var->name), l->loop_var->dtype);
    ivs.push_back(MakeIterVar(v, l->min, l->extent, 2));
    values.push_back(l->loop_var);
    loop_to_var[l->loop_var.get()] = v;
  }
  VarMap old_reduce;
  for (size_t i = 0; i < b->iter_vars.size(); ++i) {
    if (b->iter_vars[i]->kind == 2) old_reduce[b->iter_vars[i]->var.get()] = Substitute(r->iter_values[i], loop_to_var);
  }
  Array<PrimExpr> rf_idx;
  for (int64_t d = 0; d <= nd; ++d) {
    if (d == axis) rf_idx.push_back(vrf);
    if (d < nd) rf_idx.push_back(u.store->indices[d]);
  }
  PrimExpr rhs = Substitute(u.rhs, old_reduce);
  Stmt rf_body = MakeBufferStore(rf, MakeBinary(u.op, MakeBufferLoad(rf, rf_idx), rhs), rf_idx);
  // Predicate terms on the reduction loops (split tails) become a guard of the update, so
  // every partial runs its init: a partial with no points must hold the identity.
  std::vector<PrimExpr> keep_pred, guard;
  for (const PrimExpr& c : NonTrivialConjuncts(r->predicate)) {
    bool on_reduce = false;
    for (const auto& kv : loop_to_var) on_reduce |= UsesVar(c, kv.first);
    (on_reduce ? guard : keep_pred).push_back(c);
  }
  if (u.guard.defined()) guard.push_back(Substitute(u.guard, old_reduce));
  for (PrimExpr& g : guard) g = Substitute(g, loop_to_var);
  if (!guard.empty()) rf_body = MakeIfThenElse(AndAll(guard), rf_body, Stmt());
  Stmt rf_init = MakeBufferStore(rf, init_store->value, rf_idx);
  std::string rf_block = FreshBlockName(f, name + "_rf");
  Block rfb = WithAccessRegions(MakeBlock(ivs, {}, {}, rf_block, rf_body, rf_init, {}, b->annotations));
  // Where the write-back goes: after the outermost of the block's loops that holds no other
  // reader of the output (a consumer moved into a shared loop by compute_at must come after
  // the write-back). Loops above it are shared: the write-back uses their variables as they
  // are; it copies the loops from there down that it needs (spatial ones and the rf loop).
  size_t top_at = loops.size();
  for (size_t k = 0; k < loops.size(); ++k) {
    bool reader = false;
    for (const BlockRealizeNode* o : AllBlocks(loops[k]->body)) {
      if (o == r) continue;
      std::vector<Array<PrimExpr>> acc;
      CollectAccesses(o->block->body, out.get(), true, false, &acc);
      reader |= !acc.empty();
    }
    if (!reader) {
      top_at = k;
      break;
    }
  }
  if (top_at == loops.size() || loops.size() == 0) {
    TVM_SCHEDULE_ERROR(prim) << "a reader of " << std::string(out->name) << " sits under every loop of block \"" << name << "\"";
  }
  for (size_t k = 0; k < top_at; ++k) {
    for (size_t i = 0; i < b->iter_vars.size(); ++i) {
      if (b->iter_vars[i]->kind == 2 && UsesVar(r->iter_values[i], loops[k]->loop_var.get())) {
        TVM_SCHEDULE_ERROR(prim) << "reduction loop " << std::string(loops[k]->loop_var->name)
                                 << " also holds a reader of " << std::string(out->name);
      }
    }
  }
  // Write-back block: copies of the loops bound to spatial vars and of the rfactor loop.
  std::vector<const ForNode*> kept;
  std::vector<const ForNode*> dropped;
  for (size_t k = top_at; k < loops.size(); ++k) {
    const ForNode* l = loops[k];
    bool spatial = l == rl;
    for (size_t i = 0; i < b->iter_vars.size(); ++i) {
      if (b->iter_vars[i]->kind == 0) spatial |= UsesVar(r->iter_values[i], l->loop_var.get());
    }
    (spatial ? kept : dropped).push_back(l);
  }
  VarMap copy;
  std::vector<Var> new_loops;
  for (const ForNode* l : kept) {
    Var nv(std::string(l->loop_var->name), l->loop_var->dtype);
    new_loops.push_back(nv);
    copy[l->loop_var.get()] = nv;
  }
  Array<IterVar> wivs;
  Array<PrimExpr> wvalues;
  VarMap wsub;
  for (size_t i = 0; i < b->iter_vars.size(); ++i) {
    const IterVar& iv = b->iter_vars[i];
    if (iv->kind != 0) continue;
    Var nv(std::string(iv->var->name), iv->var->dtype);
    wivs.push_back(MakeIterVar(nv, iv->min, iv->extent, 0));
    wvalues.push_back(Substitute(r->iter_values[i], copy));
    wsub[iv->var.get()] = nv;
  }
  Var wrf("v" + std::string(loop_var->name), lt);
  wivs.push_back(MakeIterVar(wrf, rl->min, rl->extent, 2));
  wvalues.push_back(copy.at(loop_var.get()));
  Array<PrimExpr> widx, wrf_idx;
  for (const PrimExpr& e : u.store->indices) widx.push_back(Substitute(e, wsub));
  for (int64_t d = 0; d <= nd; ++d) {
    if (d == axis) wrf_idx.push_back(wrf);
    if (d < nd) wrf_idx.push_back(widx[d]);
  }
  Stmt wbody = MakeBufferStore(out, MakeBinary(u.op, MakeBufferLoad(out, widx), MakeBufferLoad(rf, wrf_idx)), widx);
  Stmt winit = MakeBufferStore(out, Substitute(init_store->value, wsub), widx);
  Block wb = WithAccessRegions(MakeBlock(wivs, {}, {}, name, wbody, winit, {}, {}));
  Stmt wnest = MakeBlockRealize(wvalues, KeepPredicate(r->predicate, dropped, copy), wb);
  for (size_t k = kept.size(); k-- > 0;) {
    wnest = MakeFor(new_loops[k], Substitute(kept[k]->min, copy), Substitute(kept[k]->extent, copy), 0, wnest);
  }
  // The rf block replaces the original in place; the write-back nest follows loops[top_at].
  PrimFunc res = Replace(f, r, MakeBlockRealize(values, AndAll(keep_pred), rfb));
  StmtPath top = FindLoop(res, loops[top_at]->loop_var, prim);
  res = Replace(res, top.leaf().get(), MakeSeq({top.leaf(), wnest}));
  return Array<Any>{AddRootAlloc(res, rf), String(rf_block)};
}

}  // namespace

TVM_FFI_STATIC_INIT_BLOCK() {
  RegisterCompilerGlobal("tir.schedule.DecomposeReduction", [](PrimFunc f, std::string block, Var loop) {
    return DecomposeReduction(f, block, loop);
  });
  RegisterCompilerGlobal("tir.schedule.RFactor", [](PrimFunc f, Var loop, int64_t factor_axis) {
    return RFactor(f, loop, factor_axis);
  });
}

}  // namespace tir
}  // namespace tvm
