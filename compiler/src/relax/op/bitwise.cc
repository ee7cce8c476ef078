/*
 * Bitwise operators on integer tensors (ONNX BitwiseAnd/Or/Xor/Not, BitShift; torch's
 * bitwise_* and shifts): and/or/xor/shifts broadcast like the arithmetic ops and keep
 * the operands' dtype; bitwise_not keeps its input's. bool is accepted by and/or/xor/not
 * (torch allows it); shifts take integers only. Legalized to TIR's bitwise intrinsics.
 */
#include <tvm/ffi/error.h>
#include <tvm/relax/op.h>

namespace tvm {
namespace relax {
namespace {

void CheckIntegral(const CallNode* call, DataType t, bool allow_bool) {
  if (IsUnknownDType(t) || IsIntOrUInt(t) || (allow_bool && IsBool(t))) return;
  TVM_FFI_THROW(TypeError) << OpName(call) << " expects integer tensors, got " << DTypeToString(t);
}

StructInfo InferBitwiseBinary(const CallNode* call, bool allow_bool) {
  const TensorStructInfoNode* a = TensorArg(call, 0);
  const TensorStructInfoNode* b = TensorArg(call, 1);
  CheckIntegral(call, a->dtype, allow_bool);
  CheckIntegral(call, b->dtype, allow_bool);
  if (!IsUnknownDType(a->dtype) && !IsUnknownDType(b->dtype) && !(a->dtype == b->dtype)) {
    TVM_FFI_THROW(TypeError) << OpName(call) << ": operand dtypes differ (" << DTypeToString(a->dtype) << " vs "
                             << DTypeToString(b->dtype) << ")";
  }
  DataType dt = IsUnknownDType(a->dtype) ? b->dtype : a->dtype;
  if (a->shape_known && b->shape_known) return TensorSInfo(BroadcastShapes(a->shape, b->shape, OpName(call)), dt);
  int64_t ndim = (a->ndim < 0 || b->ndim < 0) ? -1 : std::max(a->ndim, b->ndim);
  return TensorSInfoUnknown(dt, ndim);
}

StructInfo InferLogicOp(const CallNode* call) { return InferBitwiseBinary(call, true); }
StructInfo InferShift(const CallNode* call) { return InferBitwiseBinary(call, false); }

StructInfo InferBitwiseNot(const CallNode* call) {
  const TensorStructInfoNode* t = TensorArg(call, 0);
  CheckIntegral(call, t->dtype, true);
  return t->shape_known ? TensorSInfo(t->shape, t->dtype) : TensorSInfoUnknown(t->dtype, t->ndim);
}

TVM_FFI_STATIC_INIT_BLOCK() {
  for (const char* name : {"relax.bitwise_and", "relax.bitwise_or", "relax.bitwise_xor"}) {
    TVM_RELAX_REGISTER_OP(name, kBroadcast, InferLogicOp, 2);
  }
  for (const char* name : {"relax.left_shift", "relax.right_shift"}) {
    TVM_RELAX_REGISTER_OP(name, kBroadcast, InferShift, 2);
  }
  TVM_RELAX_REGISTER_OP("relax.bitwise_not", kElemWise, InferBitwiseNot, 1);
}

}  // namespace
}  // namespace relax
}  // namespace tvm
