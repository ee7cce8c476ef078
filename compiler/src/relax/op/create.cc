/*
 * Creation operators: zeros / ones (shape, dtype), full (shape, scalar fill_value[, dtype]),
 * zeros_like / ones_like / full_like, arange (start, end, step; ints or floats, symbolic ints).
 */
#include "op_common.h"

#include <cmath>

namespace tvm {
namespace relax {
namespace {

const ShapeStructInfoNode* ShapeArg(const CallNode* call, size_t i) {
  if (call->args.size() <= i) TVM_FFI_THROW(ValueError) << OpName(call) << ": missing the shape argument";
  StructInfo s = GetStructInfo(call->args[i]);
  auto* ss = s.as<ShapeStructInfoNode>();
  if (ss == nullptr) TVM_FFI_THROW(TypeError) << OpName(call) << ": the shape must be a shape expression";
  return ss;
}

StructInfo FromShape(const CallNode* call, DataType dt) {
  const ShapeStructInfoNode* ss = ShapeArg(call, 0);
  // the struct info of a shape argument is owned by the argument (alive with the call)
  return ss->known ? TensorSInfo(ss->values, dt) : TensorSInfoUnknown(dt, ss->ndim);
}

StructInfo InferZerosOnes(const CallNode* call) {
  DataType dt = DTypeAttr(call, "dtype", Void());
  if (IsUnknownDType(dt)) TVM_FFI_THROW(ValueError) << OpName(call) << " needs a dtype";
  return FromShape(call, dt);
}

const TensorStructInfoNode* ScalarFill(const CallNode* call, size_t i) {
  const TensorStructInfoNode* v = TensorArg(call, i);
  if (v->ndim > 0) TVM_FFI_THROW(ValueError) << OpName(call) << ": fill_value must be a scalar (0-d) tensor, got " << v->ndim << "-d";
  return v;
}

StructInfo InferFull(const CallNode* call) {
  const TensorStructInfoNode* v = ScalarFill(call, 1);
  return FromShape(call, DTypeAttr(call, "dtype", v->dtype));
}

StructInfo InferLike(const CallNode* call) {
  const TensorStructInfoNode* x = TensorArg(call, 0);
  if (OpName(call) == "relax.full_like") ScalarFill(call, 1);
  DataType dt = DTypeAttr(call, "dtype", x->dtype);
  return x->shape_known ? TensorSInfo(x->shape, dt) : TensorSInfoUnknown(dt, x->ndim);
}

struct Num {
  bool is_float{false};
  double f{0};
  PrimExpr i;  // int value (possibly symbolic)
};

Num NumAttr(const CallNode* call, const char* key, double fallback) {
  Num n;
  std::optional<Any> v = call->attrs.Get(String(key));
  if (!v.has_value() || v->type_index() == kTVMFFINone) {
    n.i = I64(static_cast<int64_t>(fallback));
    return n;
  }
  if (v->type_index() == kTVMFFIInt || v->type_index() == kTVMFFIBool) {
    n.i = I64(v->cast<int64_t>());
  } else if (v->type_index() == kTVMFFIFloat) {
    n.is_float = true;
    n.f = v->cast<double>();
  } else {
    PrimExpr e = v->cast<PrimExpr>();
    if (!IsIntOrUInt(e->dtype)) TVM_FFI_THROW(TypeError) << OpName(call) << ": " << key << " must be an int or float";
    n.i = MakeCast(Int(64), e);
  }
  return n;
}

StructInfo InferArange(const CallNode* call) {
  std::string op = OpName(call);
  Num start = NumAttr(call, "start", 0), end = NumAttr(call, "end", 0), step = NumAttr(call, "step", 1);
  DataType dt = DTypeAttr(call, "dtype", Void());
  bool floats = start.is_float || end.is_float || step.is_float;
  if (IsUnknownDType(dt)) dt = floats ? Float(32) : Int(64);
  if (floats) {
    auto val = [&](const Num& n, const char* what) {
      if (n.is_float) return n.f;
      PrimExpr e = n.i;
      const int64_t* c = AsConstInt(e);
      if (c == nullptr) TVM_FFI_THROW(ValueError) << op << ": symbolic " << what << " with float arguments";
      return static_cast<double>(*c);
    };
    double s = val(start, "start"), e = val(end, "end"), st = val(step, "step");
    if (st == 0) TVM_FFI_THROW(ValueError) << op << ": step must be non-zero";
    double n = std::ceil((e - s) / st);
    return TensorSInfo({I64(n > 0 ? static_cast<int64_t>(n) : 0)}, dt);
  }
  PrimExpr stepv = step.i;
  const int64_t* st = AsConstInt(stepv);
  if (st == nullptr) TVM_FFI_THROW(ValueError) << op << ": step must be a constant";
  if (*st == 0) TVM_FFI_THROW(ValueError) << op << ": step must be non-zero";
  PrimExpr span = *st > 0 ? Sub(end.i, start.i) : Sub(start.i, end.i);
  int64_t a = *st > 0 ? *st : -*st;
  PrimExpr len = Simp(FloorDiv(Add(span, I64(a - 1)), I64(a)));
  // a constant length is clamped at 0; a symbolic one is taken as is (arange(n) has n elements)
  if (const int64_t* c = AsConstInt(len)) return TensorSInfo({I64(*c > 0 ? *c : 0)}, dt);
  return TensorSInfo({len}, dt);
}

TVM_FFI_STATIC_INIT_BLOCK() {
  TVM_RELAX_REGISTER_OP("relax.zeros", kElemWise, InferZerosOnes, 1);
  TVM_RELAX_REGISTER_OP("relax.ones", kElemWise, InferZerosOnes, 1);
  TVM_RELAX_REGISTER_OP("relax.full", kElemWise, InferFull, 2);
  TVM_RELAX_REGISTER_OP("relax.zeros_like", kElemWise, InferLike, 1);
  TVM_RELAX_REGISTER_OP("relax.ones_like", kElemWise, InferLike, 1);
  TVM_RELAX_REGISTER_OP("relax.full_like", kElemWise, InferLike, 2);
  TVM_RELAX_REGISTER_OP("relax.arange", kInjective, InferArange, 0);
}

}  // namespace
}  // namespace relax
}  // namespace tvm
