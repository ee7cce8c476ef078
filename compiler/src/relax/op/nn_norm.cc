/*
 * batch_norm (a 3-tuple: the normalized data, the new moving mean and moving variance, as
 * TVM's) and dropout (a 2-tuple: the output and the mask; identity at inference).
 */
#include "op_common.h"

namespace tvm {
namespace relax {
namespace {

StructInfo InferBatchNorm(const CallNode* call) {
  std::string op = OpName(call);
  const TensorStructInfoNode* x = TensorArg(call, 0);
  if (!IsUnknownDType(x->dtype) && !IsFloat(x->dtype)) {
    TVM_FFI_THROW(TypeError) << op << " expects a float tensor, got " << DTypeToString(x->dtype);
  }
  int64_t axis = AttrOr<int64_t>(call, "axis", 1);
  if (x->ndim >= 0) axis = NormalizeAxis(axis, x->ndim, op);
  const char* names[] = {"gamma", "beta", "moving_mean", "moving_var"};
  PrimExpr channels = x->shape_known ? x->shape[axis] : PrimExpr();
  for (size_t i = 1; i < 5; ++i) {
    const TensorStructInfoNode* p = TensorArg(call, i);
    if (p->ndim >= 0 && p->ndim != 1) TVM_FFI_THROW(ValueError) << op << ": " << names[i - 1] << " must be 1-d, got " << p->ndim << "-d";
    if (!IsUnknownDType(p->dtype) && !IsUnknownDType(x->dtype) && p->dtype != x->dtype) {
      TVM_FFI_THROW(TypeError) << op << ": " << names[i - 1] << " has dtype " << DTypeToString(p->dtype) << ", data "
                               << DTypeToString(x->dtype);
    }
    if (channels.defined() && p->shape_known && ProveEqual(p->shape[0], channels) == 0) {
      TVM_FFI_THROW(ValueError) << op << ": " << names[i - 1] << " has " << DimStr(p->shape[0]) << " elements but axis "
                                << axis << " of the data has " << DimStr(channels);
    }
  }
  StructInfo data = x->shape_known ? TensorSInfo(x->shape, x->dtype) : TensorSInfoUnknown(x->dtype, x->ndim);
  StructInfo stat = channels.defined() ? TensorSInfo({channels}, x->dtype) : TensorSInfoUnknown(x->dtype, 1);
  return TupleSInfo({data, stat, stat});
}

StructInfo InferDropout(const CallNode* call) {
  const TensorStructInfoNode* x = TensorArg(call, 0);
  double rate = AttrOr<double>(call, "rate", 0.5);
  if (rate < 0 || rate >= 1) TVM_FFI_THROW(ValueError) << "relax.nn.dropout: rate must be in [0, 1), got " << rate;
  if (!IsUnknownDType(x->dtype) && !IsFloat(x->dtype)) TVM_FFI_THROW(TypeError) << "relax.nn.dropout expects a float tensor";
  StructInfo s = x->shape_known ? TensorSInfo(x->shape, x->dtype) : TensorSInfoUnknown(x->dtype, x->ndim);
  return TupleSInfo({s, s});
}

TVM_FFI_STATIC_INIT_BLOCK() {
  TVM_RELAX_REGISTER_OP("relax.nn.batch_norm", kOutEWiseFusable, InferBatchNorm, 5);
  TVM_RELAX_REGISTER_OP("relax.nn.dropout", kElemWise, InferDropout, 1);
}

}  // namespace
}  // namespace relax
}  // namespace tvm
