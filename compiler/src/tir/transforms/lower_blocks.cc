/*
 * The block-lowering passes, run first by the TIR pipeline (tvm.driver.lower):
 *
 *   LowerInitBlock          a reduction block's `init` becomes `if <first reduction point>:
 *                           init` at the top of its body.
 *   ConvertBlocksToOpaque   iter vars are replaced by their bindings (blocks keep only their
 *                           predicate, allocations and body).
 *   CompactBufferAllocation each intermediate buffer is allocated at the innermost loop that
 *                           encloses all its accesses, shrunk to the region those accesses
 *                           touch in one iteration of that loop (when the extents are
 *                           constants): a cache computed at a tile loop becomes a tile.
 *                           GPU scopes: a "shared" region covers every threadIdx value,
 *                           "global" stays above every launch loop.
 *   LowerOpaqueBlock        blocks become plain statements: predicate -> IfThenElse,
 *                           alloc_buffers -> Allocate.
 */
#include <tvm/arith/analyzer.h>
#include <tvm/ffi/error.h>
#include <tvm/tir/functor.h>

#include <algorithm>
#include <array>

#include "../../support/registry.h"
#include "../analysis/analysis.h"

namespace tvm {
namespace tir {
namespace {

Block Rebuild(const BlockNode* b, Array<IterVar> ivs, Stmt body, Stmt init, Array<Buffer> allocs) {
  return MakeBlock(std::move(ivs), b->reads, b->writes, std::string(b->name_hint), std::move(body),
                   std::move(init), std::move(allocs), b->annotations);
}

// A reduction block's init runs where every reduction var is at its minimum.
Stmt LowerInit(const Stmt& x) {
  auto* b = x.as<BlockNode>();
  if (b == nullptr || !b->init.defined()) return x;
  std::vector<PrimExpr> first;
  for (const IterVar& iv : b->iter_vars) {
    if (iv->kind == 2) first.push_back(MakeBinary("tir.EQ", iv->var, iv->min));
  }
  Stmt init = first.empty() ? b->init : MakeIfThenElse(AndAll(first), b->init, Stmt());
  return Rebuild(b, b->iter_vars, MakeSeq({init, b->body}), Stmt(), b->alloc_buffers);
}

class OpaqueConverter : public ExprMutator {
 public:
  PrimExpr VisitExpr(const PrimExpr& e) override { return e; }
  Stmt VisitStmt(const Stmt& s) override {
    auto* r = s.as<BlockRealizeNode>();
    if (r == nullptr) return MutateStmtChildren(s);
    const BlockNode* b = r->block.get();
    VarMap m;
    for (size_t i = 0; i < b->iter_vars.size(); ++i) m[b->iter_vars[i]->var.get()] = r->iter_values[i];
    if (b->init.defined()) TVM_FFI_THROW(InternalError) << "ConvertBlocksToOpaque: run LowerInitBlock first";
    Stmt body = VisitStmt(Substitute(b->body, m));
    return MakeBlockRealize({}, r->predicate, Rebuild(b, {}, body, Stmt(), b->alloc_buffers));
  }
};

// ---- CompactBufferAllocation ----

struct AccessSite {
  std::vector<const ForNode*> loops;  // from the allocating block down to the access
  Array<PrimExpr> indices;
};

class SiteCollector : public ExprMutator {
 public:
  explicit SiteCollector(const Object* buf) : buf_(buf) {}
  PrimExpr VisitExpr(const PrimExpr& e) override {
    if (auto* n = e.as<BufferLoadNode>(); n && n->buffer.get() == buf_) sites.push_back({loops_, n->indices});
    return MutateExprChildren(e);
  }
  Stmt VisitStmt(const Stmt& s) override {
    if (auto* n = s.as<BufferStoreNode>(); n && n->buffer.get() == buf_) sites.push_back({loops_, n->indices});
    if (auto* n = s.as<ForNode>()) {
      loops_.push_back(n);
      VisitStmt(n->body);
      loops_.pop_back();
      return s;
    }
    return MutateStmtChildren(s);
  }
  std::vector<AccessSite> sites;

 private:
  const Object* buf_;
  std::vector<const ForNode*> loops_;
};

class IndexRebaser : public ExprMutator {
 public:
  IndexRebaser(const Buffer& from, const Buffer& to, Array<PrimExpr> mins)
      : from_(from), to_(to), mins_(std::move(mins)) {}
  PrimExpr VisitExpr(const PrimExpr& e) override {
    PrimExpr x = MutateExprChildren(e);
    if (auto* n = x.as<BufferLoadNode>(); n && n->buffer.same_as(from_)) return MakeBufferLoad(to_, Rebase(n->indices));
    return x;
  }
  Stmt VisitStmt(const Stmt& s) override {
    Stmt x = MutateStmtChildren(s);
    if (auto* n = x.as<BufferStoreNode>(); n && n->buffer.same_as(from_)) {
      return MakeBufferStore(to_, n->value, Rebase(n->indices));
    }
    return x;
  }

 private:
  Array<PrimExpr> Rebase(const Array<PrimExpr>& idx) {
    Array<PrimExpr> out;
    // The new origin in each access's own index type (an int32 read of an int64-shaped buffer).
    for (size_t d = 0; d < idx.size(); ++d) {
      out.push_back(Simp(MakeBinary("tir.Sub", idx[d], Simp(MakeCast(idx[d].dtype(), mins_[d])))));
    }
    return out;
  }
  Buffer from_, to_;
  Array<PrimExpr> mins_;
};

/*! \brief Wraps the body of loop `lca` (or `body` itself when null) in an Allocate of `buf`. */
class AllocPlacer : public ExprMutator {
 public:
  AllocPlacer(const ForNode* lca, const Buffer& buf) : lca_(lca), buf_(buf) {}
  PrimExpr VisitExpr(const PrimExpr& e) override { return e; }
  Stmt VisitStmt(const Stmt& s) override {
    if (s.get() == lca_) {
      auto* f = s.as<ForNode>();
      return WithBody(f, MakeAllocate(buf_, f->body));
    }
    return MutateStmtChildren(s);
  }

 private:
  const ForNode* lca_;
  Buffer buf_;
};

// storage_align requests: buffer -> [(axis, factor, offset)], from the writers' annotations.
using AlignMap = std::unordered_map<const Object*, std::vector<std::array<int64_t, 3>>>;

AlignMap CollectAligns(const Stmt& body) {
  AlignMap out;
  for (const BlockRealizeNode* r : AllBlocks(body)) {
    const BlockNode* b = r->block.get();
    std::optional<Any> ann = b->annotations.Get(String("buffer_dim_align"));
    if (!ann.has_value()) continue;
    for (const Any& e : ann->cast<Array<Any>>()) {
      Array<Any> v = e.cast<Array<Any>>();
      int64_t idx = v[0].cast<int64_t>();
      if (idx < 0 || idx >= static_cast<int64_t>(b->writes.size())) continue;
      out[b->writes[idx]->buffer.get()].push_back({v[1].cast<int64_t>(), v[2].cast<int64_t>(), v[3].cast<int64_t>()});
    }
  }
  return out;
}

/*! \brief Row-major strides of `shape`, padded on the aligned axes (stride % factor == offset). */
Array<PrimExpr> AlignedStrides(const Array<PrimExpr>& shape, const std::vector<std::array<int64_t, 3>>& aligns) {
  size_t nd = shape.size();
  std::vector<PrimExpr> strides(nd);
  DataType t = nd ? shape[nd - 1].dtype() : Int(32);
  PrimExpr stride = IntImm(t, 1);
  for (size_t k = nd; k-- > 0;) {
    for (const auto& a : aligns) {
      if (a[0] != static_cast<int64_t>(k)) continue;
      // The smallest s' >= s with s' % factor == offset.
      PrimExpr f = IntImm(t, a[1]), o = IntImm(t, a[2]);
      PrimExpr up = MakeBinary("tir.FloorDiv", Add(MakeBinary("tir.Sub", stride, o), IntImm(t, a[1] - 1)), f);
      stride = Simp(Add(Mul(up, f), o));
    }
    strides[k] = stride;
    stride = Simp(Mul(stride, MakeCast(t, shape[k])));
  }
  return Array<PrimExpr>(strides.begin(), strides.end());
}

class Compactor : public ExprMutator {
 public:
  explicit Compactor(AlignMap aligns) : aligns_(std::move(aligns)) {}
  PrimExpr VisitExpr(const PrimExpr& e) override { return e; }
  Stmt VisitStmt(const Stmt& s) override {
    Stmt x = MutateStmtChildren(s);
    auto* b = x.as<BlockNode>();
    if (b == nullptr || b->alloc_buffers.empty()) return x;
    Stmt body = b->body;
    Array<Buffer> kept;
    for (const Buffer& buf : b->alloc_buffers) {
      if (Compact(buf, &body)) continue;
      auto it = aligns_.find(buf.get());
      if (it == aligns_.end()) {
        kept.push_back(buf);
        continue;
      }
      Buffer nb = MakeBuffer(buf->data, buf->dtype, buf->shape, AlignedStrides(buf->shape, it->second),
                             std::string(buf->name), std::string(buf->scope));
      Array<PrimExpr> zeros;
      for (const PrimExpr& d : buf->shape) zeros.push_back(IntImm(d.dtype(), 0));
      body = IndexRebaser(buf, nb, zeros).VisitStmt(body);
      kept.push_back(nb);
    }
    return Rebuild(b, b->iter_vars, body, b->init, kept);
  }

 private:
  AlignMap aligns_;

  // Moves `buf` to the innermost loop enclosing all its accesses, shrunk; false if it stays.
  bool Compact(const Buffer& buf, Stmt* body) {
    SiteCollector c(buf.get());
    c.VisitStmt(*body);
    if (c.sites.empty()) return false;
    size_t common = c.sites[0].loops.size();
    for (const AccessSite& s : c.sites) {
      size_t k = 0;
      while (k < common && k < s.loops.size() && s.loops[k] == c.sites[0].loops[k]) ++k;
      common = k;
    }
    common = ScopeLimit(buf, c.sites[0].loops, common);
    std::unordered_map<const Object*, Range> shared_relax;  // threadIdx loops above a "shared" LCA
    if (std::string(buf->scope).rfind("shared", 0) == 0) {
      for (size_t k = 0; k < common; ++k) {
        const ForNode* l = c.sites[0].loops[k];
        if (l->kind == static_cast<int64_t>(ForKind::kThreadBinding) &&
            std::string(l->thread_tag).rfind("threadIdx", 0) == 0) {
          shared_relax[l->loop_var.get()] = Range(l->min, l->extent);
        }
      }
    }
    std::vector<Interval> hull(buf->shape.size());
    for (const AccessSite& s : c.sites) {
      std::unordered_map<const Object*, Range> relax = shared_relax;
      for (size_t k = common; k < s.loops.size(); ++k) {
        relax[s.loops[k]->loop_var.get()] = Range(s.loops[k]->min, s.loops[k]->extent);
      }
      for (size_t d = 0; d < hull.size(); ++d) {
        Interval iv = EvalInterval(s.indices[d], relax);
        if (!iv.ok) return false;
        UnionInto(&hull[d], iv);
      }
    }
    Array<PrimExpr> shape, mins;
    bool shrinks = false;
    for (size_t d = 0; d < hull.size(); ++d) {
      PrimExpr ext = Simp(Add(MakeBinary("tir.Sub", hull[d].max, hull[d].min), IntImm(hull[d].min.dtype(), 1)));
      const int64_t* ce = AsConstInt(ext);
      if (ce == nullptr || *ce <= 0) return false;
      const PrimExpr& old_ext = buf->shape[d];
      const int64_t* old = AsConstInt(old_ext);
      if (old != nullptr && *ce >= *old) {
        // Not smaller: keep the dimension whole (no rebasing needed).
        shape.push_back(buf->shape[d]);
        mins.push_back(IntImm(buf->shape[d].dtype(), 0));
        continue;
      }
      shrinks = true;
      shape.push_back(IntImm(buf->shape[d].dtype(), *ce));
      mins.push_back(MakeCast(buf->shape[d].dtype(), hull[d].min));
    }
    const ForNode* lca = common == 0 ? nullptr : c.sites[0].loops[common - 1];
    if (!shrinks && lca == nullptr) return false;
    auto al = aligns_.find(buf.get());
    Array<PrimExpr> strides = al == aligns_.end() ? Array<PrimExpr>() : AlignedStrides(shape, al->second);
    Buffer nb = MakeBuffer(buf->data, buf->dtype, shape, strides, std::string(buf->name), std::string(buf->scope));
    Stmt rebased = IndexRebaser(buf, nb, mins).VisitStmt(*body);
    *body = lca == nullptr ? MakeAllocate(nb, rebased) : AllocPlacer(FindSame(rebased, lca), nb).VisitStmt(rebased);
    return true;
  }

  // GPU memory scopes: a "global" buffer lives outside the kernel, above every loop bound to
  // blockIdx/threadIdx. A "shared" one is one per thread block: it may be allocated under
  // threadIdx loops (the kernel holds it statically), but its region covers all their values.
  // "local" is per thread.
  static size_t ScopeLimit(const Buffer& buf, const std::vector<const ForNode*>& loops, size_t common) {
    if (std::string(buf->scope) != "global") return common;
    for (size_t k = 0; k < common; ++k) {
      const ForNode* f = loops[k];
      if (f->kind == static_cast<int64_t>(ForKind::kThreadBinding)) return k;
    }
    return common;
  }

  // The loop of `rebased` with the same loop var as `lca` (the rebasing rebuilt the loops).
  static const ForNode* FindSame(const Stmt& rebased, const ForNode* lca) {
    const ForNode* out = nullptr;
    std::function<void(const Stmt&)> go = [&](const Stmt& s) {
      if (!s.defined() || out) return;
      if (auto* f = s.as<ForNode>()) {
        if (f->loop_var.same_as(lca->loop_var)) {
          out = f;
          return;
        }
        go(f->body);
      } else if (auto* n = s.as<SeqStmtNode>()) {
        for (const Stmt& y : n->seq) go(y);
      } else if (auto* n = s.as<BlockRealizeNode>()) {
        go(n->block->body);
      } else if (auto* n = s.as<IfThenElseNode>()) {
        go(n->then_case);
        go(n->else_case);
      } else if (auto* n = s.as<AllocateNode>()) {
        go(n->body);
      } else if (auto* n = s.as<LetStmtNode>()) {
        go(n->body);
      }
    };
    go(rebased);
    return out;
  }
};

// An opaque block becomes its body inside its allocations, under its predicate.
Stmt LowerOpaque(const Stmt& x) {
  auto* r = x.as<BlockRealizeNode>();
  if (r == nullptr) return x;
  const BlockNode* b = r->block.get();
  if (!b->iter_vars.empty()) TVM_FFI_THROW(InternalError) << "LowerOpaqueBlock: run ConvertBlocksToOpaque first";
  Stmt body = b->body;
  for (size_t i = b->alloc_buffers.size(); i-- > 0;) body = MakeAllocate(b->alloc_buffers[i], body);
  if (!IsConstTrue(r->predicate)) body = MakeIfThenElse(r->predicate, body, Stmt());
  return body;
}

}  // namespace

PrimFunc LowerInitBlock(const PrimFunc& f) { return WithBody(f, PostOrderRewrite(f->body, LowerInit)); }
PrimFunc ConvertBlocksToOpaque(const PrimFunc& f) { return WithBody(f, OpaqueConverter().VisitStmt(f->body)); }
PrimFunc CompactBufferAllocation(const PrimFunc& f) {
  return WithBody(f, Compactor(CollectAligns(f->body)).VisitStmt(f->body));
}
PrimFunc LowerOpaqueBlock(const PrimFunc& f) { return WithBody(f, PostOrderRewrite(f->body, LowerOpaque)); }

TVM_FFI_STATIC_INIT_BLOCK() {
  RegisterCompilerGlobal("tir.transform.LowerInitBlock", [](PrimFunc f) { return LowerInitBlock(f); });
  RegisterCompilerGlobal("tir.transform.ConvertBlocksToOpaque", [](PrimFunc f) { return ConvertBlocksToOpaque(f); });
  RegisterCompilerGlobal("tir.transform.CompactBufferAllocation", [](PrimFunc f) { return CompactBufferAllocation(f); });
  RegisterCompilerGlobal("tir.transform.LowerOpaqueBlock", [](PrimFunc f) { return LowerOpaqueBlock(f); });
}

}  // namespace tir
}  // namespace tvm
