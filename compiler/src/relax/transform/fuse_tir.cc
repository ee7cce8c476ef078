/*
 * The core of relax.transform.FuseTIR (python/tvm/relax/transform/fuse_tir.py): the PrimFuncs
 * that one fused Relax function calls, merged into ONE PrimFunc.
 *
 * The fused function is described by a table of values (each a tensor: shape + dtype): the
 * first `num_params` are its parameters, then every callee's outputs in call order. Each call
 * names the values it reads and writes (destination-passing order, as call_tir passes them).
 * Values that are parameters or results become the new function's arguments; the others
 * become buffers allocated in its root block. Each callee's root-block body is copied in call
 * order with its buffers replaced and its shape variables bound to the caller's expressions,
 * so DefaultSchedule later sees one function with one block per stage (and inlines the
 * elementwise ones), exactly what a TE composition of the stages would have produced.
 */
#include <tvm/tir/functor.h>

#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "../../support/registry.h"
#include "../../tir/analysis/analysis.h"

namespace tvm {
namespace relax {
namespace {

using tir::VarMap;
// TIR's variables, not Relax's (this file lives in namespace relax).
using TirVar = ::tvm::Var;
using TirVarNode = ::tvm::VarNode;

// Copies one callee's statements: every variable it binds (loops, block iter vars, lets) is
// renewed, because a PrimFunc called twice in one group must not share loop Vars (schedules
// name loops by their Var); buffers are replaced (parameters by the fused function's values,
// its own allocations by fresh copies); block names are made unique in the fused function.
class CalleeCopier : public ExprMutator {
 public:
  CalleeCopier(VarMap vars, std::unordered_map<const Object*, Buffer> buffers,
               std::unordered_set<std::string>* names)
      : vars_(std::move(vars)), buffers_(std::move(buffers)), names_(names) {}

  /*! \brief A fresh copy of an allocated buffer (shape in the caller's variables). */
  Buffer Renew(const Buffer& b) {
    Array<PrimExpr> shape;
    for (const PrimExpr& d : b->shape) shape.push_back(VisitExpr(d));
    Buffer nb = MakeBufferLike(b, std::string(b->name), shape, std::string(b->scope));
    buffers_[b.get()] = nb;
    return nb;
  }

  PrimExpr VisitExpr(const PrimExpr& e) override {
    if (e.as<TirVarNode>()) {
      auto it = vars_.find(e.get());
      return it == vars_.end() ? e : it->second;
    }
    if (auto* n = e.as<BufferLoadNode>()) {
      bool changed = false;
      return MakeBufferLoad(Buf(n->buffer), VisitArray(n->indices, &changed));
    }
    return MutateExprChildren(e);
  }

  Stmt VisitStmt(const Stmt& s) override {
    if (auto* n = s.as<ForNode>()) {
      PrimExpr mn = VisitExpr(n->min), ext = VisitExpr(n->extent);
      TirVar v = Fresh(n->loop_var);
      return MakeFor(v, mn, ext, n->kind, VisitStmt(n->body), std::string(n->thread_tag), n->annotations);
    }
    if (auto* n = s.as<LetStmtNode>()) {
      PrimExpr value = VisitExpr(n->value);
      TirVar v = Fresh(n->var);
      return MakeLetStmt(v, value, VisitStmt(n->body));
    }
    if (auto* n = s.as<BufferStoreNode>()) {
      bool changed = false;
      return MakeBufferStore(Buf(n->buffer), VisitExpr(n->value), VisitArray(n->indices, &changed));
    }
    if (auto* n = s.as<AllocateNode>()) {
      Buffer b = Renew(n->buffer);
      return MakeAllocate(b, VisitStmt(n->body));
    }
    if (auto* n = s.as<BlockNode>()) return CopyBlock(n);
    return MutateStmtChildren(s);
  }

  Buffer Buf(const Buffer& b) const {
    auto it = buffers_.find(b.get());
    if (it == buffers_.end()) {
      TVM_FFI_THROW(ValueError) << "FuseTIR: buffer " << std::string(b->name)
                                << " is neither an argument nor allocated in its function";
    }
    return it->second;
  }

 private:
  TirVar Fresh(const TirVar& v) {
    TirVar nv(std::string(v->name), v.dtype());
    vars_[v.get()] = nv;
    return nv;
  }

  Array<BufferRegion> Regions(const Array<BufferRegion>& rs) {
    Array<BufferRegion> out;
    for (const BufferRegion& r : rs) {
      Array<Range> region;
      for (const Range& x : r->region) region.push_back(Range(VisitExpr(x->min), VisitExpr(x->extent)));
      out.push_back(BufferRegion(Buf(r->buffer), region));
    }
    return out;
  }

  Stmt CopyBlock(const BlockNode* n) {
    Array<IterVar> ivs;
    for (const IterVar& iv : n->iter_vars) {
      PrimExpr mn = VisitExpr(iv->min), ext = VisitExpr(iv->extent);
      ivs.push_back(MakeIterVar(Fresh(iv->var), mn, ext, iv->kind));
    }
    Array<Buffer> allocs;
    for (const Buffer& b : n->alloc_buffers) allocs.push_back(Renew(b));
    std::string name(n->name_hint), base = name;
    for (int k = 1; !names_->insert(name).second; ++k) name = base + "_" + std::to_string(k);
    Stmt init = VisitStmt(n->init), body = VisitStmt(n->body);
    return MakeBlock(ivs, Regions(n->reads), Regions(n->writes), name, body, init, allocs, n->annotations);
  }

  VarMap vars_;
  std::unordered_map<const Object*, Buffer> buffers_;
  std::unordered_set<std::string>* names_;
};

const BlockNode* RootBlock(const PrimFunc& f, const std::string& name) {
  auto* realize = f->body.as<BlockRealizeNode>();
  if (realize == nullptr || !realize->iter_values.empty()) {
    TVM_FFI_THROW(ValueError) << "FuseTIR: " << name
                              << " is not in block form (its body must be the root block)";
  }
  return realize->block.get();
}

PrimFunc FusePrimFuncs(Array<PrimFunc> funcs, Array<Array<int64_t>> call_values,
                       Array<Array<PrimExpr>> shapes, Array<Any> dtypes, int64_t num_params,
                       Array<int64_t> results, std::string name) {
  if (funcs.size() != call_values.size() || shapes.size() != dtypes.size()) {
    TVM_FFI_THROW(ValueError) << "FuseTIR: inconsistent fusion description";
  }
  const int64_t num_values = static_cast<int64_t>(shapes.size());
  auto check_id = [&](int64_t id) {
    if (id < 0 || id >= num_values) TVM_FFI_THROW(IndexError) << "FuseTIR: value " << id << " out of range";
  };
  // One buffer per value: arguments (parameters, then results) and root allocations.
  std::vector<Buffer> value_buf(num_values);
  std::vector<bool> is_arg(num_values, false);
  for (int64_t i = 0; i < num_params; ++i) is_arg[i] = true;
  for (int64_t r : results) {
    check_id(r);
    is_arg[r] = true;
  }
  for (int64_t i = 0; i < num_values; ++i) {
    std::string vname = (i < num_params ? "p" : is_arg[i] ? "out" : "t") + std::to_string(i);
    value_buf[i] = MakeBuffer(TirVar(vname, Handle()), dtypes[i].cast<DataType>(),
                              shapes[i], {}, vname);
  }
  std::unordered_set<std::string> names{"root"};
  Array<Stmt> stages;
  Array<Buffer> allocs;
  for (size_t c = 0; c < funcs.size(); ++c) {
    const PrimFunc& f = funcs[c];
    std::string fname = f.GlobalSymbol("callee " + std::to_string(c));
    const BlockNode* root = RootBlock(f, fname);
    const Array<int64_t>& ids = call_values[c];
    if (ids.size() != f->params.size()) {
      TVM_FFI_THROW(ValueError) << "FuseTIR: " << fname << " takes " << f->params.size()
                                << " arguments, the call passes " << ids.size();
    }
    VarMap vars;
    std::unordered_map<const Object*, Buffer> buffers;
    for (size_t k = 0; k < ids.size(); ++k) {
      check_id(ids[k]);
      std::optional<Buffer> param_buf = f->buffer_map.Get(f->params[k]);
      if (!param_buf) {
        TVM_FFI_THROW(ValueError) << "FuseTIR: " << fname << " has a scalar parameter "
                                  << std::string(f->params[k]->name) << " (only tensors fuse)";
      }
      const Buffer& pb = *param_buf;
      const Buffer& actual = value_buf[ids[k]];
      if (pb->shape.size() != actual->shape.size() || pb->dtype != actual->dtype) {
        TVM_FFI_THROW(ValueError) << "FuseTIR: argument " << k << " of " << fname
                                  << " does not match its value's rank or dtype";
      }
      // The callee's shape variables are bound by its argument shapes: map them to the
      // caller's dimensions (the first binding wins; later ones are the same value).
      for (size_t d = 0; d < pb->shape.size(); ++d) {
        if (pb->shape[d].as<TirVarNode>() && !vars.count(pb->shape[d].get())) vars[pb->shape[d].get()] = actual->shape[d];
      }
      buffers[pb.get()] = actual;
    }
    CalleeCopier copier(vars, buffers, &names);
    for (const Buffer& b : root->alloc_buffers) allocs.push_back(copier.Renew(b));
    stages.push_back(copier.VisitStmt(root->body));
  }
  Array<TirVar> params;
  Map<TirVar, Buffer> buffer_map;
  for (int64_t i = 0; i < num_values; ++i) {
    if (is_arg[i]) continue;
    allocs.push_back(value_buf[i]);
  }
  auto add_param = [&](int64_t i) {
    params.push_back(value_buf[i]->data);
    buffer_map.Set(value_buf[i]->data, value_buf[i]);
  };
  for (int64_t i = 0; i < num_params; ++i) add_param(i);
  for (int64_t r : results) add_param(r);
  Block root = MakeBlock({}, {}, {}, "root", MakeSeq(stages), Stmt(), allocs, {});
  Map<String, Any> attrs;
  attrs.Set(String("global_symbol"), String(name));
  return MakePrimFunc(params, buffer_map, MakeBlockRealize({}, IntImm(Bool(), 1), root), attrs);
}

}  // namespace

TVM_FFI_STATIC_INIT_BLOCK() {
  RegisterCompilerGlobal("relax.transform.FusePrimFuncs", FusePrimFuncs);
}

}  // namespace relax
}  // namespace tvm
