/*
 * TIR: the tensor-level IR. Expressions (on PrimExpr, tvm/ir/expr.h), statements (Stmt),
 * Buffer, PrimFunc, and the TE stage objects (IterVar, te.Tensor) that create_prim_func turns
 * into loops. IRModule (tvm/ir/module.h) holds PrimFuncs next to other dialects' functions.
 *
 * Every node is a tvm-ffi object with a registered type key ("tir.Add", "tir.For", ...) and
 * reflected fields (tvm/ir/reflection.h). Nodes are immutable once built; passes build new
 * nodes. No node has virtual functions (the object header must stay at offset 0).
 */
#ifndef TVM_TIR_IR_H_
#define TVM_TIR_IR_H_

#include <tvm/ir/expr.h>
#include <tvm/ir/module.h>

#include <cstdint>
#include <string>

namespace tvm {

// ------------------------------------------------------------------------------------------
// Bases
// ------------------------------------------------------------------------------------------

/*! \brief Base of every statement. */
class StmtNode : public Object {
 public:
  TVM_FFI_DECLARE_OBJECT_INFO("tir.Stmt", StmtNode, Object);
};

class Stmt : public ObjectRef {
 public:
  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NULLABLE(Stmt, ObjectRef, StmtNode);
};

#define TVM_TIR_NODE(Name, Key, Parent) \
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL(Key, Name, Parent)

// ------------------------------------------------------------------------------------------
// Expressions
// ------------------------------------------------------------------------------------------

class StringImmNode : public PrimExprNode {
 public:
  String value;
  TVM_TIR_NODE(StringImmNode, "tir.StringImm", PrimExprNode);
};

/*! \brief A variable; identity is the object (two Vars named "i" are different). */
class VarNode : public PrimExprNode {
 public:
  String name;
  TVM_TIR_NODE(VarNode, "tir.Var", PrimExprNode);
};

class Var : public PrimExpr {
 public:
  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NULLABLE(Var, PrimExpr, VarNode);
  Var(std::string name, DataType dtype);
};

/*! \brief Binary operators share one layout; each has its own type key. */
#define TVM_TIR_BINARY(Name, Key)                  \
  class Name##Node : public PrimExprNode {         \
   public:                                         \
    PrimExpr a;                                    \
    PrimExpr b;                                    \
    TVM_TIR_NODE(Name##Node, Key, PrimExprNode);   \
  }

TVM_TIR_BINARY(Add, "tir.Add");
TVM_TIR_BINARY(Sub, "tir.Sub");
TVM_TIR_BINARY(Mul, "tir.Mul");
TVM_TIR_BINARY(Div, "tir.Div");
TVM_TIR_BINARY(Mod, "tir.Mod");
TVM_TIR_BINARY(FloorDiv, "tir.FloorDiv");
TVM_TIR_BINARY(FloorMod, "tir.FloorMod");
TVM_TIR_BINARY(Min, "tir.Min");
TVM_TIR_BINARY(Max, "tir.Max");
TVM_TIR_BINARY(EQ, "tir.EQ");
TVM_TIR_BINARY(NE, "tir.NE");
TVM_TIR_BINARY(LT, "tir.LT");
TVM_TIR_BINARY(LE, "tir.LE");
TVM_TIR_BINARY(GT, "tir.GT");
TVM_TIR_BINARY(GE, "tir.GE");
TVM_TIR_BINARY(And, "tir.And");
TVM_TIR_BINARY(Or, "tir.Or");

class NotNode : public PrimExprNode {
 public:
  PrimExpr a;
  TVM_TIR_NODE(NotNode, "tir.Not", PrimExprNode);
};

class SelectNode : public PrimExprNode {
 public:
  PrimExpr condition;
  PrimExpr true_value;
  PrimExpr false_value;
  TVM_TIR_NODE(SelectNode, "tir.Select", PrimExprNode);
};

class CastNode : public PrimExprNode {
 public:
  PrimExpr value;
  TVM_TIR_NODE(CastNode, "tir.Cast", PrimExprNode);
};

/*!
 * \brief Call of an intrinsic named `op`: math ("tir.exp", "tir.sqrt", ...), "tir.if_then_else",
 * "tir.reinterpret"... The names are those of tvm.tir's Python functions.
 */
class CallNode : public PrimExprNode {
 public:
  String op;
  Array<PrimExpr> args;
  TVM_TIR_NODE(CallNode, "tir.Call", PrimExprNode);
};

class RampNode : public PrimExprNode {
 public:
  PrimExpr base;
  PrimExpr stride;
  int64_t lanes{1};
  TVM_TIR_NODE(RampNode, "tir.Ramp", PrimExprNode);
};

class BroadcastNode : public PrimExprNode {
 public:
  PrimExpr value;
  int64_t lanes{1};
  TVM_TIR_NODE(BroadcastNode, "tir.Broadcast", PrimExprNode);
};

class LetNode : public PrimExprNode {
 public:
  Var var;
  PrimExpr value;
  PrimExpr body;
  TVM_TIR_NODE(LetNode, "tir.Let", PrimExprNode);
};

// ------------------------------------------------------------------------------------------
// Buffer
// ------------------------------------------------------------------------------------------

/*!
 * \brief A multi-dimensional view of memory: `data` (a handle Var), element dtype, shape and
 * strides (empty strides = compact row-major).
 */
class BufferNode : public Object {
 public:
  Var data;
  DataType dtype{Float(32)};
  Array<PrimExpr> shape;
  Array<PrimExpr> strides;
  String name;
  /*! \brief Storage scope: "global" (arguments, heap/stack temporaries), "local", "shared". */
  String scope{"global"};
  TVM_TIR_NODE(BufferNode, "tir.Buffer", Object);
};

class Buffer : public ObjectRef {
 public:
  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NULLABLE(Buffer, ObjectRef, BufferNode);
};

class BufferLoadNode : public PrimExprNode {
 public:
  Buffer buffer;
  Array<PrimExpr> indices;
  TVM_TIR_NODE(BufferLoadNode, "tir.BufferLoad", PrimExprNode);
};

// ------------------------------------------------------------------------------------------
// Statements
// ------------------------------------------------------------------------------------------

/*! \brief An iteration variable over [min, min + extent); kind 0 = data parallel, 2 = reduce. */
class IterVarNode : public Object {
 public:
  Var var;
  PrimExpr min;
  PrimExpr extent;
  int64_t kind{0};
  TVM_TIR_NODE(IterVarNode, "tir.IterVar", Object);
};

class IterVar : public ObjectRef {
 public:
  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NULLABLE(IterVar, ObjectRef, IterVarNode);
};

/*! \brief Loop kinds (values as in TVM's ForKind). */
enum class ForKind : int64_t {
  kSerial = 0,
  kParallel = 1,
  kVectorized = 2,
  kUnrolled = 3,
  kThreadBinding = 4,
};

class ForNode : public StmtNode {
 public:
  Var loop_var;
  PrimExpr min;
  PrimExpr extent;
  int64_t kind{0};
  Stmt body;
  String thread_tag;
  /*! \brief Free-form loop annotations (schedule `annotate`, pragmas). */
  Map<String, Any> annotations;
  TVM_TIR_NODE(ForNode, "tir.For", StmtNode);
};

class BufferStoreNode : public StmtNode {
 public:
  Buffer buffer;
  PrimExpr value;
  Array<PrimExpr> indices;
  TVM_TIR_NODE(BufferStoreNode, "tir.BufferStore", StmtNode);
};

class LetStmtNode : public StmtNode {
 public:
  Var var;
  PrimExpr value;
  Stmt body;
  TVM_TIR_NODE(LetStmtNode, "tir.LetStmt", StmtNode);
};

class IfThenElseNode : public StmtNode {
 public:
  PrimExpr condition;
  Stmt then_case;
  Stmt else_case;  // may be null
  TVM_TIR_NODE(IfThenElseNode, "tir.IfThenElse", StmtNode);
};

class SeqStmtNode : public StmtNode {
 public:
  Array<Stmt> seq;
  TVM_TIR_NODE(SeqStmtNode, "tir.SeqStmt", StmtNode);
};

/*! \brief Allocates `buffer` (its data var is bound inside `body`). */
class AllocateNode : public StmtNode {
 public:
  Buffer buffer;
  Stmt body;
  TVM_TIR_NODE(AllocateNode, "tir.Allocate", StmtNode);
};

/*!
 * \brief Checks `condition`; when it is false, raises an error of `kind` ("TypeError",
 * "ValueError", ...) with `message` and returns from the function; else runs `body`.
 * MakePackedAPI writes the argument checks as these.
 */
class AssertStmtNode : public StmtNode {
 public:
  PrimExpr condition;
  String kind;
  String message;
  Stmt body;
  TVM_TIR_NODE(AssertStmtNode, "tir.AssertStmt", StmtNode);
};

class EvaluateNode : public StmtNode {
 public:
  PrimExpr value;
  TVM_TIR_NODE(EvaluateNode, "tir.Evaluate", StmtNode);
};


// ------------------------------------------------------------------------------------------
// Blocks (TensorIR)
// ------------------------------------------------------------------------------------------

/*! \brief A rectangular region of a buffer: one Range per dimension. */
class BufferRegionNode : public Object {
 public:
  Buffer buffer;
  Array<Range> region;
  TVM_TIR_NODE(BufferRegionNode, "tir.BufferRegion", Object);
};

class BufferRegion : public ObjectRef {
 public:
  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NULLABLE(BufferRegion, ObjectRef, BufferRegionNode);
  BufferRegion(Buffer buffer, Array<Range> region);
};

/*!
 * \brief A block: a computation over an iteration domain (`iter_vars`, each spatial, kind 0,
 * or reduction, kind 2), isolated from the loops around it. The body refers to the block's
 * iter vars only, never to outer loop variables; `BlockRealize` binds the iter vars to
 * expressions of the loops. `reads`/`writes` are the buffer regions the body touches (in
 * terms of the iter vars). `init` (reductions only) runs at the first reduction point of
 * each spatial point, so the block's loops can be reordered freely. `alloc_buffers` are
 * allocated for the block's lifetime (intermediate stages live in the root block's).
 */
class BlockNode : public StmtNode {
 public:
  Array<IterVar> iter_vars;
  Array<BufferRegion> reads;
  Array<BufferRegion> writes;
  String name_hint;
  Stmt body;
  Stmt init;  // may be null
  Array<Buffer> alloc_buffers;
  Map<String, Any> annotations;
  TVM_TIR_NODE(BlockNode, "tir.Block", StmtNode);
};

class Block : public Stmt {
 public:
  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NULLABLE(Block, Stmt, BlockNode);
};

/*!
 * \brief Executes `block` at one point: iter_vars[k] = iter_values[k], when `predicate`
 * (a scalar bool) holds.
 */
class BlockRealizeNode : public StmtNode {
 public:
  Array<PrimExpr> iter_values;
  PrimExpr predicate;
  Block block;
  TVM_TIR_NODE(BlockRealizeNode, "tir.BlockRealize", StmtNode);
};

class BlockRealize : public Stmt {
 public:
  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NULLABLE(BlockRealize, Stmt, BlockRealizeNode);
};

// ------------------------------------------------------------------------------------------
// Functions and modules
// ------------------------------------------------------------------------------------------

/*!
 * \brief A TIR function. `params` are scalar Vars or handle Vars; a handle param found in
 * `buffer_map` is a tensor argument described by that Buffer.
 */
class PrimFuncNode : public Object {
 public:
  Array<Var> params;
  Map<Var, Buffer> buffer_map;
  Stmt body;
  Map<String, Any> attrs;
  TVM_TIR_NODE(PrimFuncNode, "tir.PrimFunc", Object);
};

class PrimFunc : public ObjectRef {
 public:
  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NULLABLE(PrimFunc, ObjectRef, PrimFuncNode);
  /*! \brief attrs["global_symbol"] or `fallback`. */
  std::string GlobalSymbol(const std::string& fallback) const;
};

/*! \brief `f` as a PrimFunc, or a null PrimFunc when it is another kind of function. */
inline PrimFunc AsPrimFunc(const ObjectRef& f) {
  return f.as<PrimFuncNode>() ? UncheckedCast<PrimFunc>(f) : PrimFunc();
}

// ------------------------------------------------------------------------------------------
// TE
// ------------------------------------------------------------------------------------------

/*!
 * \brief A reduction: combiner in {"sum", "max", "min", "prod"} of `source` over the points of
 * `axis` where `condition` holds (a bool; constant true for all of them). Points where it is
 * false are not visited at all, so `source` may read out of bounds there.
 */
class ReduceNode : public PrimExprNode {
 public:
  String combiner;
  PrimExpr source;
  Array<IterVar> axis;
  PrimExpr condition;
  TVM_TIR_NODE(ReduceNode, "tir.Reduce", PrimExprNode);
};

/*!
 * \brief A TE tensor: a placeholder (no body) or a compute stage. `buffer` is the storage
 * the generated function reads/writes; `inputs` are the tensors `body` reads.
 */
class TETensorNode : public Object {
 public:
  Buffer buffer;
  Array<IterVar> axis;
  PrimExpr body;
  Array<ObjectRef> inputs;
  TVM_TIR_NODE(TETensorNode, "te.Tensor", Object);
};

class TETensor : public ObjectRef {
 public:
  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NULLABLE(TETensor, ObjectRef, TETensorNode);
};

// ------------------------------------------------------------------------------------------
// Construction helpers (type checking and dtype inference)
// ------------------------------------------------------------------------------------------

/*! \brief A constant of type t (int, uint, bool or float). */
PrimExpr MakeConst(DataType t, double value);
/*! \brief Builds a binary node by type key ("tir.Add"); checks dtypes, infers the result. */
PrimExpr MakeBinary(const std::string& key, PrimExpr a, PrimExpr b);
PrimExpr MakeNot(PrimExpr a);
/*! \brief A string constant (dtype handle): names in calls such as tvm_call_packed. */
PrimExpr MakeStringImm(const std::string& s);
PrimExpr MakeSelect(PrimExpr c, PrimExpr t, PrimExpr f);
PrimExpr MakeCast(DataType t, PrimExpr v);
PrimExpr MakeCall(DataType t, const std::string& op, Array<PrimExpr> args);
PrimExpr MakeBufferLoad(Buffer b, Array<PrimExpr> indices);
PrimExpr MakeRamp(PrimExpr base, PrimExpr stride, int64_t lanes);
PrimExpr MakeBroadcast(PrimExpr value, int64_t lanes);
Buffer MakeBuffer(Var data, DataType dtype, Array<PrimExpr> shape, Array<PrimExpr> strides,
                  std::string name, std::string scope = "global");
/*! \brief A copy of `b` with a fresh data Var, `name`, `shape` (compact) and `scope`. */
Buffer MakeBufferLike(const Buffer& b, std::string name, Array<PrimExpr> shape, std::string scope);
Stmt MakeFor(Var v, PrimExpr min, PrimExpr extent, int64_t kind, Stmt body,
             std::string thread_tag = "", Map<String, Any> annotations = {});
/*! \brief The same loop with another body (kind, tag and annotations kept). */
Stmt WithBody(const ForNode* loop, Stmt body);
/*! \brief The same function with another body (params, buffer_map and attrs kept). */
PrimFunc WithBody(const PrimFunc& f, Stmt body);
IterVar MakeIterVar(Var v, PrimExpr min, PrimExpr extent, int64_t kind);
Block MakeBlock(Array<IterVar> iter_vars, Array<BufferRegion> reads, Array<BufferRegion> writes,
                std::string name, Stmt body, Stmt init, Array<Buffer> alloc_buffers,
                Map<String, Any> annotations);
/*! \brief Checks that the values match the iter vars in number and dtype, predicate a bool. */
BlockRealize MakeBlockRealize(Array<PrimExpr> iter_values, PrimExpr predicate, Block block);
Stmt MakeBufferStore(Buffer b, PrimExpr value, Array<PrimExpr> indices);
Stmt MakeLetStmt(Var v, PrimExpr value, Stmt body);
Stmt MakeIfThenElse(PrimExpr c, Stmt t, Stmt e);
Stmt MakeSeq(Array<Stmt> seq);
Stmt MakeAllocate(Buffer b, Stmt body);
Stmt MakeEvaluate(PrimExpr v);
Stmt MakeAssert(PrimExpr condition, std::string kind, std::string message, Stmt body);
PrimFunc MakePrimFunc(Array<Var> params, Map<Var, Buffer> buffer_map, Stmt body,
                      Map<String, Any> attrs);

}  // namespace tvm
#endif  // TVM_TIR_IR_H_
