/*
 * Activations beyond the elementwise set: selu, softplus (beta, threshold) and prelu (a
 * per-channel slope along `axis`). relu6 is a composite (clip), as TVM's.
 */
#include "op_common.h"

namespace tvm {
namespace relax {
namespace {

StructInfo SameFloat(const CallNode* call) {
  const TensorStructInfoNode* x = TensorArg(call, 0);
  if (!IsUnknownDType(x->dtype) && !IsFloat(x->dtype)) {
    TVM_FFI_THROW(TypeError) << OpName(call) << " expects a float tensor, got " << DTypeToString(x->dtype);
  }
  return x->shape_known ? TensorSInfo(x->shape, x->dtype) : TensorSInfoUnknown(x->dtype, x->ndim);
}

StructInfo InferPRelu(const CallNode* call) {
  std::string op = OpName(call);
  StructInfo out = SameFloat(call);
  const TensorStructInfoNode* x = TensorArg(call, 0);
  const TensorStructInfoNode* a = TensorArg(call, 1);
  if (a->ndim >= 0 && a->ndim != 1) TVM_FFI_THROW(ValueError) << op << ": alpha must be 1-d, got " << a->ndim << "-d";
  if (!IsUnknownDType(a->dtype) && !IsUnknownDType(x->dtype) && a->dtype != x->dtype) {
    TVM_FFI_THROW(TypeError) << op << ": alpha and data dtypes differ";
  }
  if (x->ndim >= 0) {
    int64_t axis = NormalizeAxis(AttrOr<int64_t>(call, "axis", 1), x->ndim, op);
    if (x->shape_known && a->shape_known) {
      PrimExpr c = x->shape[axis], n = a->shape[0];
      const int64_t* nc = AsConstInt(n);
      if (!(nc && *nc == 1) && ProveEqual(c, n) == 0) {
        TVM_FFI_THROW(ValueError) << op << ": alpha has " << DimStr(n) << " elements but axis " << axis << " has "
                                  << DimStr(c);
      }
    }
  }
  return out;
}

TVM_FFI_STATIC_INIT_BLOCK() {
  TVM_RELAX_REGISTER_OP("relax.nn.selu", kElemWise, SameFloat, 1);
  TVM_RELAX_REGISTER_OP("relax.nn.softplus", kElemWise, SameFloat, 1);
  TVM_RELAX_REGISTER_OP("relax.nn.prelu", kBroadcast, InferPRelu, 2);
}

}  // namespace
}  // namespace relax
}  // namespace tvm
