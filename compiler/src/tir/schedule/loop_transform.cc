/*
 * Loop transformations: split (any number of factors, one may be None), fuse (a chain of
 * loops), reorder (any loops of one chain), and the loop kinds (parallel, vectorize, unroll,
 * bind) and annotations. Blocks make these local: loop variables appear only in block
 * bindings and predicates, so a split that does not divide adds a predicate to the blocks
 * under it, and reordering needs no more than a chain of single-child loops.
 */
#include "../../support/registry.h"
#include "utils.h"

namespace tvm {
namespace tir {
namespace {

const ForNode* AsLoop(const StmtPath& p) { return p.leaf().as<ForNode>(); }

std::string LoopName(const Var& v) { return std::string(v->name); }

/*! \brief Adds `cond` to the predicate of every block realized under `s`. */
class PredicateAdder : public ExprMutator {
 public:
  explicit PredicateAdder(PrimExpr cond) : cond_(std::move(cond)) {}
  PrimExpr VisitExpr(const PrimExpr& e) override { return e; }
  Stmt VisitStmt(const Stmt& s) override {
    if (auto* r = s.as<BlockRealizeNode>()) {
      return MakeBlockRealize(r->iter_values, AndAll({r->predicate, cond_}), r->block);
    }
    return MutateStmtChildren(s);
  }

 private:
  PrimExpr cond_;
};

/*!
 * \brief Whether a symbolic extent is a multiple of `known`: it is written floordiv(x, c) * c
 * (a dimension rounded up to a multiple of c, e.g. a dynamic batch padded to a register
 * tile's rows) and `known` divides c. A split by such factors needs no predicate.
 */
bool SymbolicMultipleOf(const PrimExpr& extent, int64_t known) {
  const auto* mul = extent.as<MulNode>();
  if (mul == nullptr) return false;
  const int64_t* c = AsConstInt(mul->b);
  const auto* div = mul->a.as<FloorDivNode>();
  if (c == nullptr || div == nullptr || *c <= 0 || *c % known != 0) return false;
  const int64_t* d = AsConstInt(div->b);
  return d != nullptr && *d == *c;
}

Array<Any> Split(const PrimFunc& f, const Var& loop, const Array<Any>& factors) {
  const char* prim = "split";
  StmtPath p = FindLoop(f, loop, prim);
  const ForNode* n = AsLoop(p);
  if (factors.size() < 2) TVM_SCHEDULE_ERROR(prim) << "needs at least two factors, got " << factors.size();
  DataType t = n->loop_var->dtype;
  int none_at = -1;
  int64_t known = 1;
  std::vector<int64_t> fs(factors.size(), 0);
  for (size_t k = 0; k < factors.size(); ++k) {
    if (factors[k].is_none()) {
      if (none_at >= 0) TVM_SCHEDULE_ERROR(prim) << "at most one factor may be None";
      none_at = static_cast<int>(k);
      continue;
    }
    std::optional<int64_t> v = factors[k].as<int64_t>();
    if (!v.has_value()) {
      if (auto e = factors[k].as<PrimExpr>()) {
        if (const int64_t* c = AsConstInt(*e)) v = *c;
      }
    }
    if (!v.has_value() || *v <= 0) {
      TVM_SCHEDULE_ERROR(prim) << "factors of loop " << LoopName(loop) << " must be positive integers or None";
    }
    fs[k] = *v;
    known *= *v;
  }
  const int64_t* ce = AsConstInt(n->extent);
  std::vector<PrimExpr> exts;
  for (size_t k = 0; k < factors.size(); ++k) {
    if (static_cast<int>(k) == none_at) {
      exts.push_back(ce ? IntImm(t, (*ce + known - 1) / known)
                        : Simp(MakeBinary("tir.FloorDiv", Add(n->extent, IntImm(t, known - 1)), IntImm(t, known))));
    } else {
      exts.push_back(IntImm(t, fs[k]));
    }
  }
  if (none_at < 0 && ce && known < *ce) {
    TVM_SCHEDULE_ERROR(prim) << "the factors of loop " << LoopName(loop) << " multiply to " << known
                             << ", less than its extent " << *ce;
  }
  std::vector<Var> vars;
  PrimExpr fused;
  for (size_t k = 0; k < factors.size(); ++k) {
    vars.emplace_back(LoopName(loop) + "_" + std::to_string(k), t);
    fused = fused.defined() ? Add(Mul(fused, exts[k]), vars[k]) : PrimExpr(vars[k]);
  }
  Stmt body = Substitute(n->body, {{n->loop_var.get(), Simp(Add(n->min, fused))}});
  bool divides = false;
  if (ce) {
    int64_t prod = 1;
    for (const PrimExpr& e : exts) prod *= *AsConstInt(e);
    divides = prod == *ce;
  } else if (none_at >= 0 && SymbolicMultipleOf(n->extent, known)) {
    divides = true;  // the None factor's extent, ceil(extent / known), is then exact
  }
  if (!divides) body = PredicateAdder(MakeBinary("tir.LT", fused, n->extent)).VisitStmt(body);
  for (size_t k = factors.size(); k-- > 0;) body = MakeFor(vars[k], IntImm(t, 0), exts[k], 0, body);
  Array<Var> out;
  for (const Var& v : vars) out.push_back(v);
  return Array<Any>{Replace(f, n, body), out};
}

Array<Any> Fuse(const PrimFunc& f, const Array<Var>& loops) {
  const char* prim = "fuse";
  if (loops.empty()) TVM_SCHEDULE_ERROR(prim) << "needs at least one loop";
  StmtPath p = FindLoop(f, loops[0], prim);
  std::vector<const ForNode*> chain{AsLoop(p)};
  for (size_t k = 1; k < loops.size(); ++k) {
    const ForNode* inner = chain.back()->body.as<ForNode>();
    if (inner == nullptr || !inner->loop_var.same_as(loops[k])) {
      TVM_SCHEDULE_ERROR(prim) << "loop " << LoopName(loops[k]) << " is not the only child of loop "
                               << LoopName(loops[k - 1]) << " (fused loops must be a chain)";
    }
    chain.push_back(inner);
  }
  DataType t = chain[0]->loop_var->dtype;
  std::string name;
  for (const ForNode* l : chain) {
    if (l->loop_var->dtype != t) TVM_SCHEDULE_ERROR(prim) << "loop dtypes differ";
    for (const ForNode* o : chain) {
      if (o != l && (UsesVar(l->extent, o->loop_var.get()) || UsesVar(l->min, o->loop_var.get()))) {
        TVM_SCHEDULE_ERROR(prim) << "the range of loop " << LoopName(l->loop_var) << " depends on loop "
                                 << LoopName(o->loop_var);
      }
    }
    name += LoopName(l->loop_var) + "_";
  }
  Var fused(name + "fused", t);
  VarMap m;
  PrimExpr stride = IntImm(t, 1);
  PrimExpr ext = IntImm(t, 1);
  for (size_t k = chain.size(); k-- > 0;) {
    const ForNode* l = chain[k];
    PrimExpr q = k + 1 == chain.size() ? PrimExpr(fused) : MakeBinary("tir.FloorDiv", fused, stride);
    PrimExpr v = k == 0 ? q : MakeBinary("tir.FloorMod", q, l->extent);
    m[l->loop_var.get()] = Simp(Add(l->min, v));
    stride = Simp(Mul(stride, l->extent));
    ext = Simp(Mul(ext, l->extent));
  }
  Stmt body = Substitute(chain.back()->body, m);
  return Array<Any>{Replace(f, chain[0], MakeFor(fused, IntImm(t, 0), ext, 0, body)), fused};
}

PrimFunc Reorder(const PrimFunc& f, const Array<Var>& order) {
  const char* prim = "reorder";
  if (order.size() < 2) return f;
  std::vector<StmtPath> paths;
  std::unordered_map<const Object*, int> seen;
  for (const Var& v : order) {
    if (seen[v.get()]++) TVM_SCHEDULE_ERROR(prim) << "loop " << LoopName(v) << " is given twice";
    paths.push_back(FindLoop(f, v, prim));
  }
  // The outermost and innermost of the loops; every other must lie on the path between.
  size_t outer = 0, inner = 0;
  for (size_t k = 1; k < paths.size(); ++k) {
    if (paths[k].stack.size() < paths[outer].stack.size()) outer = k;
    if (paths[k].stack.size() > paths[inner].stack.size()) inner = k;
  }
  const std::vector<Stmt>& deep = paths[inner].stack;
  size_t top = paths[outer].stack.size() - 1;
  if (deep.size() <= top || deep[top].get() != paths[outer].leaf().get()) {
    TVM_SCHEDULE_ERROR(prim) << "loops " << LoopName(order[outer]) << " and " << LoopName(order[inner])
                             << " are not on one path (they must nest)";
  }
  for (size_t k = 0; k < paths.size(); ++k) {
    size_t d = paths[k].stack.size() - 1;
    if (deep[d].get() != paths[k].leaf().get()) {
      TVM_SCHEDULE_ERROR(prim) << "loops " << LoopName(order[k]) << " and " << LoopName(order[inner])
                               << " are not on one path (they must nest)";
    }
  }
  std::vector<const ForNode*> chain;
  for (size_t k = top; k < deep.size(); ++k) {
    const ForNode* l = deep[k].as<ForNode>();
    if (l == nullptr) {
      TVM_SCHEDULE_ERROR(prim) << "a " << deep[k].GetTypeKey() << " sits between loops " << LoopName(order[outer])
                               << " and " << LoopName(order[inner]) << " (they must be a chain of loops)";
    }
    if (k + 1 < deep.size() && l->body.get() != deep[k + 1].get()) {
      TVM_SCHEDULE_ERROR(prim) << "loop " << LoopName(l->loop_var)
                               << " has more than one child between the reordered loops";
    }
    chain.push_back(l);
  }
  std::unordered_map<const Object*, size_t> given;
  for (size_t k = 0; k < order.size(); ++k) given[order[k].get()] = k;
  std::vector<size_t> slots;
  for (size_t k = 0; k < chain.size(); ++k) {
    if (given.count(chain[k]->loop_var.get())) slots.push_back(k);
  }
  if (slots.size() != order.size()) {
    TVM_SCHEDULE_ERROR(prim) << "not all loops are on the path from " << LoopName(order[outer]) << " to "
                             << LoopName(order[inner]);
  }
  std::vector<const ForNode*> out = chain;
  for (size_t k = 0; k < slots.size(); ++k) out[slots[k]] = paths[k].leaf().as<ForNode>();
  for (const ForNode* l : chain) {
    for (const ForNode* o : chain) {
      if (o != l && (UsesVar(l->extent, o->loop_var.get()) || UsesVar(l->min, o->loop_var.get()))) {
        TVM_SCHEDULE_ERROR(prim) << "the range of loop " << LoopName(l->loop_var) << " depends on loop "
                                 << LoopName(o->loop_var);
      }
    }
  }
  Stmt body = chain.back()->body;
  for (size_t k = out.size(); k-- > 0;) body = WithBody(out[k], body);
  return Replace(f, chain[0], body);
}

/*! \brief ScheduleError unless `loop` binds only spatial iter vars of the blocks under it. */
void CheckSpatial(const ForNode* loop, const char* prim) {
  for (const BlockRealizeNode* r : AllBlocks(loop->body)) {
    for (size_t i = 0; i < r->iter_values.size(); ++i) {
      if (r->block->iter_vars[i]->kind == 2 && UsesVar(r->iter_values[i], loop->loop_var.get())) {
        TVM_SCHEDULE_ERROR(prim) << "loop " << LoopName(loop->loop_var) << " is bound to the reduction var "
                                 << std::string(r->block->iter_vars[i]->var->name) << " of block \""
                                 << std::string(r->block->name_hint) << "\"";
      }
    }
  }
}

PrimFunc SetKind(const PrimFunc& f, const Var& loop, int64_t kind, const std::string& thread) {
  static const char* names[] = {"serial", "parallel", "vectorize", "unroll", "bind"};
  const char* prim = names[kind >= 0 && kind <= 4 ? kind : 0];
  StmtPath p = FindLoop(f, loop, prim);
  const ForNode* n = AsLoop(p);
  // Binding a one-iteration loop runs everything under it in a single thread/block, so it
  // may carry a reduction (how a GPU schedule launches a reduction to a scalar).
  auto ext = AsConstInt(n->extent);
  bool unit_bind = kind == 4 && ext && *ext == 1;
  if ((kind == 1 || kind == 2 || kind == 4) && !unit_bind) CheckSpatial(n, prim);
  if (kind == 2 && !AsConstInt(n->extent)) {
    TVM_SCHEDULE_ERROR(prim) << "loop " << LoopName(loop) << " has a non-constant extent";
  }
  if (kind == 4) {
    static const char* tags[] = {"blockIdx.x", "blockIdx.y", "blockIdx.z", "threadIdx.x", "threadIdx.y",
                                 "threadIdx.z", "vthread.x", "vthread.y", "vthread.z", "vthread"};
    bool ok = false;
    for (const char* t : tags) ok |= thread == t;
    if (!ok) TVM_SCHEDULE_ERROR(prim) << "unknown thread axis \"" << thread << "\"";
  }
  return Replace(f, n, MakeFor(n->loop_var, n->min, n->extent, kind, n->body, kind == 4 ? thread : "",
                               n->annotations));
}

PrimFunc Annotate(const PrimFunc& f, const Any& target, const std::string& key, const Any& value, bool remove) {
  const char* prim = remove ? "unannotate" : "annotate";
  if (auto name = target.as<String>()) {
    StmtPath p = FindBlock(f, std::string(*name), prim);
    const BlockNode* b = p.leaf().as<BlockRealizeNode>()->block.get();
    Map<String, Any> ann = b->annotations;
    if (remove) {
      ann.erase(String(key));
    } else {
      ann.Set(String(key), value);
    }
    Block nb = MakeBlock(b->iter_vars, b->reads, b->writes, std::string(b->name_hint), b->body, b->init,
                         b->alloc_buffers, ann);
    return Replace(f, b, nb);
  }
  Var loop = target.cast<Var>();
  const ForNode* n = AsLoop(FindLoop(f, loop, prim));
  Map<String, Any> ann = n->annotations;
  if (remove) {
    ann.erase(String(key));
  } else {
    ann.Set(String(key), value);
  }
  return Replace(f, n, MakeFor(n->loop_var, n->min, n->extent, n->kind, n->body, std::string(n->thread_tag), ann));
}

}  // namespace

TVM_FFI_STATIC_INIT_BLOCK() {
  RegisterCompilerGlobal("tir.schedule.Split", [](PrimFunc f, Var loop, Array<Any> factors) {
    return Split(f, loop, factors);
  });
  RegisterCompilerGlobal("tir.schedule.Fuse", [](PrimFunc f, Array<Var> loops) { return Fuse(f, loops); });
  RegisterCompilerGlobal("tir.schedule.Reorder", [](PrimFunc f, Array<Var> order) { return Reorder(f, order); });
  RegisterCompilerGlobal("tir.schedule.SetLoopKind", [](PrimFunc f, Var loop, int64_t kind, std::string thread) {
    return SetKind(f, loop, kind, thread);
  });
  RegisterCompilerGlobal("tir.schedule.Annotate", [](PrimFunc f, Any target, std::string key, Any value) {
    return Annotate(f, target, key, value, false);
  });
  RegisterCompilerGlobal("tir.schedule.Unannotate", [](PrimFunc f, Any target, std::string key) {
    return Annotate(f, target, key, Any(), true);
  });
}

}  // namespace tir
}  // namespace tvm
