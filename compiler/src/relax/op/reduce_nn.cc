/*
 * Reductions (sum, mean, max, min, prod over `axis`, keepdims), the normalising nn
 * operators (softmax, log_softmax, layer_norm), and the calls into lower-level code:
 * call_tir (a PrimFunc of the module in destination-passing style) and call_dps_packed
 * (a packed function), whose result struct info is given explicitly (sinfo_args).
 */
#include <tvm/ffi/error.h>
#include <tvm/relax/op.h>

#include <algorithm>

namespace tvm {
namespace relax {
namespace {

StructInfo InferReduce(const CallNode* call) {
  const TensorStructInfoNode* t = TensorArg(call, 0);
  bool keepdims = AttrOr<bool>(call, "keepdims", false);
  if (t->ndim < 0) return TensorSInfoUnknown(t->dtype, -1);
  std::vector<int64_t> axes;
  std::optional<Any> ax = call->attrs.Get(String("axis"));
  if (!ax.has_value() || ax->type_index() == kTVMFFINone) {
    for (int64_t k = 0; k < t->ndim; ++k) axes.push_back(k);
  } else if (ax->type_index() == kTVMFFIInt) {
    axes.push_back(NormalizeAxis(ax->cast<int64_t>(), t->ndim, OpName(call)));
  } else {
    for (const Any& a : ax->cast<Array<Any>>()) axes.push_back(NormalizeAxis(a.cast<int64_t>(), t->ndim, OpName(call)));
  }
  if (!t->shape_known) return TensorSInfoUnknown(t->dtype, keepdims ? t->ndim : t->ndim - static_cast<int64_t>(axes.size()));
  Array<PrimExpr> out;
  for (int64_t k = 0; k < t->ndim; ++k) {
    bool reduced = std::find(axes.begin(), axes.end(), k) != axes.end();
    if (!reduced) out.push_back(t->shape[k]);
    else if (keepdims) out.push_back(I64(1));
  }
  return TensorSInfo(out, t->dtype);
}

StructInfo InferSoftmax(const CallNode* call) {
  const TensorStructInfoNode* t = TensorArg(call, 0);
  if (!IsUnknownDType(t->dtype) && !IsFloat(t->dtype)) TVM_FFI_THROW(TypeError) << OpName(call) << " expects a float tensor";
  if (t->ndim >= 0) NormalizeAxis(AttrOr<int64_t>(call, "axis", -1), t->ndim, OpName(call));
  return t->shape_known ? TensorSInfo(t->shape, t->dtype) : TensorSInfoUnknown(t->dtype, t->ndim);
}

StructInfo InferLayerNorm(const CallNode* call) {
  const TensorStructInfoNode* x = TensorArg(call, 0);
  const TensorStructInfoNode* g = TensorArg(call, 1);
  const TensorStructInfoNode* b = TensorArg(call, 2);
  if (x->ndim >= 0) {
    std::optional<Any> ax = call->attrs.Get(String("axes"));
    size_t naxes = ax.has_value() ? ax->cast<Array<Any>>().size() : 1;
    if (g->ndim >= 0 && g->ndim != static_cast<int64_t>(naxes)) {
      TVM_FFI_THROW(ValueError) << "relax.nn.layer_norm: gamma must have one dimension per normalized axis";
    }
    if (b->ndim >= 0 && b->ndim != static_cast<int64_t>(naxes)) {
      TVM_FFI_THROW(ValueError) << "relax.nn.layer_norm: beta must have one dimension per normalized axis";
    }
  }
  return x->shape_known ? TensorSInfo(x->shape, x->dtype) : TensorSInfoUnknown(x->dtype, x->ndim);
}

StructInfo InferCallTIR(const CallNode* call) {
  if (call->args.size() < 2 || (!call->args[0].as<GlobalVarNode>() && !call->args[0].as<ExternFuncNode>())) {
    TVM_FFI_THROW(ValueError) << OpName(call) << " expects (callee, args tuple[, tir_vars])";
  }
  if (!GetStructInfo(call->args[1]).as<TupleStructInfoNode>()) {
    TVM_FFI_THROW(TypeError) << OpName(call) << ": the arguments must be a tuple";
  }
  if (call->sinfo_args.size() != 1) {
    TVM_FFI_THROW(ValueError) << OpName(call) << " needs the output struct info (out_sinfo)";
  }
  const StructInfo& out = call->sinfo_args[0];
  auto check = [&](const StructInfo& s) {
    auto* t = s.as<TensorStructInfoNode>();
    if (t == nullptr || !t->shape_known || IsUnknownDType(t->dtype)) {
      TVM_FFI_THROW(ValueError) << OpName(call) << ": outputs must be tensors of known shape and dtype";
    }
  };
  if (auto* tup = out.as<TupleStructInfoNode>()) {
    for (const StructInfo& f : tup->fields) check(f);
  } else {
    check(out);
  }
  return out;
}

TVM_FFI_STATIC_INIT_BLOCK() {
  for (const char* name : {"relax.sum", "relax.mean", "relax.max", "relax.min", "relax.prod"}) {
    TVM_RELAX_REGISTER_OP(name, kCommReduce, InferReduce, 1);
  }
  TVM_RELAX_REGISTER_OP("relax.nn.softmax", kOpaque, InferSoftmax, 1);
  TVM_RELAX_REGISTER_OP("relax.nn.log_softmax", kOpaque, InferSoftmax, 1);
  TVM_RELAX_REGISTER_OP("relax.nn.layer_norm", kOpaque, InferLayerNorm, 3);
  TVM_RELAX_REGISTER_OP("relax.call_tir", kOpaque, InferCallTIR, -1);
  TVM_RELAX_REGISTER_OP("relax.call_dps_packed", kOpaque, InferCallTIR, -1);
}

}  // namespace
}  // namespace relax
}  // namespace tvm
