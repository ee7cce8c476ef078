/*
 * te.CreatePrimFunc: turns TE tensors (placeholders and compute stages) into a PrimFunc with
 * one loop nest per stage. Reductions become an init store followed by a reduction loop nest.
 * Stages that are not arguments get a temporary Allocate around the whole body.
 */
#include <tvm/ffi/error.h>
#include <tvm/tir/ir.h>

#include <cmath>
#include <limits>
#include <unordered_set>

#include "../support/registry.h"

namespace tvm {
namespace {

PrimExpr Identity(const std::string& combiner, DataType t) {
  if (combiner == "sum") return MakeConst(t, 0);
  if (combiner == "prod") return MakeConst(t, 1);
  bool is_max = combiner == "max";
  if (IsFloat(t)) {
    double inf = std::numeric_limits<double>::infinity();
    return FloatImm(t, is_max ? -inf : inf);
  }
  if (IsUInt(t)) {
    return IntImm(t, is_max ? 0 : static_cast<int64_t>((t.bits >= 64) ? -1 : ((int64_t{1} << t.bits) - 1)));
  }
  int64_t lo = t.bits >= 64 ? std::numeric_limits<int64_t>::min() : -(int64_t{1} << (t.bits - 1));
  int64_t hi = t.bits >= 64 ? std::numeric_limits<int64_t>::max() : (int64_t{1} << (t.bits - 1)) - 1;
  return IntImm(t, is_max ? lo : hi);
}

PrimExpr Combine(const std::string& combiner, PrimExpr acc, PrimExpr v) {
  if (combiner == "sum") return MakeBinary("tir.Add", acc, v);
  if (combiner == "prod") return MakeBinary("tir.Mul", acc, v);
  if (combiner == "max") return MakeBinary("tir.Max", acc, v);
  return MakeBinary("tir.Min", acc, v);
}

Stmt Nest(const Array<IterVar>& axes, Stmt body) {
  for (size_t i = axes.size(); i-- > 0;) {
    body = MakeFor(axes[i]->var, axes[i]->min, axes[i]->extent, 0, body);
  }
  return body;
}

void Visit(const TETensor& t, std::vector<TETensor>* order, std::unordered_set<const Object*>* seen) {
  if (!seen->insert(t.get()).second) return;
  for (const ObjectRef& in : t->inputs) {
    const TETensorNode* n = in.as<TETensorNode>();
    if (n == nullptr) TVM_FFI_THROW(TypeError) << "te.Tensor input is not a te.Tensor";
    Visit(ffi::details::ObjectUnsafe::RefFromPtr<TETensor>(ffi::GetObjectPtr<Object>(in)), order, seen);
  }
  order->push_back(t);
}

}  // namespace

PrimFunc CreatePrimFunc(Array<TETensor> args, std::string name) {
  std::vector<TETensor> order;
  std::unordered_set<const Object*> seen;
  for (const TETensor& t : args) Visit(t, &order, &seen);
  std::unordered_set<const Object*> is_arg;
  Array<Var> params;
  Map<Var, Buffer> buffer_map;
  for (const TETensor& t : args) {
    if (!is_arg.insert(t.get()).second) TVM_FFI_THROW(ValueError) << "tensor passed twice";
    params.push_back(t->buffer->data);
    buffer_map.Set(t->buffer->data, t->buffer);
  }
  Array<Stmt> stages;
  std::vector<Buffer> temps;
  for (const TETensor& t : order) {
    if (!t->body.defined()) {
      if (!is_arg.count(t.get())) {
        TVM_FFI_THROW(ValueError) << "placeholder " << std::string(t->buffer->name)
                                  << " is used but not passed as an argument";
      }
      continue;
    }
    if (!is_arg.count(t.get())) temps.push_back(t->buffer);
    Array<PrimExpr> idx;
    for (const IterVar& iv : t->axis) idx.push_back(iv->var);
    if (const ReduceNode* r = t->body.as<ReduceNode>()) {
      std::string comb(r->combiner);
      Stmt init = MakeBufferStore(t->buffer, Identity(comb, r->dtype), idx);
      Stmt update = MakeBufferStore(
          t->buffer, Combine(comb, MakeBufferLoad(t->buffer, idx), r->source), idx);
      const IntImmNode* always = r->condition.as<IntImmNode>();
      if (!(always && always->value == 1)) update = MakeIfThenElse(r->condition, update, Stmt());
      stages.push_back(Nest(t->axis, MakeSeq({init, Nest(r->axis, update)})));
    } else {
      stages.push_back(Nest(t->axis, MakeBufferStore(t->buffer, t->body, idx)));
    }
  }
  Stmt body = MakeSeq(stages);
  for (size_t i = temps.size(); i-- > 0;) body = MakeAllocate(temps[i], body);
  Map<String, Any> attrs;
  attrs.Set(String("global_symbol"), String(name));
  return MakePrimFunc(params, buffer_map, body, attrs);
}

TVM_FFI_STATIC_INIT_BLOCK() {
  RegisterCompilerGlobal("te.CreatePrimFunc", [](Array<TETensor> args, std::string name) {
    return CreatePrimFunc(args, name);
  });
}

}  // namespace tvm
