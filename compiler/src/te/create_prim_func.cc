/*
 * te.CreatePrimFunc: turns TE tensors (placeholders and compute stages) into a PrimFunc in
 * TensorIR form, as TVM does: a root block allocating the intermediate stages, and per stage
 * one loop nest (loops named after the axes) around one block named after the stage. The
 * block's iter vars (`v_<axis>`, spatial or reduce) are bound to the loops; a reduction's
 * identity store is the block's `init`, so its loops nest perfectly.
 */
#include <tvm/ffi/error.h>
#include <tvm/tir/functor.h>
#include <tvm/tir/ir.h>

#include <cmath>
#include <limits>
#include <unordered_map>
#include <unordered_set>

#include "../support/registry.h"
#include "../tir/analysis/analysis.h"

namespace tvm {
namespace {

PrimExpr Identity(const std::string& combiner, DataType t) {
  if (combiner == "sum") return MakeConst(t, 0);
  if (combiner == "prod") return MakeConst(t, 1);
  bool is_max = combiner == "max";
  if (IsBool(t)) return IntImm(t, is_max ? 0 : 1);  // max is any(), min is all()
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

void Visit(const TETensor& t, std::vector<TETensor>* order, std::unordered_set<const Object*>* seen) {
  if (!seen->insert(t.get()).second) return;
  for (const ObjectRef& in : t->inputs) {
    const TETensorNode* n = in.as<TETensorNode>();
    if (n == nullptr) TVM_FFI_THROW(TypeError) << "te.Tensor input is not a te.Tensor";
    Visit(ffi::details::ObjectUnsafe::RefFromPtr<TETensor>(ffi::GetObjectPtr<Object>(in)), order, seen);
  }
  order->push_back(t);
}

/*! \brief True when a Reduce appears inside `e` (anywhere but at the top). */
bool ContainsReduce(const PrimExpr& e) {
  struct Finder : ExprMutator {
    bool found{false};
    PrimExpr VisitExpr(const PrimExpr& x) override {
      if (x.as<ReduceNode>()) found = true;
      return found ? x : MutateExprChildren(x);
    }
  } f;
  f.VisitExpr(e);
  return f.found;
}

/*! \brief The loop nest and block of one compute stage. */
Stmt StageNest(const TETensor& t, const std::string& block_name) {
  Array<IterVar> axes = t->axis;
  const ReduceNode* red = t->body.as<ReduceNode>();
  if (red) {
    for (const IterVar& iv : red->axis) axes.push_back(iv);
  } else if (ContainsReduce(t->body)) {
    TVM_FFI_THROW(ValueError) << "te.compute " << std::string(t->buffer->name)
                              << ": a reduction (te.sum/max/min/prod) must be the whole body of its "
                              << "stage; compute it in a stage of its own and use that stage";
  }
  Array<IterVar> block_vars;
  Array<PrimExpr> bindings;
  std::vector<Var> loops;
  tir::VarMap to_block;
  for (size_t k = 0; k < axes.size(); ++k) {
    const IterVar& iv = axes[k];
    std::string n(iv->var->name);
    Var bv("v_" + n, iv->var->dtype), lv(n, iv->var->dtype);
    int64_t kind = (red && k >= t->axis.size()) ? 2 : 0;
    block_vars.push_back(MakeIterVar(bv, iv->min, iv->extent, kind));
    to_block[iv->var.get()] = bv;
    loops.push_back(lv);
    bindings.push_back(lv);
  }
  Array<PrimExpr> idx;
  for (size_t k = 0; k < t->axis.size(); ++k) idx.push_back(block_vars[k]->var);
  Stmt body, init;
  if (red) {
    std::string comb(red->combiner);
    init = MakeBufferStore(t->buffer, Identity(comb, red->dtype), idx);
    PrimExpr src = tir::Substitute(red->source, to_block);
    body = MakeBufferStore(t->buffer, Combine(comb, MakeBufferLoad(t->buffer, idx), src), idx);
    const IntImmNode* always = red->condition.as<IntImmNode>();
    if (!(always && always->value == 1)) {
      body = MakeIfThenElse(tir::Substitute(red->condition, to_block), body, Stmt());
    }
  } else {
    body = MakeBufferStore(t->buffer, tir::Substitute(t->body, to_block), idx);
  }
  Block block = tir::WithAccessRegions(
      MakeBlock(block_vars, {}, {}, block_name, body, init, {}, {}));
  Stmt s = MakeBlockRealize(bindings, IntImm(Bool(), 1), block);
  for (size_t k = axes.size(); k-- > 0;) s = MakeFor(loops[k], axes[k]->min, axes[k]->extent, 0, s);
  return s;
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
  Array<Buffer> temps;
  // Block names are unique within a function (schedules find blocks by name): a repeated stage
  // name (two transposes) becomes name_1, name_2, ... as TVM's.
  std::unordered_map<std::string, int> name_count;
  std::unordered_set<std::string> used;
  for (const TETensor& t : order) {
    if (t->body.defined()) used.insert(std::string(t->buffer->name));
  }
  std::unordered_set<std::string> taken;
  for (const TETensor& t : order) {
    if (!t->body.defined()) {
      if (!is_arg.count(t.get())) {
        TVM_FFI_THROW(ValueError) << "placeholder " << std::string(t->buffer->name)
                                  << " is used but not passed as an argument";
      }
      continue;
    }
    if (!is_arg.count(t.get())) temps.push_back(t->buffer);
    std::string block_name(t->buffer->name);
    if (!taken.insert(block_name).second) {
      std::string base = block_name;
      do {
        block_name = base + "_" + std::to_string(++name_count[base]);
      } while (used.count(block_name) || !taken.insert(block_name).second);
    }
    stages.push_back(StageNest(t, block_name));
  }
  Block root = MakeBlock({}, {}, {}, "root", MakeSeq(stages), Stmt(), temps, {});
  Map<String, Any> attrs;
  attrs.Set(String("global_symbol"), String(name));
  return MakePrimFunc(params, buffer_map, MakeBlockRealize({}, IntImm(Bool(), 1), root), attrs);
}

TVM_FFI_STATIC_INIT_BLOCK() {
  RegisterCompilerGlobal("te.CreatePrimFunc", [](Array<TETensor> args, std::string name) {
    return CreatePrimFunc(args, name);
  });
}

}  // namespace tvm
