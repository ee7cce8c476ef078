/*
 * GeneralizeDim ("tir.GeneralizeDim"): one PrimFunc for two that differ only in one dimension.
 *
 * A network's layers often make kernels that are the same but for one size: an MLP's
 * 784- and 512-input layers (K), DenseNet's 1x1 convolutions over 64 + 32k channels. Each is
 * scheduled the same way and costs LLVM as much as the other. Given two such PrimFuncs f and
 * g, this makes one with a shape variable in place of the dimension: the constants where f
 * and g differ (found by StructuralEqualModuloInts) must each be c * d + e of the differing
 * dimension d (its values in a parameter's shape: d_f in f, d_g in g) with the same integers
 * c and e in both, e.g. the packed weight's stride 32 * K or a tile offset 32 * K + 16. Each
 * becomes that expression of the new variable, which the parameter's shape binds at run time
 * (like a symbolic batch).
 *
 * The result is checked before it is returned: with the variable replaced by d_g's
 * constants it must be structurally equal to g (by construction it is f with d_f's). Loops
 * whose kind needs a constant extent (vectorized, unrolled) and scratch buffers never take
 * the variable, and the dimension must be at least `min_value` in both (shorter loops gain
 * from constant extents).
 * Anything else returns None: the functions stay apart.
 */
#include <tvm/ir/structural.h>
#include <tvm/tir/functor.h>

#include <unordered_map>

#include "../../support/registry.h"
#include "../analysis/analysis.h"

namespace tvm {
namespace tir {
namespace {

struct Affine {
  int64_t scale, offset;  // the constant is scale * d + offset
};

// `f` with each listed IntImm (by identity) replaced by scale * dim + offset: an expression of
// `dim` (a Var) or, for the check, the constant it has at one value of it.
class IntReplacer : public ExprMutator {
 public:
  IntReplacer(const std::unordered_map<const Object*, Affine>& at, PrimExpr dim, const int64_t* value)
      : at_(at), dim_(std::move(dim)), value_(value) {}

  // A replaced constant is a vectorized or unrolled loop's extent, or the size of a scratch
  // buffer (sized at run time it would leave the stack for the heap).
  bool unsafe = false;

  PrimFunc Apply(const PrimFunc& f) {
    Map<Var, Buffer> buffer_map;
    for (const auto& kv : f->buffer_map) buffer_map.Set(kv.first, Remap(kv.second));
    return MakePrimFunc(f->params, buffer_map, VisitStmt(f->body), f->attrs);
  }

  PrimExpr VisitExpr(const PrimExpr& e) override {
    if (auto* n = e.as<IntImmNode>()) {
      auto it = at_.find(n);
      if (it == at_.end()) return e;
      const Affine& a = it->second;
      if (value_ != nullptr) return IntImm(n->dtype, a.scale * *value_ + a.offset);
      PrimExpr d = dim_.dtype() == n->dtype ? dim_ : MakeCast(n->dtype, dim_);
      PrimExpr x = a.scale == 1 ? d : MakeBinary("tir.Mul", d, IntImm(n->dtype, a.scale));
      return a.offset == 0 ? x : MakeBinary("tir.Add", x, IntImm(n->dtype, a.offset));
    }
    PrimExpr x = MutateExprChildren(e);
    if (auto* n = x.as<BufferLoadNode>()) {
      Buffer b = Remap(n->buffer);
      if (!b.same_as(n->buffer)) return MakeBufferLoad(b, n->indices);
    }
    return x;
  }

  Stmt VisitStmt(const Stmt& s) override {
    if (auto* n = s.as<ForNode>()) {
      bool fixed_extent = n->kind == static_cast<int64_t>(ForKind::kVectorized) ||
                          n->kind == static_cast<int64_t>(ForKind::kUnrolled);
      if (fixed_extent && !VisitExpr(n->extent).same_as(n->extent)) unsafe = true;
    }
    Stmt x = MutateStmtChildren(s);
    if (auto* n = x.as<BufferStoreNode>()) {
      Buffer b = Remap(n->buffer);
      if (!b.same_as(n->buffer)) return MakeBufferStore(b, n->value, n->indices);
    }
    if (auto* n = x.as<AllocateNode>()) {
      Buffer b = Remap(n->buffer);
      if (!b.same_as(n->buffer)) {
        unsafe = true;
        return MakeAllocate(b, n->body);
      }
    }
    if (auto* n = x.as<BlockNode>()) {
      bool changed = false;
      auto regions = [&](const Array<BufferRegion>& rs) {
        Array<BufferRegion> out;
        for (const BufferRegion& r : rs) {
          Buffer b = Remap(r->buffer);
          changed |= !b.same_as(r->buffer);
          out.push_back(b.same_as(r->buffer) ? r : BufferRegion(b, r->region));
        }
        return out;
      };
      Array<BufferRegion> reads = regions(n->reads), writes = regions(n->writes);
      Array<Buffer> allocs;
      for (const Buffer& b : n->alloc_buffers) {
        allocs.push_back(Remap(b));
        if (!allocs.back().same_as(b)) changed = unsafe = true;
      }
      if (changed) {
        return MakeBlock(n->iter_vars, reads, writes, std::string(n->name_hint), n->body, n->init,
                         allocs, n->annotations);
      }
    }
    return x;
  }

 private:
  // A buffer whose shape or strides hold a replaced constant, rebuilt once (same data Var).
  Buffer Remap(const Buffer& b) {
    auto it = buffers_.find(b.get());
    if (it != buffers_.end()) return it->second;
    bool changed = false;
    Array<PrimExpr> shape = VisitArray(b->shape, &changed);
    Array<PrimExpr> strides = VisitArray(b->strides, &changed);
    Buffer out = changed ? MakeBuffer(b->data, b->dtype, shape, strides, std::string(b->name), std::string(b->scope)) : b;
    buffers_[b.get()] = out;
    return out;
  }

  const std::unordered_map<const Object*, Affine>& at_;
  PrimExpr dim_;
  const int64_t* value_;
  std::unordered_map<const Object*, Buffer> buffers_;
};

// The first parameter dimension where f and g differ: (f's value, g's value), or false.
bool DifferingDim(const PrimFunc& f, const PrimFunc& g, int64_t* df, int64_t* dg, DataType* dtype) {
  if (f->params.size() != g->params.size()) return false;
  for (size_t i = 0; i < f->params.size(); ++i) {
    auto bf = f->buffer_map.find(f->params[i]);
    auto bg = g->buffer_map.find(g->params[i]);
    if (bf == f->buffer_map.end() || bg == g->buffer_map.end()) continue;
    const Array<PrimExpr>& sf = (*bf).second->shape;
    const Array<PrimExpr>& sg = (*bg).second->shape;
    if (sf.size() != sg.size()) return false;
    for (size_t k = 0; k < sf.size(); ++k) {
      PrimExpr ef = sf[k], eg = sg[k];
      const int64_t* a = AsConstInt(ef);
      const int64_t* b = AsConstInt(eg);
      if (a != nullptr && b != nullptr && *a != *b) {
        *df = *a;
        *dg = *b;
        *dtype = sf[k].dtype();
        return true;
      }
    }
  }
  return false;
}

PrimFunc GeneralizeDim(const PrimFunc& f, const PrimFunc& g, int64_t min_value, const String& name) {
  std::vector<IntDiff> diffs;
  if (!StructuralEqualModuloInts(f, g, &diffs) || diffs.empty()) return PrimFunc();
  int64_t df = 0, dg = 0;
  DataType dtype;
  if (!DifferingDim(f, g, &df, &dg, &dtype) || df < min_value || dg < min_value) return PrimFunc();
  std::unordered_map<const Object*, Affine> at;
  for (const IntDiff& d : diffs) {
    int64_t delta = d.first - d.second;
    if (delta % (df - dg) != 0) return PrimFunc();
    Affine a{delta / (df - dg), 0};
    a.offset = d.first - a.scale * df;
    auto it = at.find(d.node);
    if (it != at.end() && (it->second.scale != a.scale || it->second.offset != a.offset)) {
      return PrimFunc();  // one shared constant object meant two things
    }
    at[d.node] = a;
  }
  IntReplacer check(at, PrimExpr(), &dg);
  if (!StructuralEqual(check.Apply(f), g) || check.unsafe) return PrimFunc();
  IntReplacer generic(at, Var(std::string(name), dtype), nullptr);
  return generic.Apply(f);
}

}  // namespace

TVM_FFI_STATIC_INIT_BLOCK() {
  // The generic function, or None when f and g do not differ in one dimension only.
  RegisterCompilerGlobal("tir.GeneralizeDim", [](PrimFunc f, PrimFunc g, int64_t min_value, String name) -> Any {
    PrimFunc out = GeneralizeDim(f, g, min_value, name);
    return out.defined() ? Any(out) : Any();
  });
}

}  // namespace tir
}  // namespace tvm
