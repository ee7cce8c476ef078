/*
 * Elementwise operators: unary math and activations (same shape and dtype), binary
 * arithmetic and comparisons with numpy broadcasting, where, astype.
 */
#include <tvm/ffi/error.h>
#include <tvm/relax/op.h>

namespace tvm {
namespace relax {
namespace {

StructInfo SameAs(const TensorStructInfoNode* t) {
  return t->shape_known ? TensorSInfo(t->shape, t->dtype) : TensorSInfoUnknown(t->dtype, t->ndim);
}

StructInfo InferUnary(const CallNode* call) { return SameAs(TensorArg(call, 0)); }

StructInfo InferUnaryFloat(const CallNode* call) {
  const TensorStructInfoNode* t = TensorArg(call, 0);
  if (!IsUnknownDType(t->dtype) && !IsFloat(t->dtype)) {
    TVM_FFI_THROW(TypeError) << OpName(call) << " expects a float tensor, got " << DTypeToString(t->dtype);
  }
  return SameAs(t);
}

/*! \brief Broadcast shape of two tensors (unknown when either shape is). */
StructInfo Broadcast(const CallNode* call, DataType out_dtype) {
  const TensorStructInfoNode* a = TensorArg(call, 0);
  const TensorStructInfoNode* b = TensorArg(call, 1);
  if (a->shape_known && b->shape_known) return TensorSInfo(BroadcastShapes(a->shape, b->shape, OpName(call)), out_dtype);
  int64_t ndim = (a->ndim < 0 || b->ndim < 0) ? -1 : std::max(a->ndim, b->ndim);
  return TensorSInfoUnknown(out_dtype, ndim);
}

DataType BinaryDType(const CallNode* call) {
  DataType a = TensorArg(call, 0)->dtype, b = TensorArg(call, 1)->dtype;
  if (IsUnknownDType(a)) return b;
  if (IsUnknownDType(b)) return a;
  if (!(a == b)) {
    TVM_FFI_THROW(TypeError) << OpName(call) << ": operand dtypes differ (" << DTypeToString(a) << " vs "
                             << DTypeToString(b) << "); insert relax.op.astype";
  }
  return a;
}

StructInfo InferBinary(const CallNode* call) { return Broadcast(call, BinaryDType(call)); }

StructInfo InferCompare(const CallNode* call) {
  BinaryDType(call);
  return Broadcast(call, Bool());
}

StructInfo InferLogical(const CallNode* call) {
  for (size_t i = 0; i < 2; ++i) {
    DataType t = TensorArg(call, i)->dtype;
    if (!IsUnknownDType(t) && !IsBool(t)) TVM_FFI_THROW(TypeError) << OpName(call) << " expects bool tensors";
  }
  return Broadcast(call, Bool());
}

StructInfo InferWhere(const CallNode* call) {
  const TensorStructInfoNode* c = TensorArg(call, 0);
  const TensorStructInfoNode* x = TensorArg(call, 1);
  const TensorStructInfoNode* y = TensorArg(call, 2);
  if (!IsUnknownDType(c->dtype) && !IsBool(c->dtype)) TVM_FFI_THROW(TypeError) << "relax.where: the condition must be bool";
  if (!IsUnknownDType(x->dtype) && !IsUnknownDType(y->dtype) && !(x->dtype == y->dtype)) {
    TVM_FFI_THROW(TypeError) << "relax.where: the two branches have different dtypes";
  }
  DataType dt = IsUnknownDType(x->dtype) ? y->dtype : x->dtype;
  if (c->shape_known && x->shape_known && y->shape_known) {
    return TensorSInfo(BroadcastShapes(BroadcastShapes(c->shape, x->shape, "relax.where"), y->shape, "relax.where"), dt);
  }
  return TensorSInfoUnknown(dt, -1);
}

StructInfo InferAstype(const CallNode* call) {
  const TensorStructInfoNode* t = TensorArg(call, 0);
  std::optional<Any> d = call->attrs.Get(String("dtype"));
  if (!d.has_value()) TVM_FFI_THROW(ValueError) << "relax.astype needs attr dtype";
  DataType to = d->cast<DataType>();
  return t->shape_known ? TensorSInfo(t->shape, to) : TensorSInfoUnknown(to, t->ndim);
}

StructInfo InferNot(const CallNode* call) {
  const TensorStructInfoNode* t = TensorArg(call, 0);
  if (!IsUnknownDType(t->dtype) && !IsBool(t->dtype)) TVM_FFI_THROW(TypeError) << "relax.logical_not expects bool";
  return SameAs(t);
}

TVM_FFI_STATIC_INIT_BLOCK() {
  for (const char* name : {"relax.negative", "relax.abs", "relax.nn.relu", "relax.clip", "relax.nn.leakyrelu",
                           "relax.floor", "relax.ceil", "relax.round", "relax.sign", "relax.square", "relax.trunc"}) {
    TVM_RELAX_REGISTER_OP(name, kElemWise, InferUnary, -1);
  }
  for (const char* name : {"relax.exp", "relax.log", "relax.sqrt", "relax.rsqrt", "relax.tanh", "relax.sigmoid",
                           "relax.erf", "relax.sin", "relax.cos", "relax.nn.gelu", "relax.nn.gelu_tanh",
                           "relax.nn.silu", "relax.reciprocal", "relax.tan", "relax.asin",
                           "relax.acos", "relax.atan", "relax.sinh", "relax.cosh"}) {
    TVM_RELAX_REGISTER_OP(name, kElemWise, InferUnaryFloat, 1);
  }
  for (const char* name : {"relax.add", "relax.subtract", "relax.multiply", "relax.divide", "relax.power",
                           "relax.maximum", "relax.minimum", "relax.floor_divide", "relax.floor_mod"}) {
    TVM_RELAX_REGISTER_OP(name, kBroadcast, InferBinary, 2);
  }
  for (const char* name : {"relax.equal", "relax.not_equal", "relax.less", "relax.less_equal", "relax.greater",
                           "relax.greater_equal"}) {
    TVM_RELAX_REGISTER_OP(name, kBroadcast, InferCompare, 2);
  }
  for (const char* name : {"relax.logical_and", "relax.logical_or"}) {
    TVM_RELAX_REGISTER_OP(name, kBroadcast, InferLogical, 2);
  }
  TVM_RELAX_REGISTER_OP("relax.logical_not", kElemWise, InferNot, 1);
  TVM_RELAX_REGISTER_OP("relax.where", kBroadcast, InferWhere, 3);
  TVM_RELAX_REGISTER_OP("relax.astype", kElemWise, InferAstype, 1);
}

}  // namespace
}  // namespace relax
}  // namespace tvm
