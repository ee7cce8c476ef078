/*
 * Collective operators (TVM's relax.ccl.*): a tensor-parallel program is compiled once and
 * every Disco worker runs it; these calls exchange data between the workers. Inference only
 * here; LegalizeOps turns them into call_dps_packed of the runtime.disco.* globals
 * (python/tvm/relax/transform/legalize_ccl.py), which forward to the bound CCL plugin.
 *
 *   allreduce(x, op_type="sum", in_group=True)           -> x's shape and dtype
 *   allgather(x, num_workers, in_group=True)             -> shape[0] * num_workers
 *   broadcast_from_worker0(x)                            -> x's shape and dtype
 *   scatter_from_worker0(x, num_workers, axis=0)         -> shape[axis] / num_workers
 */
#include "op_common.h"

namespace tvm {
namespace relax {
namespace {

StructInfo Same(const CallNode* call) {
  TensorArg(call, 0);  // a tensor, or TypeError naming the operator
  return GetStructInfo(call->args[0]);
}

StructInfo InferAllreduce(const CallNode* call) {
  std::string op = StrAttr(call, "op_type", "sum");
  if (op != "sum" && op != "prod" && op != "min" && op != "max" && op != "avg") {
    TVM_FFI_THROW(ValueError) << OpName(call) << ": op_type must be sum, prod, min, max or avg, got \"" << op
                              << "\"";
  }
  return Same(call);
}

int64_t NumWorkers(const CallNode* call) {
  int64_t n = AttrOr<int64_t>(call, "num_workers", 0);
  if (n <= 0) TVM_FFI_THROW(ValueError) << OpName(call) << ": num_workers must be positive, got " << n;
  return n;
}

StructInfo InferAllgather(const CallNode* call) {
  const TensorStructInfoNode* x = TensorArg(call, 0);
  int64_t n = NumWorkers(call);
  if (x->ndim == 0) TVM_FFI_THROW(ValueError) << OpName(call) << ": the tensor must have at least one dimension";
  if (!x->shape_known) return TensorSInfoUnknown(x->dtype, x->ndim);
  Array<PrimExpr> shape = x->shape;
  shape.Set(0, Simp(Mul(shape[0], I64(n))));
  return TensorSInfo(shape, x->dtype);
}

StructInfo InferScatter(const CallNode* call) {
  const TensorStructInfoNode* x = TensorArg(call, 0);
  int64_t n = NumWorkers(call);
  if (x->ndim == 0) TVM_FFI_THROW(ValueError) << OpName(call) << ": the tensor must have at least one dimension";
  if (!x->shape_known) return TensorSInfoUnknown(x->dtype, x->ndim);
  int64_t axis = NormalizeAxis(AttrOr<int64_t>(call, "axis", 0), x->ndim, OpName(call));
  Array<PrimExpr> shape = x->shape;
  PrimExpr dim = shape[axis];
  const int64_t* d = AsConstInt(dim);
  if (d != nullptr && *d % n != 0) {
    TVM_FFI_THROW(ValueError) << OpName(call) << ": dimension " << axis << " (" << *d
                              << ") is not divisible by num_workers " << n;
  }
  shape.Set(axis, Simp(FloorDiv(dim, I64(n))));
  return TensorSInfo(shape, x->dtype);
}

TVM_FFI_STATIC_INIT_BLOCK() {
  TVM_RELAX_REGISTER_OP("relax.ccl.allreduce", kOpaque, InferAllreduce, 1);
  TVM_RELAX_REGISTER_OP("relax.ccl.allgather", kOpaque, InferAllgather, 1);
  TVM_RELAX_REGISTER_OP("relax.ccl.broadcast_from_worker0", kOpaque, Same, 1);
  TVM_RELAX_REGISTER_OP("relax.ccl.scatter_from_worker0", kOpaque, InferScatter, 1);
}

}  // namespace
}  // namespace relax
}  // namespace tvm
