/*
 * The IR's base expression types, shared by every dialect: PrimExpr (a typed scalar/vector
 * expression), the integer and float constants, and Range. TIR builds its expression nodes
 * on these (tvm/tir/ir.h); Relax uses PrimExpr for shapes. This layer knows no dialect.
 *
 * Nodes are tvm-ffi objects with reflected fields (tvm/ir/reflection.h), immutable once
 * built, without virtual functions (the object header must stay at offset 0).
 */
#ifndef TVM_IR_EXPR_H_
#define TVM_IR_EXPR_H_

#include <tvm/ffi/any.h>
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/map.h>
#include <tvm/ffi/object.h>
#include <tvm/ffi/string.h>
#include <tvm/ir/dtype.h>

#include <cstdint>

namespace tvm {

using ffi::Any;
using ffi::Array;
using ffi::Map;
using ffi::Object;
using ffi::ObjectPtr;
using ffi::ObjectRef;
using ffi::String;
using ffi::make_object;

/*! \brief `ref` as reference type R; the caller knows the node type (no check). */
template <typename R>
R UncheckedCast(const ObjectRef& ref) {
  return ffi::details::ObjectUnsafe::RefFromPtr<R>(ffi::GetObjectPtr<Object>(ref));
}

/*! \brief Base of every scalar/vector expression; `dtype` is its type. */
class PrimExprNode : public Object {
 public:
  DataType dtype{Int(32)};
  TVM_FFI_DECLARE_OBJECT_INFO("ir.PrimExpr", PrimExprNode, Object);
};

class PrimExpr : public ObjectRef {
 public:
  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NULLABLE(PrimExpr, ObjectRef, PrimExprNode);
  DataType dtype() const { return get()->dtype; }
};

class IntImmNode : public PrimExprNode {
 public:
  int64_t value{0};
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("ir.IntImm", IntImmNode, PrimExprNode);
};

class FloatImmNode : public PrimExprNode {
 public:
  double value{0};
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("ir.FloatImm", FloatImmNode, PrimExprNode);
};

/*! \brief An integer constant; TypeError unless `t` is a scalar int/uint/bool (bools are 0/1). */
PrimExpr IntImm(DataType t, int64_t value);
/*! \brief A float constant; TypeError unless `t` is a scalar float. */
PrimExpr FloatImm(DataType t, double value);

/*! \brief Value of an IntImm, or nullptr (a pointer into `e`: keep `e` alive). */
inline const int64_t* AsConstInt(const PrimExpr& e) {
  const IntImmNode* n = e.as<IntImmNode>();
  return n ? &n->value : nullptr;
}
/*! \brief Not on temporaries: the pointer would dangle. */
const int64_t* AsConstInt(PrimExpr&& e) = delete;

/*! \brief The half-open range [min, min + extent). */
class RangeNode : public Object {
 public:
  PrimExpr min;
  PrimExpr extent;
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("ir.Range", RangeNode, Object);
};

class Range : public ObjectRef {
 public:
  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NULLABLE(Range, ObjectRef, RangeNode);
  /*! \brief ValueError when min or extent is undefined. */
  Range(PrimExpr min, PrimExpr extent);
};

}  // namespace tvm
#endif  // TVM_IR_EXPR_H_
