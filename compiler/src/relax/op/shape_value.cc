/*
 * Shapes as values and back (TVM's relax.tensor_to_shape / relax.shape_to_tensor):
 * tensor_to_shape gives the values of a 1-d integer tensor as a Shape, so dimensions computed
 * from data at run time (ONNX Range's length) can be bound to symbolic variables by a
 * match_cast; shape_to_tensor gives a Shape (symbolic dimensions included) as an int64 tensor
 * (ONNX Shape). The number of values must be known at compile time.
 */
#include "op_common.h"

namespace tvm {
namespace relax {
namespace {

StructInfo InferTensorToShape(const CallNode* call) {
  std::string op = OpName(call);
  const TensorStructInfoNode* x = TensorArg(call, 0);
  if (x->ndim != 1) TVM_FFI_THROW(ValueError) << op << ": the tensor must be 1-d, got " << x->ndim << "-d";
  if (!IsUnknownDType(x->dtype) && !IsIntOrUInt(x->dtype)) {
    TVM_FFI_THROW(TypeError) << op << ": the tensor must have an integer dtype, got " << DTypeToString(x->dtype);
  }
  const int64_t* n = nullptr;
  PrimExpr len;
  if (x->shape_known) {
    len = x->shape[0];
    n = AsConstInt(len);
  }
  if (n == nullptr) TVM_FFI_THROW(ValueError) << op << ": the tensor's length must be known at compile time";
  return ShapeSInfoUnknown(*n);
}

StructInfo InferShapeToTensor(const CallNode* call) {
  std::string op = OpName(call);
  if (call->args.size() != 1) TVM_FFI_THROW(ValueError) << op << ": expects one shape argument";
  StructInfo s = GetStructInfo(call->args[0]);
  auto* ss = s.as<ShapeStructInfoNode>();
  if (ss == nullptr) TVM_FFI_THROW(TypeError) << op << ": the argument must be a shape";
  if (ss->ndim < 0) TVM_FFI_THROW(ValueError) << op << ": the shape's length must be known at compile time";
  return TensorSInfo({I64(ss->ndim)}, Int(64));
}

TVM_FFI_STATIC_INIT_BLOCK() {
  TVM_RELAX_REGISTER_OP("relax.shape_to_tensor", kOpaque, InferShapeToTensor, 1);
  TVM_RELAX_REGISTER_OP("relax.tensor_to_shape", kOpaque, InferTensorToShape, 1);
}

}  // namespace
}  // namespace relax
}  // namespace tvm
