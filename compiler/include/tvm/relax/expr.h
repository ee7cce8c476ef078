/*
 * Relax: the graph-level IR (TVM's spelling and meaning). A Function's body is a SeqExpr of
 * binding blocks (DataflowBlock: pure, side-effect free) that bind Vars to expressions: calls
 * of operators (Op), of PrimFuncs (call_tir) or of packed functions (call_dps_packed,
 * ExternFunc), tuples, constants, shapes. Every expression carries a StructInfo: what is known
 * of its value (a tensor's dtype, ndim and symbolic shape; a tuple's fields; a shape's
 * values), filled in by normalization (relax.Normalize, the BlockBuilder) through each
 * operator's inference rule (tvm/relax/op.h). Symbolic dimensions are int64 TIR Vars.
 *
 * Every node is a tvm-ffi object with reflected fields (structural equality, printing, JSON),
 * built through the relax.* globals (src/relax/ir/expr.cc) from Python.
 */
#ifndef TVM_RELAX_EXPR_H_
#define TVM_RELAX_EXPR_H_

#include <tvm/ffi/container/tensor.h>
#include <tvm/tir/ir.h>

namespace tvm {
namespace relax {

// ------------------------------------------------------------------------------------------
// Struct info
// ------------------------------------------------------------------------------------------

class StructInfoNode : public Object {
 public:
  TVM_FFI_DECLARE_OBJECT_INFO("relax.StructInfo", StructInfoNode, Object);
};
class StructInfo : public ObjectRef {
 public:
  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NULLABLE(StructInfo, ObjectRef, StructInfoNode);
};

/*! \brief Nothing known (any object). */
class ObjectStructInfoNode : public StructInfoNode {
 public:
  TVM_TIR_NODE(ObjectStructInfoNode, "relax.ObjectStructInfo", StructInfoNode);
};

/*! \brief A scalar of `dtype`; `value` (may be null) when known. */
class PrimStructInfoNode : public StructInfoNode {
 public:
  DataType dtype{Int(64)};
  PrimExpr value;
  TVM_TIR_NODE(PrimStructInfoNode, "relax.PrimStructInfo", StructInfoNode);
};

/*! \brief A shape; `values` (empty when unknown, see ndim) are int64 PrimExprs. */
class ShapeStructInfoNode : public StructInfoNode {
 public:
  Array<PrimExpr> values;
  bool known{false};  // values are given (a 0-d shape has known=true and no values)
  int64_t ndim{-1};   // -1: unknown
  TVM_TIR_NODE(ShapeStructInfoNode, "relax.ShapeStructInfo", StructInfoNode);
};

/*! \brief A tensor: dtype (void: unknown), ndim (-1: unknown), shape when known. */
class TensorStructInfoNode : public StructInfoNode {
 public:
  DataType dtype{DataType{kDLOpaqueHandle, 0, 0}};
  int64_t ndim{-1};
  Array<PrimExpr> shape;
  bool shape_known{false};
  TVM_TIR_NODE(TensorStructInfoNode, "relax.TensorStructInfo", StructInfoNode);
};

class TupleStructInfoNode : public StructInfoNode {
 public:
  Array<StructInfo> fields;
  TVM_TIR_NODE(TupleStructInfoNode, "relax.TupleStructInfo", StructInfoNode);
};

/*! \brief A function: its parameters' and result's struct info. */
class FuncStructInfoNode : public StructInfoNode {
 public:
  Array<StructInfo> params;
  StructInfo ret;
  TVM_TIR_NODE(FuncStructInfoNode, "relax.FuncStructInfo", StructInfoNode);
};

/*! \brief True for void, the "dtype unknown" marker. */
inline bool IsUnknownDType(DataType t) { return t.code == kDLOpaqueHandle && t.bits == 0; }

StructInfo ObjectSInfo();
StructInfo PrimSInfo(DataType dtype, PrimExpr value = PrimExpr());
StructInfo ShapeSInfo(Array<PrimExpr> values);
StructInfo ShapeSInfoUnknown(int64_t ndim);
StructInfo TensorSInfo(Array<PrimExpr> shape, DataType dtype);
StructInfo TensorSInfoUnknown(DataType dtype, int64_t ndim);
StructInfo TupleSInfo(Array<StructInfo> fields);

// ------------------------------------------------------------------------------------------
// Expressions
// ------------------------------------------------------------------------------------------

/*! \brief Base of every Relax expression; struct_info is set by normalization. */
class ExprNode : public Object {
 public:
  StructInfo struct_info;
  TVM_FFI_DECLARE_OBJECT_INFO("relax.expr.Expr", ExprNode, Object);
};
class Expr : public ObjectRef {
 public:
  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NULLABLE(Expr, ObjectRef, ExprNode);
};

/*! \brief A variable bound once (by a function parameter or a binding). */
class VarNode : public ExprNode {
 public:
  String name_hint;
  TVM_FFI_DECLARE_OBJECT_INFO("relax.expr.Var", VarNode, ExprNode);
};
class Var : public Expr {
 public:
  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NULLABLE(Var, Expr, VarNode);
};

/*! \brief A variable bound inside a DataflowBlock, invisible outside it. */
class DataflowVarNode : public VarNode {
 public:
  TVM_TIR_NODE(DataflowVarNode, "relax.expr.DataflowVar", VarNode);
};

class ConstantNode : public ExprNode {
 public:
  ffi::Tensor data;
  TVM_TIR_NODE(ConstantNode, "relax.expr.Constant", ExprNode);
};

class TupleNode : public ExprNode {
 public:
  Array<Expr> fields;
  TVM_TIR_NODE(TupleNode, "relax.expr.Tuple", ExprNode);
};

class TupleGetItemNode : public ExprNode {
 public:
  Expr tuple_value;
  int64_t index{0};
  TVM_TIR_NODE(TupleGetItemNode, "relax.expr.TupleGetItem", ExprNode);
};

/*! \brief A shape value made of int64 PrimExprs (symbolic dims are TIR Vars). */
class ShapeExprNode : public ExprNode {
 public:
  Array<PrimExpr> values;
  TVM_TIR_NODE(ShapeExprNode, "relax.expr.ShapeExpr", ExprNode);
};

class PrimValueNode : public ExprNode {
 public:
  PrimExpr value;
  TVM_TIR_NODE(PrimValueNode, "relax.expr.PrimValue", ExprNode);
};

class StringImmNode : public ExprNode {
 public:
  String value;
  TVM_TIR_NODE(StringImmNode, "relax.expr.StringImm", ExprNode);
};

class DataTypeImmNode : public ExprNode {
 public:
  DataType value;
  TVM_TIR_NODE(DataTypeImmNode, "relax.expr.DataTypeImm", ExprNode);
};

/*! \brief An operator, by name ("relax.add"); its rules live in the op registry. */
class OpNode : public ExprNode {
 public:
  String name;
  TVM_TIR_NODE(OpNode, "ir.Op", ExprNode);
};

/*! \brief A function of the IRModule, by name. */
class GlobalVarNode : public ExprNode {
 public:
  String name_hint;
  TVM_TIR_NODE(GlobalVarNode, "ir.GlobalVar", ExprNode);
};

/*! \brief A packed function found by name at run time (the registry or the library). */
class ExternFuncNode : public ExprNode {
 public:
  String global_symbol;
  TVM_TIR_NODE(ExternFuncNode, "relax.expr.ExternFunc", ExprNode);
};

/*!
 * \brief `op(args...)`; `attrs` are the operator's attributes (axis, strides, ...);
 * `sinfo_args` the struct info of call_tir / call_dps_packed outputs.
 */
class CallNode : public ExprNode {
 public:
  Expr op;
  Array<Expr> args;
  Map<String, Any> attrs;
  Array<StructInfo> sinfo_args;
  TVM_TIR_NODE(CallNode, "relax.expr.Call", ExprNode);
};

class BindingNode : public Object {
 public:
  Var var;
  TVM_FFI_DECLARE_OBJECT_INFO("relax.expr.Binding", BindingNode, Object);
};
class Binding : public ObjectRef {
 public:
  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NULLABLE(Binding, ObjectRef, BindingNode);
};

class VarBindingNode : public BindingNode {
 public:
  Expr value;
  TVM_TIR_NODE(VarBindingNode, "relax.expr.VarBinding", BindingNode);
};

/*! \brief Binds `var` to `value` after checking it matches `struct_info` (defines its vars). */
class MatchCastNode : public BindingNode {
 public:
  Expr value;
  StructInfo match_struct_info;
  TVM_TIR_NODE(MatchCastNode, "relax.expr.MatchCast", BindingNode);
};

class BindingBlockNode : public Object {
 public:
  Array<Binding> bindings;
  TVM_FFI_DECLARE_OBJECT_INFO("relax.expr.BindingBlock", BindingBlockNode, Object);
};
class BindingBlock : public ObjectRef {
 public:
  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NULLABLE(BindingBlock, ObjectRef, BindingBlockNode);
};

class DataflowBlockNode : public BindingBlockNode {
 public:
  TVM_TIR_NODE(DataflowBlockNode, "relax.expr.DataflowBlock", BindingBlockNode);
};

class SeqExprNode : public ExprNode {
 public:
  Array<BindingBlock> blocks;
  Expr body;
  TVM_TIR_NODE(SeqExprNode, "relax.expr.SeqExpr", ExprNode);
};

class FunctionNode : public ExprNode {
 public:
  Array<Var> params;
  Expr body;
  StructInfo ret_struct_info;
  bool is_pure{true};
  Map<String, Any> attrs;
  TVM_TIR_NODE(FunctionNode, "relax.expr.Function", ExprNode);
};
class Function : public Expr {
 public:
  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NULLABLE(Function, Expr, FunctionNode);
};

/*! \brief The interned operator `name` (ValueError if no operator of that name exists). */
Expr GetOp(const std::string& name);

/*! \brief `e` with its struct info filled in (calls: the operator's inference rule). */
Expr Normalize(const Expr& e);

/*! \brief The struct info of a normalized expression (ValueError if it has none). */
StructInfo GetStructInfo(const Expr& e);

}  // namespace relax
}  // namespace tvm
#endif  // TVM_RELAX_EXPR_H_
