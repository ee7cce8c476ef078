/*
 * Loop transformations on PrimFuncs ("tir.schedule.*"), the primitives behind the Python
 * tvm.tir.Schedule: get_loops, split, fuse, reorder and loop-kind annotation (parallel,
 * vectorize, unroll), cache_write, reverse_compute_at, compute_at, decompose_reduction. A loop is named by its loop Var; a "block" by the buffer it stores to.
 * Every primitive returns a new PrimFunc (and the new loop Vars); inputs are never changed.
 */
#include <tvm/arith/analyzer.h>
#include <tvm/ffi/error.h>
#include <tvm/ir/structural.h>
#include <tvm/tir/functor.h>

#include <algorithm>
#include <functional>
#include <unordered_map>

#include "../support/registry.h"

namespace tvm {
namespace {

class Substituter : public ExprMutator {
 public:
  explicit Substituter(std::unordered_map<const Object*, PrimExpr> map) : map_(std::move(map)) {}
  PrimExpr VisitExpr(const PrimExpr& e) override {
    if (e.as<VarNode>()) {
      auto it = map_.find(e.get());
      if (it != map_.end()) return it->second;
    }
    return MutateExprChildren(e);
  }

 private:
  std::unordered_map<const Object*, PrimExpr> map_;
};

Stmt Substitute(const Stmt& s, std::unordered_map<const Object*, PrimExpr> map) {
  return Substituter(std::move(map)).VisitStmt(s);
}

/*! \brief Replaces the For whose loop_var is `target` by f(for). */
class LoopReplacer : public ExprMutator {
 public:
  LoopReplacer(const Object* target, std::function<Stmt(const ForNode*)> f)
      : target_(target), f_(std::move(f)) {}
  Stmt VisitStmt(const Stmt& s) override {
    if (auto* n = s.as<ForNode>(); n != nullptr && n->loop_var.get() == target_) {
      found = true;
      return f_(n);
    }
    return MutateStmtChildren(s);
  }
  PrimExpr VisitExpr(const PrimExpr& e) override { return e; }
  bool found{false};

 private:
  const Object* target_;
  std::function<Stmt(const ForNode*)> f_;
};

PrimFunc WithBody(const PrimFunc& f, Stmt body) {
  return MakePrimFunc(f->params, f->buffer_map, body, f->attrs);
}

PrimFunc ReplaceLoop(const PrimFunc& f, const Var& loop, std::function<Stmt(const ForNode*)> fn) {
  LoopReplacer r(loop.get(), std::move(fn));
  Stmt body = r.VisitStmt(f->body);
  if (!r.found) TVM_FFI_THROW(ValueError) << "loop " << std::string(loop->name) << " is not in the function";
  return WithBody(f, body);
}

PrimExpr Simp(const PrimExpr& e) { return arith::Simplify(e, {}); }

bool FindLoops(const Stmt& s, const std::string& buffer, std::vector<Var>* stack, Array<Var>* out) {
  if (!s.defined()) return false;
  if (auto* n = s.as<ForNode>()) {
    stack->push_back(n->loop_var);
    bool r = FindLoops(n->body, buffer, stack, out);
    stack->pop_back();
    return r;
  }
  if (auto* n = s.as<BufferStoreNode>()) {
    if (std::string(n->buffer->name) == buffer) {
      for (const Var& v : *stack) out->push_back(v);
      return true;
    }
    return false;
  }
  if (auto* n = s.as<SeqStmtNode>()) {
    // The block's loops are those around its first store (the init store of a reduction
    // shares the data-parallel loops; the reduction loops come after).
    Array<Var> best;
    bool any = false;
    for (const Stmt& x : n->seq) {
      Array<Var> cur;
      if (FindLoops(x, buffer, stack, &cur)) {
        any = true;
        if (cur.size() > best.size()) best = cur;
      }
    }
    if (any) *out = best;
    return any;
  }
  if (auto* n = s.as<LetStmtNode>()) return FindLoops(n->body, buffer, stack, out);
  if (auto* n = s.as<AllocateNode>()) return FindLoops(n->body, buffer, stack, out);
  if (auto* n = s.as<IfThenElseNode>()) {
    return FindLoops(n->then_case, buffer, stack, out) || FindLoops(n->else_case, buffer, stack, out);
  }
  return false;
}

Array<Any> Split(const PrimFunc& f, const Var& loop, Array<Any> factors) {
  if (factors.size() != 2) TVM_FFI_THROW(ValueError) << "split: exactly two factors are supported";
  Var outer(std::string(loop->name) + "_0", loop->dtype), inner(std::string(loop->name) + "_1", loop->dtype);
  PrimFunc out = ReplaceLoop(f, loop, [&](const ForNode* n) {
    DataType t = n->loop_var->dtype;
    PrimExpr ext = n->extent;
    PrimExpr inner_ext;
    if (!factors[1].is_none()) {
      inner_ext = IntImm(t, factors[1].cast<int64_t>());
    } else if (!factors[0].is_none()) {
      const int64_t* ce = AsConstInt(ext);
      if (ce == nullptr) TVM_FFI_THROW(ValueError) << "split: [f, None] needs a constant extent";
      int64_t fo = factors[0].cast<int64_t>();
      inner_ext = IntImm(t, (*ce + fo - 1) / fo);
    } else {
      TVM_FFI_THROW(ValueError) << "split: at most one factor may be None";
    }
    int64_t fi = *AsConstInt(inner_ext);
    if (fi <= 0) TVM_FFI_THROW(ValueError) << "split: factors must be positive";
    PrimExpr outer_ext = Simp(MakeBinary("tir.FloorDiv", MakeBinary("tir.Add", ext, IntImm(t, fi - 1)), inner_ext));
    PrimExpr idx = MakeBinary("tir.Add", MakeBinary("tir.Mul", outer, inner_ext), inner);
    Stmt body = Substitute(n->body, {{n->loop_var.get(), Simp(MakeBinary("tir.Add", n->min, idx))}});
    const int64_t* ce = AsConstInt(ext);
    if (!(ce && *ce % fi == 0)) body = MakeIfThenElse(MakeBinary("tir.LT", idx, ext), body, Stmt());
    return MakeFor(outer, IntImm(t, 0), outer_ext, 0,
                   MakeFor(inner, IntImm(t, 0), inner_ext, 0, body));
  });
  return Array<Any>{out, Array<Var>{outer, inner}};
}

Array<Any> Fuse(const PrimFunc& f, const Var& outer_v, const Var& inner_v) {
  Var fused(std::string(outer_v->name) + "_" + std::string(inner_v->name) + "_fused", outer_v->dtype);
  PrimFunc out = ReplaceLoop(f, outer_v, [&](const ForNode* o) {
    const ForNode* i = o->body.as<ForNode>();
    if (i == nullptr || i->loop_var.get() != inner_v.get()) {
      TVM_FFI_THROW(ValueError) << "fuse: " << std::string(inner_v->name) << " must be directly inside "
                                << std::string(outer_v->name);
    }
    if (i->loop_var->dtype != o->loop_var->dtype) TVM_FFI_THROW(TypeError) << "fuse: loop dtypes differ";
    DataType t = o->loop_var->dtype;
    PrimExpr ext = Simp(MakeBinary("tir.Mul", o->extent, i->extent));
    PrimExpr ov = Simp(MakeBinary("tir.Add", o->min, MakeBinary("tir.FloorDiv", fused, i->extent)));
    PrimExpr iv = Simp(MakeBinary("tir.Add", i->min, MakeBinary("tir.FloorMod", fused, i->extent)));
    Stmt body = Substitute(i->body, {{o->loop_var.get(), ov}, {i->loop_var.get(), iv}});
    return MakeFor(fused, IntImm(t, 0), ext, 0, body);
  });
  return Array<Any>{out, Array<Var>{fused}};
}

/*! \brief Sets `*used` when the walk meets Var `v` (stops descending once it has). */
class VarFinder : public ExprMutator {
 public:
  VarFinder(const Object* v, bool* used) : v_(v), used_(used) {}
  PrimExpr VisitExpr(const PrimExpr& x) override {
    if (x.get() == v_) *used_ = true;
    return *used_ ? x : MutateExprChildren(x);
  }

 private:
  const Object* v_;
  bool* used_;
};

/*! \brief True if expression `e` reads Var `v`. */
bool ExprUsesVar(const PrimExpr& e, const Object* v) {
  bool used = false;
  VarFinder(v, &used).VisitExpr(e);
  return used;
}

/*! \brief True if statement `s` uses (reads) Var `v`. */
bool UsesVar(const Stmt& s, const Object* v) {
  bool used = false;
  VarFinder(v, &used).VisitStmt(s);
  return used;
}

PrimFunc Reorder(const PrimFunc& f, const Array<Var>& order) {
  if (order.size() < 2) return f;
  std::unordered_map<const Object*, size_t> want;
  for (size_t k = 0; k < order.size(); ++k) want[order[k].get()] = k;
  // Find the outermost of the loops: the first one met in a pre-order walk.
  const Object* first = nullptr;
  std::function<void(const Stmt&)> walk = [&](const Stmt& s) {
    if (first != nullptr || !s.defined()) return;
    if (auto* n = s.as<ForNode>()) {
      if (want.count(n->loop_var.get())) {
        first = n->loop_var.get();
        return;
      }
      walk(n->body);
    } else if (auto* n = s.as<SeqStmtNode>()) {
      for (const Stmt& x : n->seq) walk(x);
    } else if (auto* n = s.as<AllocateNode>()) {
      walk(n->body);
    } else if (auto* n = s.as<LetStmtNode>()) {
      walk(n->body);
    } else if (auto* n = s.as<IfThenElseNode>()) {
      walk(n->then_case);
      walk(n->else_case);
    }
  };
  walk(f->body);
  if (first == nullptr) TVM_FFI_THROW(ValueError) << "reorder: loops not found";
  PrimFunc out = ReplaceLoop(f, ffi::details::ObjectUnsafe::RefFromPtr<Var>(
                                    ffi::details::ObjectUnsafe::PtrFromUnowned<Object>(first)),
                             [&](const ForNode* top) {
    // The loops, outermost first. A split's tail guard (an `if` without `else`) may sit
    // between two of them: it is lifted out and put back below (a guard only skips work, so
    // it can move inward past loops its condition does not use).
    std::vector<const ForNode*> chain;
    std::vector<PrimExpr> guards;
    const ForNode* cur = top;
    while (true) {
      if (cur == nullptr || !want.count(cur->loop_var.get())) {
        TVM_FFI_THROW(ValueError) << "reorder: the loops must be perfectly nested, one directly "
                                     "inside another (split tail guards between them are fine)";
      }
      chain.push_back(cur);
      if (chain.size() == order.size()) break;
      Stmt next = cur->body;
      while (auto* g = next.as<IfThenElseNode>()) {
        if (g->else_case.defined()) break;
        guards.push_back(g->condition);
        next = g->then_case;
      }
      cur = next.as<ForNode>();
    }
    Stmt body = chain.back()->body;
    std::vector<const ForNode*> sorted(chain.size());
    for (const ForNode* n : chain) sorted[want[n->loop_var.get()]] = n;
    // Each guard goes just inside the innermost loop (in the new order) whose variable it
    // uses, so it is tested as rarely as possible; one that uses none goes outside them all.
    std::vector<std::vector<PrimExpr>> inside(sorted.size());
    std::vector<PrimExpr> outside;
    for (const PrimExpr& cond : guards) {
      size_t deepest = sorted.size();
      for (size_t k = 0; k < sorted.size(); ++k) {
        if (ExprUsesVar(cond, sorted[k]->loop_var.get())) deepest = k;
      }
      (deepest == sorted.size() ? outside : inside[deepest]).push_back(cond);
    }
    for (size_t k = sorted.size(); k-- > 0;) {
      for (const PrimExpr& cond : inside[k]) body = MakeIfThenElse(cond, body, Stmt());
      const ForNode* n = sorted[k];
      body = MakeFor(n->loop_var, n->min, n->extent, n->kind, body, std::string(n->thread_tag));
    }
    for (const PrimExpr& cond : outside) body = MakeIfThenElse(cond, body, Stmt());
    return body;
  });
  return out;
}

PrimFunc Annotate(const PrimFunc& f, const Var& loop, int64_t kind) {
  return ReplaceLoop(f, loop, [&](const ForNode* n) {
    return MakeFor(n->loop_var, n->min, n->extent, kind, n->body, std::string(n->thread_tag));
  });
}


// ------------------------------------------------------------------------------------------
// cache_write / reverse_compute_at
// ------------------------------------------------------------------------------------------

/*! \brief Replaces every access to buffer `from` by `to`, mapping indices through `fidx`. */
class BufferReplacer : public ExprMutator {
 public:
  BufferReplacer(const Object* from, Buffer to, std::function<Array<PrimExpr>(const Array<PrimExpr>&)> fidx)
      : from_(from), to_(std::move(to)), fidx_(std::move(fidx)) {}
  PrimExpr VisitExpr(const PrimExpr& e) override {
    PrimExpr x = MutateExprChildren(e);
    if (auto* n = x.as<BufferLoadNode>(); n && n->buffer.get() == from_) return MakeBufferLoad(to_, fidx_(n->indices));
    return x;
  }
  Stmt VisitStmt(const Stmt& s) override {
    Stmt x = MutateStmtChildren(s);
    if (auto* n = x.as<BufferStoreNode>(); n && n->buffer.get() == from_) {
      return MakeBufferStore(to_, n->value, fidx_(n->indices));
    }
    return x;
  }

 private:
  const Object* from_;
  Buffer to_;
  std::function<Array<PrimExpr>(const Array<PrimExpr>&)> fidx_;
};

bool StoresTo(const Stmt& s, const std::string& name) {
  std::vector<Var> stack;
  Array<Var> out;
  return FindLoops(s, name, &stack, &out);
}

Buffer FindStoredBuffer(const Stmt& s, const std::string& name) {
  Buffer found;
  std::function<void(const Stmt&)> walk = [&](const Stmt& x) {
    if (!x.defined() || found.defined()) return;
    if (auto* n = x.as<BufferStoreNode>()) {
      if (std::string(n->buffer->name) == name) found = n->buffer;
    } else if (auto* n = x.as<ForNode>()) {
      walk(n->body);
    } else if (auto* n = x.as<SeqStmtNode>()) {
      for (const Stmt& y : n->seq) walk(y);
    } else if (auto* n = x.as<AllocateNode>()) {
      walk(n->body);
    } else if (auto* n = x.as<LetStmtNode>()) {
      walk(n->body);
    } else if (auto* n = x.as<IfThenElseNode>()) {
      walk(n->then_case);
      walk(n->else_case);
    }
  };
  walk(s);
  if (!found.defined()) TVM_FFI_THROW(ValueError) << "no block (buffer store) named " << name;
  return found;
}

/*! \brief Peels Allocates off the body; returns the statement under them. */
Stmt PeelAllocates(const Stmt& body, std::vector<Buffer>* allocs) {
  Stmt s = body;
  while (auto* n = s.as<AllocateNode>()) {
    allocs->push_back(n->buffer);
    s = n->body;
  }
  return s;
}

Stmt WrapAllocates(Stmt s, const std::vector<Buffer>& allocs) {
  for (size_t k = allocs.size(); k-- > 0;) s = MakeAllocate(allocs[k], s);
  return s;
}

std::vector<Stmt> Stages(const Stmt& s) {
  if (auto* n = s.as<SeqStmtNode>()) return std::vector<Stmt>(n->seq.begin(), n->seq.end());
  return {s};
}

/*! \brief Fresh loops ax0, ax1... over a whole buffer shape (copy and combine stages). */
struct AxisLoops {
  explicit AxisLoops(const Array<PrimExpr>& shape) : shape(shape) {
    for (size_t k = 0; k < shape.size(); ++k) {
      vars.push_back(Var("ax" + std::to_string(k), shape[k].dtype()));
      idx.push_back(vars.back());
    }
  }
  /*! \brief `body` inside the loops, ax0 outermost. */
  Stmt Nest(Stmt body) const {
    for (size_t k = vars.size(); k-- > 0;) body = MakeFor(vars[k], IntImm(vars[k]->dtype, 0), shape[k], 0, body);
    return body;
  }
  Array<PrimExpr> shape;
  std::vector<Var> vars;
  Array<PrimExpr> idx;
};

/*!
 * \brief cache_write: the stage writing `name` now writes a new buffer `<name>_local`; a copy
 * stage after it writes `name`. The cache is allocated around the whole body.
 */
Array<Any> CacheWrite(const PrimFunc& f, const std::string& name) {
  Buffer out = FindStoredBuffer(f->body, name);
  Buffer cache = MakeBuffer(Var(), out->dtype, out->shape, {}, name + "_local");
  std::vector<Buffer> allocs;
  std::vector<Stmt> stages = Stages(PeelAllocates(f->body, &allocs));
  Array<Stmt> seq;
  bool done = false;
  for (const Stmt& st : stages) {
    if (!done && StoresTo(st, name)) {
      seq.push_back(BufferReplacer(out.get(), cache, [](const Array<PrimExpr>& i) { return i; }).VisitStmt(st));
      AxisLoops ax(out->shape);
      seq.push_back(ax.Nest(MakeBufferStore(out, MakeBufferLoad(cache, ax.idx), ax.idx)));
      done = true;
    } else {
      seq.push_back(st);
    }
  }
  allocs.push_back(cache);
  return Array<Any>{WithBody(f, WrapAllocates(MakeSeq(seq), allocs)), String(cache->name)};
}

/*! \brief The buffers a statement reads, in the order of their first load. */
class ReadBuffers : public ExprMutator {
 public:
  PrimExpr VisitExpr(const PrimExpr& e) override {
    if (auto* n = e.as<BufferLoadNode>()) {
      bool seen = false;
      for (const Buffer& b : buffers) seen = seen || b.get() == n->buffer.get();
      if (!seen) buffers.push_back(n->buffer);
    }
    return MutateExprChildren(e);
  }
  std::vector<Buffer> buffers;
};

/*! \brief `base`, or `base_1`, `base_2`... : a buffer name no stage stores to yet. */
std::string FreshStoredName(const Stmt& body, const std::string& base) {
  std::string name = base;
  for (int k = 1; StoresTo(body, name); ++k) name = base + "_" + std::to_string(k);
  return name;
}

/*!
 * \brief cache_read: the stage writing `consumer` reads `<buffer>_local` instead of input
 * buffer number `index` among those it reads (order of first load, its own output excluded);
 * a new stage just before it copies the whole buffer there. compute_at on that copy stage
 * then copies one tile per iteration into a cache shrunk to the tile.
 */
Array<Any> CacheRead(const PrimFunc& f, const std::string& consumer, int64_t index) {
  Buffer out = FindStoredBuffer(f->body, consumer);
  std::vector<Buffer> allocs;
  std::vector<Stmt> stages = Stages(PeelAllocates(f->body, &allocs));
  size_t at = stages.size();
  for (size_t k = 0; k < stages.size() && at == stages.size(); ++k) {
    if (StoresTo(stages[k], consumer)) at = k;
  }
  ReadBuffers reads;
  reads.VisitStmt(stages[at]);
  std::vector<Buffer> inputs;
  for (const Buffer& b : reads.buffers) {
    if (b.get() != out.get()) inputs.push_back(b);
  }
  if (index < 0 || index >= static_cast<int64_t>(inputs.size())) {
    TVM_FFI_THROW(IndexError) << "cache_read: " << consumer << " reads " << inputs.size()
                              << " buffer(s); read_buffer_index " << index << " is out of range";
  }
  Buffer src = inputs[index];
  if (StoresTo(stages[at], std::string(src->name))) {
    TVM_FFI_THROW(ValueError) << "cache_read: " << consumer << " also writes " << std::string(src->name);
  }
  std::string name = FreshStoredName(f->body, std::string(src->name) + "_local");
  Buffer cache = MakeBuffer(Var(), src->dtype, src->shape, {}, name);
  AxisLoops ax(src->shape);
  Stmt copy = ax.Nest(MakeBufferStore(cache, MakeBufferLoad(src, ax.idx), ax.idx));
  Array<Stmt> seq;
  for (size_t k = 0; k < stages.size(); ++k) {
    if (k == at) {
      seq.push_back(copy);
      seq.push_back(BufferReplacer(src.get(), cache, [](const Array<PrimExpr>& i) { return i; })
                        .VisitStmt(stages[k]));
    } else {
      seq.push_back(stages[k]);
    }
  }
  allocs.push_back(cache);
  return Array<Any>{WithBody(f, WrapAllocates(MakeSeq(seq), allocs)), String(name)};
}

/*! \brief Loop vars and constant ranges of the loops inside `s`. */
void InnerLoops(const Stmt& s, std::unordered_map<const Object*, std::pair<int64_t, int64_t>>* out) {
  if (!s.defined()) return;
  if (auto* n = s.as<ForNode>()) {
    const int64_t* mn = AsConstInt(n->min);
    const int64_t* ext = AsConstInt(n->extent);
    if (mn == nullptr || ext == nullptr) TVM_FFI_THROW(ValueError) << "reverse_compute_at: inner loops need constant ranges";
    (*out)[n->loop_var.get()] = {*mn, *mn + *ext - 1};
    InnerLoops(n->body, out);
  } else if (auto* n = s.as<SeqStmtNode>()) {
    for (const Stmt& x : n->seq) InnerLoops(x, out);
  } else if (auto* n = s.as<IfThenElseNode>()) {
    InnerLoops(n->then_case, out);
    InnerLoops(n->else_case, out);
  } else if (auto* n = s.as<LetStmtNode>()) {
    InnerLoops(n->body, out);
  } else if (auto* n = s.as<AllocateNode>()) {
    InnerLoops(n->body, out);
  }
}

/*! \brief The stores under `s`, in order. */
void StoresUnder(const Stmt& s, std::vector<const BufferStoreNode*>* out) {
  if (!s.defined()) return;
  if (auto* n = s.as<BufferStoreNode>()) {
    out->push_back(n);
  } else if (auto* n = s.as<ForNode>()) {
    StoresUnder(n->body, out);
  } else if (auto* n = s.as<SeqStmtNode>()) {
    for (const Stmt& x : n->seq) StoresUnder(x, out);
  } else if (auto* n = s.as<IfThenElseNode>()) {
    StoresUnder(n->then_case, out);
    StoresUnder(n->else_case, out);
  } else if (auto* n = s.as<LetStmtNode>()) {
    StoresUnder(n->body, out);
  } else if (auto* n = s.as<AllocateNode>()) {
    StoresUnder(n->body, out);
  }
}

void CollectStores(const Stmt& s, const Object* buf, std::vector<Array<PrimExpr>>* out) {
  std::vector<const BufferStoreNode*> stores;
  StoresUnder(s, &stores);
  for (const BufferStoreNode* st : stores) {
    if (st->buffer.get() == buf) out->push_back(st->indices);
  }
}

/*!
 * \brief reverse_compute_at: moves the copy stage that writes `out_name` from `cache_name`
 * under `loop` of the stage producing the cache, copying only the tile that one iteration
 * of `loop` produces; the cache shrinks to that tile and is allocated inside the loop.
 */
PrimFunc ReverseComputeAt(const PrimFunc& f, const std::string& out_name, const Var& loop,
                          const std::string& cache_name) {
  Buffer out = FindStoredBuffer(f->body, out_name);
  Buffer cache = FindStoredBuffer(f->body, cache_name);
  std::vector<Buffer> allocs;
  std::vector<Stmt> stages = Stages(PeelAllocates(f->body, &allocs));
  // Remove the copy stage (the one that stores to `out` and loads `cache`).
  Array<Stmt> seq;
  bool removed = false;
  for (const Stmt& st : stages) {
    if (!removed && StoresTo(st, out_name) && !StoresTo(st, cache_name)) {
      removed = true;
      continue;
    }
    seq.push_back(st);
  }
  if (!removed) TVM_FFI_THROW(ValueError) << "reverse_compute_at: no copy stage writes " << out_name;
  bool found = false;
  Stmt body = LoopReplacer(loop.get(), [&](const ForNode* n) {
    found = true;
    std::unordered_map<const Object*, std::pair<int64_t, int64_t>> inner;
    InnerLoops(n->body, &inner);
    std::vector<Array<PrimExpr>> stores;
    CollectStores(n->body, cache.get(), &stores);
    if (stores.empty()) TVM_FFI_THROW(ValueError) << "reverse_compute_at: " << cache_name << " is not written under the loop";
    // The tile: per dimension, base (inner vars at their minimum contribution) and extent.
    size_t nd = cache->shape.size();
    std::vector<PrimExpr> base(nd);
    std::vector<int64_t> extent(nd);
    for (size_t k = 0; k < nd; ++k) {
      arith::VarBounds lo_vb, all_vb;
      std::unordered_map<const Object*, PrimExpr> at_min;
      for (const auto& kv : inner) {
        at_min[kv.first] = IntImm(static_cast<const VarNode*>(kv.first)->dtype, kv.second.first);
        all_vb[kv.first] = {kv.second.first, kv.second.second};
      }
      PrimExpr idx = stores[0][k];
      PrimExpr b = arith::Simplify(Substituter(at_min).VisitExpr(idx), {});
      arith::ConstIntBound d = arith::EvalConstIntBound(arith::Simplify(MakeBinary("tir.Sub", idx, b), all_vb), all_vb);
      if (d.min_value < 0 || d.max_value == arith::kPosInf) {
        TVM_FFI_THROW(ValueError) << "reverse_compute_at: cannot infer the tile of " << cache_name;
      }
      for (size_t s2 = 1; s2 < stores.size(); ++s2) {
        PrimExpr b2 = arith::Simplify(Substituter(at_min).VisitExpr(stores[s2][k]), {});
        if (!StructuralEqual(b, b2)) TVM_FFI_THROW(ValueError) << "reverse_compute_at: stores to " << cache_name << " disagree";
      }
      base[k] = b;
      extent[k] = d.max_value + 1;
    }
    // The compact cache tile, allocated inside the loop.
    Array<PrimExpr> tile_shape;
    for (size_t k = 0; k < nd; ++k) tile_shape.push_back(IntImm(cache->shape[k].dtype(), extent[k]));
    Buffer tile = MakeBuffer(Var(), cache->dtype, tile_shape, {}, std::string(cache->name));
    Stmt inner_body = BufferReplacer(cache.get(), tile, [&](const Array<PrimExpr>& idx) {
      Array<PrimExpr> r;
      for (size_t k = 0; k < nd; ++k) r.push_back(arith::Simplify(MakeBinary("tir.Sub", idx[k], base[k]), {}));
      return r;
    }).VisitStmt(n->body);
    // The copy of the tile, guarded against the output's bounds.
    std::vector<Var> vars;
    Array<PrimExpr> tidx, oidx;
    PrimExpr guard;
    for (size_t k = 0; k < nd; ++k) {
      vars.push_back(Var("ax" + std::to_string(k), cache->shape[k].dtype()));
      tidx.push_back(vars.back());
      PrimExpr o = MakeBinary("tir.Add", base[k], vars.back());
      oidx.push_back(o);
      PrimExpr in = MakeBinary("tir.LT", o, out->shape[k]);
      guard = guard.defined() ? MakeBinary("tir.And", guard, in) : in;
    }
    Stmt copy = MakeBufferStore(out, MakeBufferLoad(tile, tidx), oidx);
    if (guard.defined()) copy = MakeIfThenElse(guard, copy, Stmt());
    for (size_t k = nd; k-- > 0;) copy = MakeFor(vars[k], IntImm(vars[k]->dtype, 0), tile_shape[k], 0, copy);
    Stmt nb = MakeAllocate(tile, MakeSeq({inner_body, copy}));
    return MakeFor(n->loop_var, n->min, n->extent, n->kind, nb, std::string(n->thread_tag));
  }).VisitStmt(MakeSeq(seq));
  if (!found) TVM_FFI_THROW(ValueError) << "loop " << std::string(loop->name) << " is not in the function";
  std::vector<Buffer> kept;
  for (const Buffer& b : allocs) {
    if (b.get() != cache.get()) kept.push_back(b);
  }
  return WithBody(f, arith::SimplifyStmt(WrapAllocates(body, kept), {}));
}


class LoadCollector : public ExprMutator {
 public:
  explicit LoadCollector(const Object* buf) : buf_(buf) {}
  PrimExpr VisitExpr(const PrimExpr& e) override {
    if (auto* n = e.as<BufferLoadNode>(); n && n->buffer.get() == buf_) loads.push_back(n->indices);
    return MutateExprChildren(e);
  }
  std::vector<Array<PrimExpr>> loads;

 private:
  const Object* buf_;
};

/*!
 * \brief compute_at: moves the stage producing `name` under `loop` of a later stage that reads
 * it, computing only the region one iteration reads (union over the loads, constant
 * offsets apart). An intermediate buffer shrinks to that region inside the loop. The
 * producer must still have its TE loop nest (one loop per dimension, storing at the loop vars).
 */
PrimFunc ComputeAt(const PrimFunc& f, const std::string& name, const Var& loop) {
  Buffer buf = FindStoredBuffer(f->body, name);
  size_t nd = buf->shape.size();
  std::vector<Buffer> allocs;
  std::vector<Stmt> stages = Stages(PeelAllocates(f->body, &allocs));
  Stmt producer;
  Array<Stmt> seq;
  for (const Stmt& st : stages) {
    if (!producer.defined() && StoresTo(st, name)) producer = st;
    else seq.push_back(st);
  }
  if (!producer.defined()) TVM_FFI_THROW(ValueError) << "compute_at: no stage writes " << name;
  // The producer's data-parallel loops.
  std::vector<const ForNode*> ploops;
  Stmt pbody = producer;
  for (size_t k = 0; k < nd; ++k) {
    const ForNode* n = pbody.as<ForNode>();
    const int64_t* mn = n ? AsConstInt(n->min) : nullptr;
    if (n == nullptr || mn == nullptr || *mn != 0) {
      TVM_FFI_THROW(ValueError) << "compute_at: " << name << " must keep one loop per dimension (schedule it after compute_at)";
    }
    ploops.push_back(n);
    pbody = n->body;
  }
  std::vector<Array<PrimExpr>> stores;
  CollectStores(pbody, buf.get(), &stores);
  for (const Array<PrimExpr>& idx : stores) {
    for (size_t k = 0; k < nd; ++k) {
      if (!idx[k].same_as(ploops[k]->loop_var)) {
        TVM_FFI_THROW(ValueError) << "compute_at: " << name << " must store at its loop variables";
      }
    }
  }
  bool intermediate = false;
  std::vector<Buffer> kept;
  for (const Buffer& b : allocs) {
    if (b.get() == buf.get()) intermediate = true;
    else kept.push_back(b);
  }
  bool found = false;
  Stmt body = LoopReplacer(loop.get(), [&](const ForNode* n) {
    found = true;
    std::unordered_map<const Object*, std::pair<int64_t, int64_t>> inner;
    InnerLoops(n->body, &inner);
    LoadCollector lc(buf.get());
    lc.VisitStmt(n->body);
    if (lc.loads.empty()) TVM_FFI_THROW(ValueError) << "compute_at: " << name << " is not read under the loop";
    arith::VarBounds all_vb;
    std::unordered_map<const Object*, PrimExpr> at_min;
    for (const auto& kv : inner) {
      at_min[kv.first] = IntImm(static_cast<const VarNode*>(kv.first)->dtype, kv.second.first);
      all_vb[kv.first] = {kv.second.first, kv.second.second};
    }
    std::vector<PrimExpr> base(nd);
    std::vector<int64_t> extent(nd);
    for (size_t k = 0; k < nd; ++k) {
      PrimExpr b0;
      int64_t lo = 0, hi = 0;
      for (size_t j = 0; j < lc.loads.size(); ++j) {
        PrimExpr idx = lc.loads[j][k];
        PrimExpr b = arith::Simplify(Substituter(at_min).VisitExpr(idx), {});
        arith::ConstIntBound d = arith::EvalConstIntBound(arith::Simplify(MakeBinary("tir.Sub", idx, b), all_vb), all_vb);
        if (d.min_value < 0 || d.max_value == arith::kPosInf) TVM_FFI_THROW(ValueError) << "compute_at: cannot infer the region of " << name;
        int64_t off = 0;
        if (!b0.defined()) {
          b0 = b;
        } else {
          PrimExpr dist = arith::Simplify(MakeBinary("tir.Sub", b, b0), {});
          const int64_t* c = AsConstInt(dist);
          if (c == nullptr) TVM_FFI_THROW(ValueError) << "compute_at: reads of " << name << " are not a constant distance apart";
          off = *c;
        }
        lo = j == 0 ? off : std::min(lo, off);
        hi = j == 0 ? off + d.max_value : std::max(hi, off + d.max_value);
      }
      base[k] = arith::Simplify(MakeBinary("tir.Add", b0, IntImm(b0.dtype(), lo)), {});
      extent[k] = hi - lo + 1;
    }
    // The producer over the region, guarded by the buffer's bounds.
    std::unordered_map<const Object*, PrimExpr> sub;
    std::vector<Var> vars;
    PrimExpr guard;
    for (size_t k = 0; k < nd; ++k) {
      const Var& v = ploops[k]->loop_var;
      vars.push_back(Var(std::string(v->name), v->dtype));
      PrimExpr at = MakeBinary("tir.Add", base[k], MakeCast(base[k].dtype(), vars.back()));
      if (at.dtype() != v->dtype) at = MakeCast(v->dtype, at);
      sub[v.get()] = at;
      PrimExpr in = MakeBinary("tir.And", MakeBinary("tir.GE", at, IntImm(at.dtype(), 0)),
                               MakeBinary("tir.LT", at, MakeCast(at.dtype(), buf->shape[k])));
      guard = guard.defined() ? MakeBinary("tir.And", guard, in) : in;
    }
    Stmt pnest = Substitute(pbody, sub);
    if (guard.defined()) pnest = MakeIfThenElse(guard, pnest, Stmt());
    for (size_t k = nd; k-- > 0;) {
      pnest = MakeFor(vars[k], IntImm(vars[k]->dtype, 0), IntImm(vars[k]->dtype, extent[k]), 0, pnest);
    }
    Stmt nb = MakeSeq({pnest, n->body});
    if (intermediate) {
      Array<PrimExpr> tile_shape;
      for (size_t k = 0; k < nd; ++k) tile_shape.push_back(IntImm(buf->shape[k].dtype(), extent[k]));
      Buffer tile = MakeBuffer(Var(), buf->dtype, tile_shape, {}, std::string(buf->name));
      nb = BufferReplacer(buf.get(), tile, [&](const Array<PrimExpr>& idx) {
        Array<PrimExpr> r;
        for (size_t k = 0; k < nd; ++k) {
          r.push_back(arith::Simplify(MakeBinary("tir.Sub", idx[k], MakeCast(idx[k].dtype(), base[k])), {}));
        }
        return r;
      }).VisitStmt(nb);
      nb = MakeAllocate(tile, nb);
    }
    return MakeFor(n->loop_var, n->min, n->extent, n->kind, nb, std::string(n->thread_tag));
  }).VisitStmt(MakeSeq(seq));
  if (!found) TVM_FFI_THROW(ValueError) << "loop " << std::string(loop->name) << " is not in the function";
  return WithBody(f, arith::SimplifyStmt(WrapAllocates(body, intermediate ? kept : allocs), {}));
}


// ------------------------------------------------------------------------------------------
// decompose_reduction
// ------------------------------------------------------------------------------------------


/*!
 * \brief Splits the subtree `s` (which holds the reduction of `buf`: a SeqStmt whose first
 * element is the init store of `buf` and whose rest is the update) into the init-only and
 * the update-only subtrees. Returns false when `s` holds no such init.
 */
bool SplitInit(const Stmt& s, const Object* buf, Stmt* init, Stmt* update) {
  if (!s.defined()) return false;
  if (auto* n = s.as<ForNode>()) {
    Stmt i, u;
    if (!SplitInit(n->body, buf, &i, &u)) return false;
    *init = MakeFor(n->loop_var, n->min, n->extent, n->kind, i, std::string(n->thread_tag));
    *update = MakeFor(n->loop_var, n->min, n->extent, n->kind, u, std::string(n->thread_tag));
    return true;
  }
  if (auto* n = s.as<IfThenElseNode>()) {
    if (n->else_case.defined()) return false;
    Stmt i, u;
    if (!SplitInit(n->then_case, buf, &i, &u)) return false;
    *init = MakeIfThenElse(n->condition, i, Stmt());
    *update = MakeIfThenElse(n->condition, u, Stmt());
    return true;
  }
  if (auto* n = s.as<SeqStmtNode>()) {
    if (n->seq.size() >= 2) {
      auto* st = n->seq[0].as<BufferStoreNode>();
      if (st != nullptr && st->buffer.get() == buf) {
        LoadCollector lc(buf);
        lc.VisitExpr(st->value);
        bool rest_stores = false;
        for (size_t k = 1; k < n->seq.size(); ++k) {
          std::vector<Array<PrimExpr>> w;
          CollectStores(n->seq[k], buf, &w);
          rest_stores = rest_stores || !w.empty();
        }
        if (lc.loads.empty() && rest_stores) {
          *init = n->seq[0];
          Array<Stmt> rest(n->seq.begin() + 1, n->seq.end());
          *update = rest.size() == 1 ? rest[0] : MakeSeq(rest);
          return true;
        }
      }
    }
    // The reduction sits in one element; the others stay with the update.
    for (size_t k = 0; k < n->seq.size(); ++k) {
      Stmt i, u;
      if (SplitInit(n->seq[k], buf, &i, &u)) {
        Array<Stmt> rest(n->seq.begin(), n->seq.end());
        rest.Set(k, u);
        *init = i;
        *update = MakeSeq(rest);
        return true;
      }
    }
    return false;
  }
  return false;
}

// ------------------------------------------------------------------------------------------
// rfactor
// ------------------------------------------------------------------------------------------

/*! \brief The combiner key ("tir.Add", ...) of `B[idx] = op(B[idx], e)` (either side), or "". */
std::string CombinerOf(const BufferStoreNode* st) {
  auto self = [&](const PrimExpr& x) {
    auto* l = x.as<BufferLoadNode>();
    return l != nullptr && l->buffer.get() == st->buffer.get() &&
           StructuralEqual(ffi::Any(l->indices), ffi::Any(st->indices));
  };
  const PrimExpr& v = st->value;
  if (auto* n = v.as<AddNode>()) return self(n->a) || self(n->b) ? "tir.Add" : "";
  if (auto* n = v.as<MulNode>()) return self(n->a) || self(n->b) ? "tir.Mul" : "";
  if (auto* n = v.as<MaxNode>()) return self(n->a) || self(n->b) ? "tir.Max" : "";
  if (auto* n = v.as<MinNode>()) return self(n->a) || self(n->b) ? "tir.Min" : "";
  return "";
}

/*!
 * \brief rfactor: splits the reduction under `loop` (a reduction loop: the output's indices do
 * not use it) in two stages. The first computes partial results into `<out>_rf`, which has
 * one more dimension (at `factor_axis`) for `loop`'s iteration, with `loop` moved outermost
 * (iterations are independent: parallelize or vectorize it); the second combines them.
 */
Array<Any> RFactor(const PrimFunc& f, const Var& loop, int64_t factor_axis) {
  std::vector<Buffer> allocs;
  std::vector<Stmt> stages = Stages(PeelAllocates(f->body, &allocs));
  size_t at = stages.size();
  for (size_t k = 0; k < stages.size() && at == stages.size(); ++k) {
    if (UsesVar(stages[k], loop.get())) at = k;
  }
  if (at == stages.size()) TVM_FFI_THROW(ValueError) << "rfactor: loop " << std::string(loop->name) << " is not in the function";
  // The loop, and the reduction store under it.
  const ForNode* target = nullptr;
  LoopReplacer find(loop.get(), [&](const ForNode* n) {
    target = n;
    return MakeFor(n->loop_var, n->min, n->extent, n->kind, n->body, std::string(n->thread_tag));
  });
  find.VisitStmt(stages[at]);
  std::vector<const BufferStoreNode*> under;
  StoresUnder(target->body, &under);
  if (under.empty()) TVM_FFI_THROW(ValueError) << "rfactor: nothing is stored under " << std::string(loop->name);
  const BufferStoreNode* update = under.back();
  Buffer out = update->buffer;
  for (const PrimExpr& idx : update->indices) {
    if (ExprUsesVar(idx, loop.get())) {
      TVM_FFI_THROW(ValueError) << "rfactor: " << std::string(loop->name) << " is not a reduction loop of "
                                << std::string(out->name) << " (its indices use it)";
    }
  }
  std::string comb = CombinerOf(update);
  for (const BufferStoreNode* st : under) {
    if (st->buffer.get() != out.get() || CombinerOf(st) != comb) comb.clear();
  }
  if (comb.empty()) {
    TVM_FFI_THROW(ValueError) << "rfactor: the stores under " << std::string(loop->name)
                              << " are not one reduction (B[i] = B[i] + e, *, max or min)";
  }
  const int64_t* mn = AsConstInt(target->min);
  if (mn == nullptr || *mn != 0) TVM_FFI_THROW(ValueError) << "rfactor: the loop must start at 0";
  // The init: a store to the output, in the stage but outside the loop, that does not read it.
  std::vector<const BufferStoreNode*> all;
  StoresUnder(stages[at], &all);
  PrimExpr identity;
  for (const BufferStoreNode* st : all) {
    LoadCollector lc(out.get());
    lc.VisitExpr(st->value);
    if (st->buffer.get() == out.get() && lc.loads.empty()) identity = st->value;
  }
  if (!identity.defined()) {
    TVM_FFI_THROW(ValueError) << "rfactor: no init of " << std::string(out->name)
                              << " in its stage (rfactor before decompose_reduction)";
  }
  // The partials' new dimension goes at `factor_axis` of the output's shape: where it lands
  // decides which partials are adjacent in memory (e.g. after the thread's dimension, each
  // thread's vector lanes stay contiguous and on cache lines of their own).
  int64_t nd = static_cast<int64_t>(out->shape.size());
  if (factor_axis < 0) factor_axis += nd + 1;
  if (factor_axis < 0 || factor_axis > nd) {
    TVM_FFI_THROW(IndexError) << "rfactor: factor_axis must be in [" << -(nd + 1) << ", " << nd << "]";
  }
  auto with_axis = [&](const Array<PrimExpr>& idx, const PrimExpr& x) {
    Array<PrimExpr> j;
    for (int64_t k = 0; k <= nd; ++k) {
      if (k == factor_axis) j.push_back(x);
      if (k < nd) j.push_back(idx[k]);
    }
    return j;
  };
  // Stage 1: `for v in loop's range: <the stage, loop removed, out[idx] -> rf[.., v, ..]>`.
  Var v(std::string(loop->name) + "_rf", loop->dtype);
  Array<PrimExpr> rf_shape = with_axis(out->shape, target->extent);
  std::string rf_name = FreshStoredName(f->body, std::string(out->name) + "_rf");
  Buffer rf = MakeBuffer(Var(), out->dtype, rf_shape, {}, rf_name);
  Stmt partial = LoopReplacer(loop.get(), [&](const ForNode* n) { return n->body; }).VisitStmt(stages[at]);
  partial = Substitute(partial, {{loop.get(), v}});
  partial = BufferReplacer(out.get(), rf, [&](const Array<PrimExpr>& i) { return with_axis(i, v); })
                .VisitStmt(partial);
  partial = MakeFor(v, IntImm(v->dtype, 0), target->extent, 0, partial);
  // Stage 2: out[ax] = identity; for r: out[ax] = comb(out[ax], rf[r, ax]).
  AxisLoops ax(out->shape);
  Var r(std::string(loop->name) + "_v", loop->dtype);
  PrimExpr merged = MakeBinary(comb, MakeBufferLoad(out, ax.idx), MakeBufferLoad(rf, with_axis(ax.idx, r)));
  Stmt combine = MakeFor(r, IntImm(r->dtype, 0), target->extent, 0, MakeBufferStore(out, merged, ax.idx));
  Stmt final_stage = ax.Nest(MakeSeq({MakeBufferStore(out, identity, ax.idx), combine}));
  Array<Stmt> seq;
  for (size_t k = 0; k < stages.size(); ++k) {
    if (k == at) {
      seq.push_back(partial);
      seq.push_back(final_stage);
    } else {
      seq.push_back(stages[k]);
    }
  }
  allocs.push_back(rf);
  return Array<Any>{WithBody(f, WrapAllocates(MakeSeq(seq), allocs)), String(rf_name)};
}

/*! \brief Drops loops whose var the init does not use; renames the others to `<v>_init`. */
Stmt PruneInit(const Stmt& s, Array<Var>* loops) {
  if (auto* n = s.as<ForNode>()) {
    if (!UsesVar(n->body, n->loop_var.get())) return PruneInit(n->body, loops);
    Var v(std::string(n->loop_var->name) + "_init", n->loop_var->dtype);
    loops->push_back(v);
    Stmt body = PruneInit(Substitute(n->body, {{n->loop_var.get(), v}}), loops);
    return MakeFor(v, n->min, n->extent, n->kind, body, std::string(n->thread_tag));
  }
  if (auto* n = s.as<IfThenElseNode>()) {
    return MakeIfThenElse(n->condition, PruneInit(n->then_case, loops), Stmt());
  }
  return s;
}

/*!
 * \brief decompose_reduction: the init of the reduction writing `name` moves out of the loop
 * nest into its own nest placed just before `loop` (an ancestor of the reduction's init);
 * the update nest under `loop` becomes perfectly nested. Init loops are fresh `<v>_init`
 * Vars (loops the init does not depend on are dropped) and keep their loop kinds.
 */
Array<Any> DecomposeReduction(const PrimFunc& f, const std::string& name, const Var& loop) {
  Buffer buf = FindStoredBuffer(f->body, name);
  Array<Var> init_loops;
  PrimFunc out = ReplaceLoop(f, loop, [&](const ForNode* n) {
    Stmt init, update;
    if (!SplitInit(n->body, buf.get(), &init, &update)) {
      TVM_FFI_THROW(ValueError) << "decompose_reduction: no reduction init of " << name << " under loop "
                                << std::string(loop->name);
    }
    init = MakeFor(n->loop_var, n->min, n->extent, n->kind, init, std::string(n->thread_tag));
    update = MakeFor(n->loop_var, n->min, n->extent, n->kind, update, std::string(n->thread_tag));
    return MakeSeq({PruneInit(init, &init_loops), update});
  });
  return Array<Any>{out, init_loops};
}

}  // namespace

TVM_FFI_STATIC_INIT_BLOCK() {
  RegisterCompilerGlobal("tir.schedule.ComputeAt", [](PrimFunc f, std::string name, Var loop) {
    return ComputeAt(f, name, loop);
  });

  RegisterCompilerGlobal("tir.schedule.DecomposeReduction", [](PrimFunc f, std::string name, Var loop) {
    return DecomposeReduction(f, name, loop);
  });

  RegisterCompilerGlobal("tir.schedule.RFactor", [](PrimFunc f, Var loop, int64_t factor_axis) {
    return RFactor(f, loop, factor_axis);
  });
  RegisterCompilerGlobal("tir.schedule.CacheRead", [](PrimFunc f, std::string consumer, int64_t index) {
    return CacheRead(f, consumer, index);
  });
  RegisterCompilerGlobal("tir.schedule.CacheWrite", [](PrimFunc f, std::string name) {
    return CacheWrite(f, name);
  });
  RegisterCompilerGlobal("tir.schedule.ReverseComputeAt", [](PrimFunc f, std::string out_name, Var loop,
                                                             std::string cache_name) {
    return ReverseComputeAt(f, out_name, loop, cache_name);
  });

  RegisterCompilerGlobal("tir.schedule.GetLoops", [](PrimFunc f, std::string block) {
    std::vector<Var> stack;
    Array<Var> out;
    if (!FindLoops(f->body, block, &stack, &out)) {
      TVM_FFI_THROW(ValueError) << "no block (buffer store) named " << block;
    }
    return out;
  });
  RegisterCompilerGlobal("tir.schedule.Split", [](PrimFunc f, Var loop, Array<Any> factors) {
    return Split(f, loop, factors);
  });
  RegisterCompilerGlobal("tir.schedule.Fuse", [](PrimFunc f, Var outer, Var inner) {
    return Fuse(f, outer, inner);
  });
  RegisterCompilerGlobal("tir.schedule.Reorder", [](PrimFunc f, Array<Var> order) {
    return Reorder(f, order);
  });
  RegisterCompilerGlobal("tir.schedule.Annotate", [](PrimFunc f, Var loop, int64_t kind) {
    return Annotate(f, loop, kind);
  });
}

}  // namespace tvm
