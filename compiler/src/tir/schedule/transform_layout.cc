/*
 * transform_layout: gives a buffer a new shape through an index map (old indices -> new
 * indices, e.g. (i, j) -> (j // 16, i, j % 16) to pack a weight into panels). Every access
 * is rewritten through the map. For an argument buffer the function's signature changes:
 * callers pass the data in the new layout (the point of pre-packing weights).
 */
#include "../../support/registry.h"
#include "utils.h"

#include <tvm/ir/structural.h>

namespace tvm {
namespace tir {
namespace {

Buffer SelectBuffer(const PrimFunc& f, const std::string& block, const Array<Any>& spec, const char* prim) {
  if (spec.size() != 2) TVM_SCHEDULE_ERROR(prim) << "buffer must be ('read'|'write', index) or a name";
  std::string kind = spec[0].cast<String>();
  if (kind == "name") {
    std::string n = spec[1].cast<String>();
    Buffer b = FindBufferByName(f, n);
    if (!b.defined()) TVM_SCHEDULE_ERROR(prim) << "no buffer named \"" << n << "\"";
    return b;
  }
  const BlockNode* b = FindBlock(f, block, prim).leaf().as<BlockRealizeNode>()->block.get();
  int64_t idx = spec[1].cast<int64_t>();
  const Array<BufferRegion>& rs = kind == "read" ? b->reads : b->writes;
  if (kind != "read" && kind != "write") TVM_SCHEDULE_ERROR(prim) << "buffer kind must be 'read' or 'write'";
  if (idx < 0 || idx >= static_cast<int64_t>(rs.size())) {
    TVM_SCHEDULE_ERROR(prim) << "block \"" << block << "\" " << (kind == "read" ? "reads " : "writes ") << rs.size()
                             << " buffers; index " << idx << " is out of range";
  }
  return rs[idx]->buffer;
}

class Remapper : public ExprMutator {
 public:
  Remapper(const Buffer& from, const Buffer& to, const Array<Var>& in, const Array<PrimExpr>& out)
      : from_(from), to_(to), in_(in), out_(out) {}
  PrimExpr VisitExpr(const PrimExpr& e) override {
    PrimExpr x = MutateExprChildren(e);
    if (auto* n = x.as<BufferLoadNode>(); n && n->buffer.same_as(from_)) return MakeBufferLoad(to_, Map(n->indices));
    return x;
  }
  Stmt VisitStmt(const Stmt& s) override {
    Stmt x = MutateStmtChildren(s);
    if (auto* n = x.as<BufferStoreNode>(); n && n->buffer.same_as(from_)) return MakeBufferStore(to_, n->value, Map(n->indices));
    if (auto* n = x.as<BlockNode>()) {
      Array<Buffer> allocs;
      for (const Buffer& b : n->alloc_buffers) allocs.push_back(b.same_as(from_) ? to_ : b);
      return MakeBlock(n->iter_vars, n->reads, n->writes, std::string(n->name_hint), n->body, n->init, allocs,
                       n->annotations);
    }
    return x;
  }

 private:
  Array<PrimExpr> Map(const Array<PrimExpr>& idx) {
    VarMap m;
    for (size_t d = 0; d < in_.size(); ++d) m[in_[d].get()] = MakeCast(in_[d]->dtype, idx[d]);
    Array<PrimExpr> out;
    for (const PrimExpr& e : out_) out.push_back(Simp(Substitute(e, m)));
    return out;
  }
  Buffer from_, to_;
  Array<Var> in_;
  Array<PrimExpr> out_;
};

PrimFunc TransformLayout(const PrimFunc& f, const std::string& block, const Array<Any>& spec,
                         const Array<Var>& inputs, const Array<PrimExpr>& outputs) {
  const char* prim = "transform_layout";
  Buffer buf = SelectBuffer(f, block, spec, prim);
  if (inputs.size() != buf->shape.size()) {
    TVM_SCHEDULE_ERROR(prim) << "the index map takes " << inputs.size() << " indices but " << std::string(buf->name)
                             << " has " << buf->shape.size() << " dimensions";
  }
  if (!buf->strides.empty()) TVM_SCHEDULE_ERROR(prim) << "buffer " << std::string(buf->name) << " has explicit strides";
  std::unordered_map<const Object*, Range> dom;
  for (size_t d = 0; d < inputs.size(); ++d) dom[inputs[d].get()] = Range(MakeCast(inputs[d]->dtype, IntImm(buf->shape[d].dtype(), 0)), MakeCast(inputs[d]->dtype, buf->shape[d]));
  Array<PrimExpr> shape;
  for (const PrimExpr& e : outputs) {
    Interval iv = EvalInterval(e, dom);
    if (!iv.ok) TVM_SCHEDULE_ERROR(prim) << "cannot bound the index map output " << AsText(Any(e)) << " (use + - * // % min max)";
    PrimExpr lo = Simp(iv.min);
    const int64_t* c = AsConstInt(lo);
    if (c == nullptr || *c < 0) TVM_SCHEDULE_ERROR(prim) << "the index map output " << AsText(Any(e)) << " can be negative";
    shape.push_back(Simp(Add(iv.max, IntImm(iv.max.dtype(), 1))));
  }
  // The map must be one to one, or two old points would share storage: check it counts.
  PrimExpr old_size = IntImm(Int(64), 1), new_size = IntImm(Int(64), 1);
  for (const PrimExpr& d : buf->shape) old_size = Simp(Mul(old_size, MakeCast(Int(64), d)));
  for (const PrimExpr& d : shape) new_size = Simp(Mul(new_size, MakeCast(Int(64), d)));
  const int64_t* os = AsConstInt(old_size);
  const int64_t* ns = AsConstInt(new_size);
  if (os && ns && *ns < *os) {
    TVM_SCHEDULE_ERROR(prim) << "the index map sends " << *os << " points of " << std::string(buf->name) << " into "
                             << *ns << " (not one to one)";
  }
  bool param = IsParamBuffer(f, buf);
  Buffer nb = MakeBuffer(param ? buf->data : Var(std::string(buf->name), Handle()), buf->dtype, shape, {},
                         std::string(buf->name), std::string(buf->scope));
  Stmt body = Remapper(buf, nb, inputs, outputs).VisitStmt(f->body);
  Map<Var, Buffer> bmap;
  for (const auto& kv : f->buffer_map) bmap.Set(kv.first, kv.second.same_as(buf) ? nb : kv.second);
  return RefreshAccessRegions(MakePrimFunc(f->params, bmap, body, f->attrs));
}

}  // namespace

TVM_FFI_STATIC_INIT_BLOCK() {
  RegisterCompilerGlobal("tir.schedule.BufferNdim", [](PrimFunc f, std::string block, Array<Any> spec) {
    return static_cast<int64_t>(SelectBuffer(f, block, spec, "transform_layout")->shape.size());
  });
  // The type of the buffer's indices (its shape's; int32 for a 0-d buffer): the index map's.
  RegisterCompilerGlobal("tir.schedule.BufferIndexDtype", [](PrimFunc f, std::string block, Array<Any> spec) {
    Buffer b = SelectBuffer(f, block, spec, "transform_layout");
    return b->shape.empty() ? Int(32) : b->shape[0].dtype();
  });
  RegisterCompilerGlobal("tir.schedule.TransformLayout", [](PrimFunc f, std::string block, Array<Any> spec,
                                                            Array<Var> inputs, Array<PrimExpr> outputs) {
    return TransformLayout(f, block, spec, inputs, outputs);
  });
}

}  // namespace tir
}  // namespace tvm
