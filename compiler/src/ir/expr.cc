/*
 * The shared expression bases (tvm/ir/expr.h): the checked constructors of IntImm, FloatImm
 * and Range, their reflected fields, and the constructor globals the Python package calls.
 * The globals keep their historical names ("tir.IntImm", "tir.FloatImm"): tvm.tir calls them.
 */
#include <tvm/ffi/error.h>
#include <tvm/ir/expr.h>
#include <tvm/ir/reflection.h>

#include "../support/registry.h"

namespace tvm {

PrimExpr IntImm(DataType t, int64_t value) {
  if (!(IsIntOrUInt(t) || IsBool(t)) || t.lanes != 1) {
    TVM_FFI_THROW(TypeError) << "IntImm needs a scalar int/uint/bool dtype, got " << DTypeToString(t);
  }
  if (IsBool(t)) value = value != 0;
  ObjectPtr<IntImmNode> n = make_object<IntImmNode>();
  n->dtype = t;
  n->value = value;
  return PrimExpr(n);
}

PrimExpr FloatImm(DataType t, double value) {
  if (!IsFloat(t) || t.lanes != 1) {
    TVM_FFI_THROW(TypeError) << "FloatImm needs a scalar float dtype, got " << DTypeToString(t);
  }
  ObjectPtr<FloatImmNode> n = make_object<FloatImmNode>();
  n->dtype = t;
  n->value = value;
  return PrimExpr(n);
}

Range::Range(PrimExpr min, PrimExpr extent) : ObjectRef(ffi::details::UnsafeInit{}) {
  if (!min.defined()) TVM_FFI_THROW(ValueError) << "Range.min: expression is None";
  if (!extent.defined()) TVM_FFI_THROW(ValueError) << "Range.extent: expression is None";
  ObjectPtr<RangeNode> n = make_object<RangeNode>();
  n->min = std::move(min);
  n->extent = std::move(extent);
  data_ = std::move(n);
}

TVM_FFI_STATIC_INIT_BLOCK() {
  ir::Reflect<IntImmNode>().Field("dtype", &IntImmNode::dtype).Field("value", &IntImmNode::value);
  ir::Reflect<FloatImmNode>().Field("dtype", &FloatImmNode::dtype).Field("value", &FloatImmNode::value);
  ir::Reflect<RangeNode>().Field("min", &RangeNode::min).Field("extent", &RangeNode::extent);
  RegisterCompilerGlobal("tir.IntImm", [](DataType t, int64_t v) { return IntImm(t, v); });
  RegisterCompilerGlobal("tir.FloatImm", [](DataType t, double v) { return FloatImm(t, v); });
  RegisterCompilerGlobal("ir.Range", [](PrimExpr min, PrimExpr extent) { return Range(min, extent); });
}

}  // namespace tvm
