/*
 * TIR node registration (fields), construction helpers with dtype checks, and the
 * constructor globals the Python package calls ("tir.Var", "tir.Binary", ...).
 */
#include <tvm/ffi/error.h>
#include <tvm/ffi/function.h>
#include <tvm/ir/reflection.h>
#include <tvm/ir/structural.h>
#include <tvm/tir/ir.h>

#include "../support/registry.h"

namespace tvm {

using ir::Reflect;

Var::Var(std::string name, DataType dtype) : PrimExpr(ffi::details::UnsafeInit{}) {
  ObjectPtr<VarNode> n = make_object<VarNode>();
  n->name = String(name);
  n->dtype = dtype;
  data_ = std::move(n);
}

std::string PrimFunc::GlobalSymbol(const std::string& fallback) const {
  std::optional<Any> v = get()->attrs.Get(String("global_symbol"));
  if (v.has_value()) {
    if (auto s = v->as<String>()) return std::string(*s);
  }
  return fallback;
}

namespace {

void CheckDefined(const PrimExpr& e, const char* what) {
  if (!e.defined()) TVM_FFI_THROW(ValueError) << what << ": expression is None";
}

}  // namespace

PrimExpr MakeConst(DataType t, double value) {
  if (t.lanes != 1) return MakeBroadcast(MakeConst(ElementOf(t), value), t.lanes);
  if (IsFloat(t)) return FloatImm(t, value);
  return IntImm(t, static_cast<int64_t>(value));
}

template <typename T>
static PrimExpr MakeBin(DataType t, PrimExpr a, PrimExpr b) {
  ObjectPtr<T> n = make_object<T>();
  n->dtype = t;
  n->a = std::move(a);
  n->b = std::move(b);
  return PrimExpr(n);
}

PrimExpr MakeBinary(const std::string& key, PrimExpr a, PrimExpr b) {
  CheckDefined(a, key.c_str());
  CheckDefined(b, key.c_str());
  DataType ta = a.dtype(), tb = b.dtype();
  if (ta != tb) {
    TVM_FFI_THROW(TypeError) << key << ": operand dtypes differ (" << DTypeToString(ta) << " vs "
                             << DTypeToString(tb) << ")";
  }
  DataType cmp = Bool(ta.lanes);
#define TVM_BIN_CASE(Name, Result) \
  if (key == "tir." #Name) return MakeBin<Name##Node>(Result, std::move(a), std::move(b));
  TVM_BIN_CASE(Add, ta)
  TVM_BIN_CASE(Sub, ta)
  TVM_BIN_CASE(Mul, ta)
  TVM_BIN_CASE(Div, ta)
  TVM_BIN_CASE(Mod, ta)
  TVM_BIN_CASE(FloorDiv, ta)
  TVM_BIN_CASE(FloorMod, ta)
  TVM_BIN_CASE(Min, ta)
  TVM_BIN_CASE(Max, ta)
  TVM_BIN_CASE(EQ, cmp)
  TVM_BIN_CASE(NE, cmp)
  TVM_BIN_CASE(LT, cmp)
  TVM_BIN_CASE(LE, cmp)
  TVM_BIN_CASE(GT, cmp)
  TVM_BIN_CASE(GE, cmp)
  if (key == "tir.And" || key == "tir.Or") {
    if (!IsBool(ta)) TVM_FFI_THROW(TypeError) << key << " needs bool operands, got " << DTypeToString(ta);
    if (key == "tir.And") return MakeBin<AndNode>(ta, std::move(a), std::move(b));
    return MakeBin<OrNode>(ta, std::move(a), std::move(b));
  }
#undef TVM_BIN_CASE
  TVM_FFI_THROW(ValueError) << "unknown binary operator " << key;
}

PrimExpr MakeNot(PrimExpr a) {
  CheckDefined(a, "tir.Not");
  if (!IsBool(a.dtype())) TVM_FFI_THROW(TypeError) << "tir.Not needs a bool operand";
  ObjectPtr<NotNode> n = make_object<NotNode>();
  n->dtype = a.dtype();
  n->a = std::move(a);
  return PrimExpr(n);
}

PrimExpr MakeSelect(PrimExpr c, PrimExpr t, PrimExpr f) {
  CheckDefined(c, "tir.Select");
  CheckDefined(t, "tir.Select");
  CheckDefined(f, "tir.Select");
  if (!IsBool(c.dtype())) TVM_FFI_THROW(TypeError) << "Select condition must be bool";
  if (t.dtype() != f.dtype()) TVM_FFI_THROW(TypeError) << "Select branches differ in dtype";
  ObjectPtr<SelectNode> n = make_object<SelectNode>();
  n->dtype = t.dtype();
  n->condition = std::move(c);
  n->true_value = std::move(t);
  n->false_value = std::move(f);
  return PrimExpr(n);
}

PrimExpr MakeCast(DataType t, PrimExpr v) {
  CheckDefined(v, "tir.Cast");
  if (v.dtype() == t) return v;
  if (t.lanes != v.dtype().lanes) {
    if (t.lanes == 1) t = WithLanes(t, v.dtype().lanes);
    else TVM_FFI_THROW(TypeError) << "Cast cannot change the number of lanes";
  }
  ObjectPtr<CastNode> n = make_object<CastNode>();
  n->dtype = t;
  n->value = std::move(v);
  return PrimExpr(n);
}

PrimExpr MakeCall(DataType t, const std::string& op, Array<PrimExpr> args) {
  ObjectPtr<CallNode> n = make_object<CallNode>();
  n->dtype = t;
  n->op = String(op);
  n->args = std::move(args);
  return PrimExpr(n);
}

PrimExpr MakeBufferLoad(Buffer b, Array<PrimExpr> indices) {
  if (!b.defined()) TVM_FFI_THROW(ValueError) << "BufferLoad of None buffer";
  if (indices.size() != b->shape.size()) {
    TVM_FFI_THROW(ValueError) << "buffer " << std::string(b->name) << " has " << b->shape.size()
                              << " dimensions but is indexed with " << indices.size();
  }
  int lanes = 1;
  for (const PrimExpr& i : indices) {
    CheckDefined(i, "BufferLoad index");
    if (!IsIntOrUInt(i.dtype())) TVM_FFI_THROW(TypeError) << "buffer indices must be integers";
    lanes = std::max<int>(lanes, i.dtype().lanes);
  }
  ObjectPtr<BufferLoadNode> n = make_object<BufferLoadNode>();
  n->dtype = WithLanes(b->dtype, lanes);
  n->buffer = std::move(b);
  n->indices = std::move(indices);
  return PrimExpr(n);
}

PrimExpr MakeRamp(PrimExpr base, PrimExpr stride, int64_t lanes) {
  CheckDefined(base, "Ramp");
  CheckDefined(stride, "Ramp");
  ObjectPtr<RampNode> n = make_object<RampNode>();
  n->dtype = WithLanes(base.dtype(), static_cast<int>(lanes));
  n->base = std::move(base);
  n->stride = std::move(stride);
  n->lanes = lanes;
  return PrimExpr(n);
}

PrimExpr MakeBroadcast(PrimExpr value, int64_t lanes) {
  CheckDefined(value, "Broadcast");
  ObjectPtr<BroadcastNode> n = make_object<BroadcastNode>();
  n->dtype = WithLanes(value.dtype(), static_cast<int>(lanes));
  n->value = std::move(value);
  n->lanes = lanes;
  return PrimExpr(n);
}

Buffer MakeBuffer(Var data, DataType dtype, Array<PrimExpr> shape, Array<PrimExpr> strides,
                  std::string name, std::string scope) {
  if (scope != "global" && scope != "local" && scope != "shared") {
    TVM_FFI_THROW(ValueError) << "buffer " << name << ": unknown storage scope '" << scope
                              << "' (expected global, local or shared)";
  }
  ObjectPtr<BufferNode> n = make_object<BufferNode>();
  if (!data.defined()) data = Var(name, Handle());
  n->data = std::move(data);
  n->dtype = dtype;
  for (const PrimExpr& s : shape) {
    CheckDefined(s, "buffer shape");
    if (!IsIntOrUInt(s.dtype())) TVM_FFI_THROW(TypeError) << "buffer shape must be integers";
  }
  n->shape = std::move(shape);
  n->strides = std::move(strides);
  n->name = String(name);
  n->scope = String(scope);
  return Buffer(n);
}

Buffer MakeBufferLike(const Buffer& b, std::string name, Array<PrimExpr> shape, std::string scope) {
  return MakeBuffer(Var(name, Handle()), b->dtype, std::move(shape), {}, name, scope);
}

Stmt MakeFor(Var v, PrimExpr min, PrimExpr extent, int64_t kind, Stmt body,
             std::string thread_tag, Map<String, Any> annotations) {
  CheckDefined(min, "For.min");
  CheckDefined(extent, "For.extent");
  if (!body.defined()) TVM_FFI_THROW(ValueError) << "For body is None";
  ObjectPtr<ForNode> n = make_object<ForNode>();
  n->loop_var = std::move(v);
  n->min = std::move(min);
  n->extent = std::move(extent);
  n->kind = kind;
  n->body = std::move(body);
  n->thread_tag = String(thread_tag);
  n->annotations = std::move(annotations);
  return Stmt(n);
}

PrimFunc WithBody(const PrimFunc& f, Stmt body) {
  return MakePrimFunc(f->params, f->buffer_map, std::move(body), f->attrs);
}

PrimExpr MakeStringImm(const std::string& s) {
  ObjectPtr<StringImmNode> n = make_object<StringImmNode>();
  n->dtype = Handle();
  n->value = String(s);
  return PrimExpr(n);
}

Stmt WithBody(const ForNode* loop, Stmt body) {
  return MakeFor(loop->loop_var, loop->min, loop->extent, loop->kind, std::move(body),
                 std::string(loop->thread_tag), loop->annotations);
}

BufferRegion::BufferRegion(Buffer buffer, Array<Range> region) : ObjectRef(ffi::details::UnsafeInit{}) {
  if (region.size() != buffer->shape.size()) {
    TVM_FFI_THROW(ValueError) << "region of " << std::string(buffer->name) << " has " << region.size()
                              << " ranges for " << buffer->shape.size() << " dimensions";
  }
  ObjectPtr<BufferRegionNode> n = make_object<BufferRegionNode>();
  n->buffer = std::move(buffer);
  n->region = std::move(region);
  data_ = std::move(n);
}

IterVar MakeIterVar(Var v, PrimExpr min, PrimExpr extent, int64_t kind) {
  if (kind < 0 || kind > 4) TVM_FFI_THROW(ValueError) << "IterVar kind must be in 0..4, got " << kind;
  ObjectPtr<IterVarNode> n = make_object<IterVarNode>();
  n->var = std::move(v);
  n->min = std::move(min);
  n->extent = std::move(extent);
  n->kind = kind;
  return IterVar(n);
}

Block MakeBlock(Array<IterVar> iter_vars, Array<BufferRegion> reads, Array<BufferRegion> writes,
                std::string name, Stmt body, Stmt init, Array<Buffer> alloc_buffers,
                Map<String, Any> annotations) {
  if (!body.defined()) TVM_FFI_THROW(ValueError) << "block " << name << ": body is None";
  for (const IterVar& iv : iter_vars) {
    if (iv->kind != 0 && iv->kind != 2) {
      TVM_FFI_THROW(ValueError) << "block " << name << ": iter var " << std::string(iv->var->name)
                                << " must be spatial (0) or reduce (2)";
    }
  }
  ObjectPtr<BlockNode> n = make_object<BlockNode>();
  n->iter_vars = std::move(iter_vars);
  n->reads = std::move(reads);
  n->writes = std::move(writes);
  n->name_hint = String(name);
  n->body = std::move(body);
  n->init = std::move(init);
  n->alloc_buffers = std::move(alloc_buffers);
  n->annotations = std::move(annotations);
  return Block(n);
}

BlockRealize MakeBlockRealize(Array<PrimExpr> iter_values, PrimExpr predicate, Block block) {
  if (!block.defined()) TVM_FFI_THROW(ValueError) << "BlockRealize: block is None";
  std::string name(block->name_hint);
  if (iter_values.size() != block->iter_vars.size()) {
    TVM_FFI_THROW(ValueError) << "block " << name << " has " << block->iter_vars.size()
                              << " iter vars but is bound to " << iter_values.size() << " values";
  }
  for (size_t i = 0; i < iter_values.size(); ++i) {
    CheckDefined(iter_values[i], "BlockRealize value");
    if (iter_values[i].dtype() != block->iter_vars[i]->var->dtype) {
      TVM_FFI_THROW(TypeError) << "block " << name << ": binding of "
                               << std::string(block->iter_vars[i]->var->name) << " has dtype "
                               << DTypeToString(iter_values[i].dtype());
    }
  }
  if (!predicate.defined()) predicate = IntImm(Bool(), 1);
  if (!IsBool(predicate.dtype()) || predicate.dtype().lanes != 1) {
    TVM_FFI_THROW(TypeError) << "block " << name << ": predicate must be a scalar bool";
  }
  ObjectPtr<BlockRealizeNode> n = make_object<BlockRealizeNode>();
  n->iter_values = std::move(iter_values);
  n->predicate = std::move(predicate);
  n->block = std::move(block);
  return BlockRealize(n);
}

Stmt MakeBufferStore(Buffer b, PrimExpr value, Array<PrimExpr> indices) {
  CheckDefined(value, "BufferStore value");
  if (indices.size() != b->shape.size()) {
    TVM_FFI_THROW(ValueError) << "buffer " << std::string(b->name) << " has " << b->shape.size()
                              << " dimensions but is stored with " << indices.size();
  }
  if (ElementOf(value.dtype()) != b->dtype) {
    TVM_FFI_THROW(TypeError) << "BufferStore to " << std::string(b->name) << ": value dtype "
                             << DTypeToString(value.dtype()) << " != buffer dtype "
                             << DTypeToString(b->dtype);
  }
  ObjectPtr<BufferStoreNode> n = make_object<BufferStoreNode>();
  n->buffer = std::move(b);
  n->value = std::move(value);
  n->indices = std::move(indices);
  return Stmt(n);
}

Stmt MakeLetStmt(Var v, PrimExpr value, Stmt body) {
  ObjectPtr<LetStmtNode> n = make_object<LetStmtNode>();
  n->var = std::move(v);
  n->value = std::move(value);
  n->body = std::move(body);
  return Stmt(n);
}

Stmt MakeIfThenElse(PrimExpr c, Stmt t, Stmt e) {
  CheckDefined(c, "IfThenElse");
  ObjectPtr<IfThenElseNode> n = make_object<IfThenElseNode>();
  n->condition = std::move(c);
  n->then_case = std::move(t);
  n->else_case = std::move(e);
  return Stmt(n);
}

Stmt MakeSeq(Array<Stmt> seq) {
  if (seq.size() == 1) return seq[0];
  ObjectPtr<SeqStmtNode> n = make_object<SeqStmtNode>();
  n->seq = std::move(seq);
  return Stmt(n);
}

Stmt MakeAllocate(Buffer b, Stmt body) {
  ObjectPtr<AllocateNode> n = make_object<AllocateNode>();
  n->buffer = std::move(b);
  n->body = std::move(body);
  return Stmt(n);
}

Stmt MakeEvaluate(PrimExpr v) {
  ObjectPtr<EvaluateNode> n = make_object<EvaluateNode>();
  n->value = std::move(v);
  return Stmt(n);
}

Stmt MakeAssert(PrimExpr condition, std::string kind, std::string message, Stmt body) {
  CheckDefined(condition, "AssertStmt");
  if (!IsBool(condition.dtype()) || condition.dtype().lanes != 1) {
    TVM_FFI_THROW(TypeError) << "AssertStmt condition must be a scalar bool";
  }
  if (!body.defined()) TVM_FFI_THROW(ValueError) << "AssertStmt body is None";
  ObjectPtr<AssertStmtNode> n = make_object<AssertStmtNode>();
  n->condition = std::move(condition);
  n->kind = String(kind);
  n->message = String(message);
  n->body = std::move(body);
  return Stmt(n);
}

PrimFunc MakePrimFunc(Array<Var> params, Map<Var, Buffer> buffer_map, Stmt body,
                      Map<String, Any> attrs) {
  ObjectPtr<PrimFuncNode> n = make_object<PrimFuncNode>();
  n->params = std::move(params);
  n->buffer_map = std::move(buffer_map);
  n->body = std::move(body);
  n->attrs = std::move(attrs);
  return PrimFunc(n);
}

// ------------------------------------------------------------------------------------------
// Registration
// ------------------------------------------------------------------------------------------

TVM_FFI_STATIC_INIT_BLOCK() {
  Reflect<StringImmNode>().Field("dtype", &StringImmNode::dtype).Field("value", &StringImmNode::value);
  Reflect<VarNode>().Field("dtype", &VarNode::dtype).Field("name", &VarNode::name);
  ir::RegisterVarType(VarNode::RuntimeTypeIndex());  // compared by binding
#define TVM_REFLECT_BIN(Name) \
  Reflect<Name##Node>().Field("dtype", &Name##Node::dtype).Field("a", &Name##Node::a).Field("b", &Name##Node::b);
  TVM_REFLECT_BIN(Add)
  TVM_REFLECT_BIN(Sub)
  TVM_REFLECT_BIN(Mul)
  TVM_REFLECT_BIN(Div)
  TVM_REFLECT_BIN(Mod)
  TVM_REFLECT_BIN(FloorDiv)
  TVM_REFLECT_BIN(FloorMod)
  TVM_REFLECT_BIN(Min)
  TVM_REFLECT_BIN(Max)
  TVM_REFLECT_BIN(EQ)
  TVM_REFLECT_BIN(NE)
  TVM_REFLECT_BIN(LT)
  TVM_REFLECT_BIN(LE)
  TVM_REFLECT_BIN(GT)
  TVM_REFLECT_BIN(GE)
  TVM_REFLECT_BIN(And)
  TVM_REFLECT_BIN(Or)
#undef TVM_REFLECT_BIN
  Reflect<NotNode>().Field("dtype", &NotNode::dtype).Field("a", &NotNode::a);
  Reflect<SelectNode>()
      .Field("dtype", &SelectNode::dtype)
      .Field("condition", &SelectNode::condition)
      .Field("true_value", &SelectNode::true_value)
      .Field("false_value", &SelectNode::false_value);
  Reflect<CastNode>().Field("dtype", &CastNode::dtype).Field("value", &CastNode::value);
  Reflect<CallNode>().Field("dtype", &CallNode::dtype).Field("op", &CallNode::op).Field("args", &CallNode::args);
  Reflect<RampNode>()
      .Field("dtype", &RampNode::dtype)
      .Field("base", &RampNode::base)
      .Field("stride", &RampNode::stride)
      .Field("lanes", &RampNode::lanes);
  Reflect<BroadcastNode>()
      .Field("dtype", &BroadcastNode::dtype)
      .Field("value", &BroadcastNode::value)
      .Field("lanes", &BroadcastNode::lanes);
  Reflect<LetNode>()
      .Field("dtype", &LetNode::dtype)
      .Field("var", &LetNode::var, true)
      .Field("value", &LetNode::value)
      .Field("body", &LetNode::body);
  Reflect<BufferNode>()
      .Field("data", &BufferNode::data, true)
      .Field("dtype", &BufferNode::dtype)
      .Field("shape", &BufferNode::shape)
      .Field("strides", &BufferNode::strides)
      .Field("name", &BufferNode::name)
      .Field("scope", &BufferNode::scope);
  Reflect<BufferLoadNode>()
      .Field("dtype", &BufferLoadNode::dtype)
      .Field("buffer", &BufferLoadNode::buffer)
      .Field("indices", &BufferLoadNode::indices);
  Reflect<ForNode>()
      .Field("loop_var", &ForNode::loop_var, true)
      .Field("min", &ForNode::min)
      .Field("extent", &ForNode::extent)
      .Field("kind", &ForNode::kind)
      .Field("body", &ForNode::body)
      .Field("thread_tag", &ForNode::thread_tag)
      .Field("annotations", &ForNode::annotations);
  Reflect<BufferRegionNode>()
      .Field("buffer", &BufferRegionNode::buffer)
      .Field("region", &BufferRegionNode::region);
  // Definitions first (iter vars, allocated buffers), so structural equality binds them
  // before their uses.
  Reflect<BlockNode>()
      .Field("iter_vars", &BlockNode::iter_vars)
      .Field("alloc_buffers", &BlockNode::alloc_buffers)
      .Field("reads", &BlockNode::reads)
      .Field("writes", &BlockNode::writes)
      .Field("name_hint", &BlockNode::name_hint)
      .Field("init", &BlockNode::init)
      .Field("body", &BlockNode::body)
      .Field("annotations", &BlockNode::annotations);
  Reflect<BlockRealizeNode>()
      .Field("iter_values", &BlockRealizeNode::iter_values)
      .Field("predicate", &BlockRealizeNode::predicate)
      .Field("block", &BlockRealizeNode::block);
  Reflect<BufferStoreNode>()
      .Field("buffer", &BufferStoreNode::buffer)
      .Field("value", &BufferStoreNode::value)
      .Field("indices", &BufferStoreNode::indices);
  Reflect<LetStmtNode>()
      .Field("var", &LetStmtNode::var, true)
      .Field("value", &LetStmtNode::value)
      .Field("body", &LetStmtNode::body);
  Reflect<IfThenElseNode>()
      .Field("condition", &IfThenElseNode::condition)
      .Field("then_case", &IfThenElseNode::then_case)
      .Field("else_case", &IfThenElseNode::else_case);
  Reflect<SeqStmtNode>().Field("seq", &SeqStmtNode::seq);
  Reflect<AllocateNode>().Field("buffer", &AllocateNode::buffer).Field("body", &AllocateNode::body);
  Reflect<EvaluateNode>().Field("value", &EvaluateNode::value);
  Reflect<AssertStmtNode>()
      .Field("condition", &AssertStmtNode::condition)
      .Field("kind", &AssertStmtNode::kind)
      .Field("message", &AssertStmtNode::message)
      .Field("body", &AssertStmtNode::body);
  Reflect<PrimFuncNode>()
      .Field("params", &PrimFuncNode::params, true)
      .Field("buffer_map", &PrimFuncNode::buffer_map)
      .Field("body", &PrimFuncNode::body)
      .Field("attrs", &PrimFuncNode::attrs);
  Reflect<IterVarNode>()
      .Field("var", &IterVarNode::var, true)
      .Field("min", &IterVarNode::min)
      .Field("extent", &IterVarNode::extent)
      .Field("kind", &IterVarNode::kind);
  Reflect<ReduceNode>()
      .Field("dtype", &ReduceNode::dtype)
      .Field("combiner", &ReduceNode::combiner)
      .Field("axis", &ReduceNode::axis)
      .Field("source", &ReduceNode::source)
      .Field("condition", &ReduceNode::condition);
  Reflect<TETensorNode>()
      .Field("buffer", &TETensorNode::buffer)
      .Field("axis", &TETensorNode::axis)
      .Field("body", &TETensorNode::body)
      .Field("inputs", &TETensorNode::inputs);

  // ---- constructors for Python ----
  RegisterCompilerGlobal("tir.Var", [](std::string name, DataType t) { return Var(name, t); });
  RegisterCompilerGlobal("tir.StringImm", [](std::string v) { return MakeStringImm(v); });
  RegisterCompilerGlobal("tir.Binary", [](std::string key, PrimExpr a, PrimExpr b) {
    return MakeBinary(key, a, b);
  });
  RegisterCompilerGlobal("tir.Not", [](PrimExpr a) { return MakeNot(a); });
  RegisterCompilerGlobal("tir.Select", [](PrimExpr c, PrimExpr t, PrimExpr f) {
    return MakeSelect(c, t, f);
  });
  RegisterCompilerGlobal("tir.Cast", [](DataType t, PrimExpr v) { return MakeCast(t, v); });
  RegisterCompilerGlobal("tir.Call", [](DataType t, std::string op, Array<PrimExpr> args) {
    return MakeCall(t, op, args);
  });
  RegisterCompilerGlobal("tir.Ramp", [](PrimExpr b, PrimExpr s, int64_t l) { return MakeRamp(b, s, l); });
  RegisterCompilerGlobal("tir.Broadcast", [](PrimExpr v, int64_t l) { return MakeBroadcast(v, l); });
  RegisterCompilerGlobal("tir.Let", [](Var v, PrimExpr value, PrimExpr body) {
    ObjectPtr<LetNode> n = make_object<LetNode>();
    n->dtype = body.dtype();
    n->var = v;
    n->value = value;
    n->body = body;
    return PrimExpr(n);
  });
  RegisterCompilerGlobal("tir.Buffer", [](Var data, DataType t, Array<PrimExpr> shape,
                                          Array<PrimExpr> strides, std::string name,
                                          std::string scope) {
    return MakeBuffer(data, t, shape, strides, name, scope);
  });
  RegisterCompilerGlobal("tir.BufferRegion", [](Buffer b, Array<Range> region) {
    return BufferRegion(b, region);
  });
  RegisterCompilerGlobal("tir.Block", [](Array<IterVar> iter_vars, Array<BufferRegion> reads,
                                         Array<BufferRegion> writes, std::string name, Stmt body,
                                         ffi::Optional<Stmt> init, Array<Buffer> alloc_buffers,
                                         Map<String, Any> annotations) {
    return MakeBlock(iter_vars, reads, writes, name, body, init.value_or(Stmt()), alloc_buffers,
                     annotations);
  });
  RegisterCompilerGlobal("tir.BlockRealize", [](Array<PrimExpr> values, PrimExpr predicate, Block b) {
    return MakeBlockRealize(values, predicate, b);
  });
  RegisterCompilerGlobal("tir.BufferLoad", [](Buffer b, Array<PrimExpr> idx) {
    return MakeBufferLoad(b, idx);
  });
  RegisterCompilerGlobal("tir.For", [](Var v, PrimExpr min, PrimExpr ext, int64_t kind, Stmt body,
                                       std::string tag, ffi::Optional<Map<String, Any>> annotations) {
    return MakeFor(v, min, ext, kind, body, tag, annotations.value_or(Map<String, Any>()));
  });
  RegisterCompilerGlobal("tir.BufferStore", [](Buffer b, PrimExpr v, Array<PrimExpr> idx) {
    return MakeBufferStore(b, v, idx);
  });
  RegisterCompilerGlobal("tir.LetStmt", [](Var v, PrimExpr value, Stmt body) {
    return MakeLetStmt(v, value, body);
  });
  RegisterCompilerGlobal("tir.IfThenElse", [](PrimExpr c, Stmt t, Stmt e) {
    return MakeIfThenElse(c, t, e);
  });
  RegisterCompilerGlobal("tir.SeqStmt", [](Array<Stmt> seq) {
    ObjectPtr<SeqStmtNode> n = make_object<SeqStmtNode>();
    n->seq = seq;
    return Stmt(n);
  });
  RegisterCompilerGlobal("tir.Allocate", [](Buffer b, Stmt body) { return MakeAllocate(b, body); });
  RegisterCompilerGlobal("tir.Evaluate", [](PrimExpr v) { return MakeEvaluate(v); });
  RegisterCompilerGlobal("tir.AssertStmt", [](PrimExpr c, std::string kind, std::string msg, Stmt body) {
    return MakeAssert(c, kind, msg, body);
  });
  RegisterCompilerGlobal("tir.PrimFunc", [](Array<Var> params, Map<Var, Buffer> bmap, Stmt body,
                                            Map<String, Any> attrs) {
    return MakePrimFunc(params, bmap, body, attrs);
  });
  RegisterCompilerGlobal("tir.PrimFuncWithAttr", [](PrimFunc f, std::string key, Any value) {
    Map<String, Any> attrs = f->attrs;
    attrs.Set(String(key), value);
    return MakePrimFunc(f->params, f->buffer_map, f->body, attrs);
  });
  RegisterCompilerGlobal("tir.IterVar", [](Var v, PrimExpr min, PrimExpr ext, int64_t kind) {
    return MakeIterVar(v, min, ext, kind);
  });
  RegisterCompilerGlobal("tir.Reduce", [](std::string combiner, PrimExpr source,
                                          Array<IterVar> axis, PrimExpr condition) {
    if (combiner != "sum" && combiner != "max" && combiner != "min" && combiner != "prod") {
      TVM_FFI_THROW(ValueError) << "unknown reduction combiner " << combiner;
    }
    if (!IsBool(condition.dtype()) || condition.dtype().lanes != 1) {
      TVM_FFI_THROW(TypeError) << "reduction where= must be a scalar bool expression";
    }
    ObjectPtr<ReduceNode> n = make_object<ReduceNode>();
    n->dtype = source.dtype();
    n->combiner = String(combiner);
    n->source = source;
    n->axis = axis;
    n->condition = condition;
    return PrimExpr(n);
  });
  RegisterCompilerGlobal("te.Tensor", [](Buffer buffer, Array<IterVar> axis, PrimExpr body,
                                         Array<ObjectRef> inputs) {
    ObjectPtr<TETensorNode> n = make_object<TETensorNode>();
    n->buffer = buffer;
    n->axis = axis;
    n->body = body;
    n->inputs = inputs;
    return TETensor(n);
  });
}

}  // namespace tvm
