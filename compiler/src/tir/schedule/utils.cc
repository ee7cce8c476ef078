/*
 * Lookups, replacement, substitution, access regions and interval bounds for the schedule
 * primitives.
 */
#include "utils.h"

#include <tvm/ir/structural.h>

#include <set>

namespace tvm {
namespace tir {

std::vector<const ForNode*> StmtPath::Loops() const {
  std::vector<const ForNode*> out;
  for (size_t i = 0; i + 1 < stack.size(); ++i) {
    if (auto* f = stack[i].as<ForNode>()) out.push_back(f);
    if (stack[i].as<BlockNode>()) out.clear();  // loops above an enclosing block are not ours
  }
  return out;
}

const BlockNode* StmtPath::ParentBlock() const {
  for (size_t i = stack.size() - 1; i-- > 0;) {
    if (auto* b = stack[i].as<BlockNode>()) return b;
  }
  return nullptr;
}

namespace {

// Pre-order walk of statements keeping the path; `visit` returns true to stop.
bool Walk(const Stmt& s, std::vector<Stmt>* stack, const std::function<bool(const Stmt&)>& visit) {
  if (!s.defined()) return false;
  stack->push_back(s);
  if (visit(s)) return true;
  bool stop = false;
  if (auto* n = s.as<ForNode>()) {
    stop = Walk(n->body, stack, visit);
  } else if (auto* n = s.as<SeqStmtNode>()) {
    for (const Stmt& x : n->seq) {
      if ((stop = Walk(x, stack, visit))) break;
    }
  } else if (auto* n = s.as<BlockRealizeNode>()) {
    stop = Walk(n->block, stack, visit);
  } else if (auto* n = s.as<BlockNode>()) {
    stop = Walk(n->init, stack, visit) || Walk(n->body, stack, visit);
  } else if (auto* n = s.as<IfThenElseNode>()) {
    stop = Walk(n->then_case, stack, visit) || Walk(n->else_case, stack, visit);
  } else if (auto* n = s.as<LetStmtNode>()) {
    stop = Walk(n->body, stack, visit);
  } else if (auto* n = s.as<AllocateNode>()) {
    stop = Walk(n->body, stack, visit);
  }
  if (!stop) stack->pop_back();
  return stop;
}

}  // namespace

StmtPath FindBlock(const PrimFunc& f, const std::string& name, const char* prim) {
  StmtPath p;
  int count = 0;
  StmtPath found;
  std::vector<Stmt> stack;
  Walk(f->body, &stack, [&](const Stmt& s) {
    if (auto* r = s.as<BlockRealizeNode>(); r && std::string(r->block->name_hint) == name) {
      if (count++ == 0) found.stack = stack;
    }
    return false;
  });
  if (count == 0) TVM_SCHEDULE_ERROR(prim) << "no block named \"" << name << "\" in the function";
  if (count > 1) TVM_SCHEDULE_ERROR(prim) << "block name \"" << name << "\" is not unique";
  return found;
}

StmtPath FindLoop(const PrimFunc& f, const Var& loop, const char* prim) {
  if (!loop.defined()) TVM_SCHEDULE_ERROR(prim) << "loop is None";
  StmtPath p;
  bool ok = Walk(f->body, &p.stack, [&](const Stmt& s) {
    auto* n = s.as<ForNode>();
    return n != nullptr && n->loop_var.same_as(loop);
  });
  if (!ok) TVM_SCHEDULE_ERROR(prim) << "loop " << std::string(loop->name) << " is not in the function";
  return p;
}

std::vector<const BlockRealizeNode*> ChildBlocks(const Stmt& s) {
  std::vector<const BlockRealizeNode*> out;
  std::function<void(const Stmt&)> go = [&](const Stmt& x) {
    if (!x.defined()) return;
    if (auto* r = x.as<BlockRealizeNode>()) {
      out.push_back(r);
    } else if (auto* n = x.as<ForNode>()) {
      go(n->body);
    } else if (auto* n = x.as<SeqStmtNode>()) {
      for (const Stmt& y : n->seq) go(y);
    } else if (auto* n = x.as<IfThenElseNode>()) {
      go(n->then_case);
      go(n->else_case);
    } else if (auto* n = x.as<LetStmtNode>()) {
      go(n->body);
    } else if (auto* n = x.as<AllocateNode>()) {
      go(n->body);
    } else if (auto* n = x.as<BlockNode>()) {
      go(n->body);
    }
  };
  go(s);
  return out;
}

std::vector<const BlockRealizeNode*> AllBlocks(const Stmt& s) {
  std::vector<const BlockRealizeNode*> out;
  std::vector<Stmt> stack;
  Walk(s, &stack, [&](const Stmt& x) {
    if (auto* r = x.as<BlockRealizeNode>()) out.push_back(r);
    return false;
  });
  return out;
}

namespace {

class StmtReplacer : public ExprMutator {
 public:
  StmtReplacer(const Object* target, Stmt rep) : target_(target), rep_(std::move(rep)) {}
  PrimExpr VisitExpr(const PrimExpr& e) override { return e; }
  Stmt VisitStmt(const Stmt& s) override {
    if (!s.defined()) return s;
    if (s.get() == target_) {
      found = true;
      return rep_;
    }
    if (auto* n = s.as<SeqStmtNode>()) {
      Array<Stmt> seq;
      bool changed = false;
      for (const Stmt& x : n->seq) {
        Stmt y = VisitStmt(x);
        if (!y.same_as(x)) changed = true;
        if (!y.defined()) continue;
        if (auto* inner = y.as<SeqStmtNode>()) {
          for (const Stmt& z : inner->seq) seq.push_back(z);
        } else {
          seq.push_back(y);
        }
      }
      if (!changed) return s;
      if (seq.empty()) return Stmt();
      return MakeSeq(seq);
    }
    if (auto* n = s.as<ForNode>()) {
      Stmt b = VisitStmt(n->body);
      if (b.same_as(n->body)) return s;
      if (!b.defined()) return Stmt();
      return WithBody(n, b);
    }
    if (auto* n = s.as<BlockNode>()) {
      Stmt b = VisitStmt(n->body);
      Stmt init = VisitStmt(n->init);
      if (b.same_as(n->body) && init.same_as(n->init)) return s;
      if (!b.defined()) b = MakeSeq(Array<Stmt>{});
      return MakeBlock(n->iter_vars, n->reads, n->writes, std::string(n->name_hint), b, init,
                       n->alloc_buffers, n->annotations);
    }
    if (auto* n = s.as<IfThenElseNode>()) {
      Stmt t = VisitStmt(n->then_case), e = VisitStmt(n->else_case);
      if (t.same_as(n->then_case) && e.same_as(n->else_case)) return s;
      if (!t.defined() && !e.defined()) return Stmt();
      if (!t.defined()) t = MakeSeq(Array<Stmt>{});
      return MakeIfThenElse(n->condition, t, e);
    }
    return MutateStmtChildren(s);
  }
  bool found{false};

 private:
  const Object* target_;
  Stmt rep_;
};

}  // namespace

Stmt ReplaceStmt(const Stmt& root, const Object* target, const Stmt& replacement) {
  StmtReplacer r(target, replacement);
  Stmt out = r.VisitStmt(root);
  if (!r.found) TVM_FFI_THROW(InternalError) << "schedule: statement to replace not found";
  return out;
}

PrimFunc WithBody(const PrimFunc& f, Stmt body) {
  return MakePrimFunc(f->params, f->buffer_map, std::move(body), f->attrs);
}

PrimFunc Replace(const PrimFunc& f, const Object* target, const Stmt& replacement) {
  return WithBody(f, ReplaceStmt(f->body, target, replacement));
}

namespace {

class Substituter : public ExprMutator {
 public:
  explicit Substituter(VarMap map) : map_(std::move(map)) {}
  PrimExpr VisitExpr(const PrimExpr& e) override {
    if (e.as<VarNode>()) {
      auto it = map_.find(e.get());
      if (it != map_.end()) return it->second;
      return e;
    }
    return MutateExprChildren(e);
  }

 private:
  VarMap map_;
};

class BufferReplacer : public ExprMutator {
 public:
  BufferReplacer(const Buffer& from, const Buffer& to) : from_(from), to_(to) {}
  PrimExpr VisitExpr(const PrimExpr& e) override {
    PrimExpr x = MutateExprChildren(e);
    if (auto* n = x.as<BufferLoadNode>(); n && n->buffer.same_as(from_)) return MakeBufferLoad(to_, n->indices);
    return x;
  }
  Stmt VisitStmt(const Stmt& s) override {
    Stmt x = MutateStmtChildren(s);
    if (auto* n = x.as<BufferStoreNode>(); n && n->buffer.same_as(from_)) {
      return MakeBufferStore(to_, n->value, n->indices);
    }
    if (auto* n = x.as<BlockNode>()) {
      auto fix = [&](const Array<BufferRegion>& rs) {
        Array<BufferRegion> out;
        for (const BufferRegion& r : rs) out.push_back(r->buffer.same_as(from_) ? BufferRegion(to_, r->region) : r);
        return out;
      };
      return MakeBlock(n->iter_vars, fix(n->reads), fix(n->writes), std::string(n->name_hint), n->body,
                       n->init, n->alloc_buffers, n->annotations);
    }
    return x;
  }

 private:
  Buffer from_, to_;
};

}  // namespace

Stmt Substitute(const Stmt& s, VarMap map) { return Substituter(std::move(map)).VisitStmt(s); }
PrimExpr Substitute(const PrimExpr& e, VarMap map) { return Substituter(std::move(map)).VisitExpr(e); }
Stmt ReplaceBuffer(const Stmt& s, const Buffer& from, const Buffer& to) {
  return BufferReplacer(from, to).VisitStmt(s);
}

namespace {
class VarFinder : public ExprMutator {
 public:
  explicit VarFinder(const Object* v) : v_(v) {}
  PrimExpr VisitExpr(const PrimExpr& x) override {
    if (x.get() == v_) used = true;
    return used ? x : MutateExprChildren(x);
  }
  Stmt VisitStmt(const Stmt& s) override { return used ? s : MutateStmtChildren(s); }
  bool used{false};

 private:
  const Object* v_;
};
}  // namespace

bool UsesVar(const Stmt& s, const Object* v) {
  VarFinder f(v);
  f.VisitStmt(s);
  return f.used;
}

bool UsesVar(const PrimExpr& e, const Object* v) {
  VarFinder f(v);
  f.VisitExpr(e);
  return f.used;
}

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

std::string FreshBlockName(const PrimFunc& f, const std::string& base) {
  std::set<std::string> used;
  for (const BlockRealizeNode* r : AllBlocks(f->body)) used.insert(std::string(r->block->name_hint));
  if (!used.count(base)) return base;
  for (int i = 1;; ++i) {
    std::string n = base + "_" + std::to_string(i);
    if (!used.count(n)) return n;
  }
}

// ---- access regions ----

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

// ---- intervals ----

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

bool UnionInto(Interval* hull, const Interval& iv, bool symbolic) {
  if (!hull->min.defined()) {
    *hull = iv;
    return true;
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

void CollectAccesses(const Stmt& s, const Object* buffer, bool loads, bool stores,
                     std::vector<Array<PrimExpr>>* out) {
  class C : public ExprMutator {
   public:
    C(const Object* b, bool l, bool st, std::vector<Array<PrimExpr>>* o) : b_(b), l_(l), s_(st), o_(o) {}
    PrimExpr VisitExpr(const PrimExpr& e) override {
      if (auto* n = e.as<BufferLoadNode>(); l_ && n && n->buffer.get() == b_) o_->push_back(n->indices);
      return MutateExprChildren(e);
    }
    Stmt VisitStmt(const Stmt& st) override {
      if (auto* n = st.as<BufferStoreNode>(); s_ && n && n->buffer.get() == b_) o_->push_back(n->indices);
      return MutateStmtChildren(st);
    }

   private:
    const Object* b_;
    bool l_, s_;
    std::vector<Array<PrimExpr>>* o_;
  };
  C(buffer, loads, stores, out).VisitStmt(s);
}

void CheckSingleWriter(const PrimFunc& f, const BlockNode* block, const Buffer& buf, const char* prim) {
  for (const BlockRealizeNode* r : AllBlocks(f->body)) {
    const BlockNode* b = r->block.get();
    if (b == block || ChildBlocks(b->body).size() > 0) continue;  // itself, or a scope block
    for (const BufferRegion& w : b->writes) {
      if (w->buffer.same_as(buf)) {
        TVM_SCHEDULE_ERROR(prim) << "buffer " << std::string(buf->name) << " is written by block \""
                                 << std::string(b->name_hint) << "\" too (the block must be its only writer; "
                                 << "e.g. before decompose_reduction)";
      }
    }
  }
}

Buffer FindBufferByName(const PrimFunc& f, const std::string& name) {
  for (const auto& kv : f->buffer_map) {
    if (std::string(kv.second->name) == name) return kv.second;
  }
  for (const BlockRealizeNode* r : AllBlocks(f->body)) {
    for (const Buffer& b : r->block->alloc_buffers) {
      if (std::string(b->name) == name) return b;
    }
  }
  return Buffer();
}

bool IsParamBuffer(const PrimFunc& f, const Buffer& b) {
  for (const auto& kv : f->buffer_map) {
    if (kv.second.same_as(b)) return true;
  }
  return false;
}

namespace {
PrimFunc EditRootAlloc(const PrimFunc& f, const std::function<Array<Buffer>(Array<Buffer>)>& edit) {
  auto* r = f->body.as<BlockRealizeNode>();
  if (r == nullptr) TVM_FFI_THROW(ScheduleError) << "the function has no root block (not made by create_prim_func?)";
  const BlockNode* b = r->block.get();
  Block nb = MakeBlock(b->iter_vars, b->reads, b->writes, std::string(b->name_hint), b->body, b->init,
                       edit(b->alloc_buffers), b->annotations);
  return WithBody(f, MakeBlockRealize(r->iter_values, r->predicate, nb));
}
}  // namespace

PrimFunc AddRootAlloc(const PrimFunc& f, const Buffer& buf) {
  return EditRootAlloc(f, [&](Array<Buffer> a) {
    a.push_back(buf);
    return a;
  });
}

PrimFunc RemoveAlloc(const PrimFunc& f, const Buffer& buf) {
  for (const BlockRealizeNode* r : AllBlocks(f->body)) {
    const BlockNode* b = r->block.get();
    Array<Buffer> kept;
    for (const Buffer& x : b->alloc_buffers) {
      if (!x.same_as(buf)) kept.push_back(x);
    }
    if (kept.size() == b->alloc_buffers.size()) continue;
    return Replace(f, b, MakeBlock(b->iter_vars, b->reads, b->writes, std::string(b->name_hint), b->body, b->init,
                                   kept, b->annotations));
  }
  return f;
}

}  // namespace tir
}  // namespace tvm
