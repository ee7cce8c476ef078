/*
 * Relax nodes: constructors, reflection, normalization (struct info of each expression
 * kind; calls through the op registry) and the relax.* globals Python builds them with.
 */
#include <tvm/arith/analyzer.h>
#include <tvm/ffi/error.h>
#include <tvm/ir/reflection.h>
#include <tvm/relax/expr.h>
#include <tvm/relax/op.h>

#include <algorithm>
#include <map>
#include <mutex>

#include "../../support/registry.h"

namespace tvm {
namespace relax {

// ---------------------------------------------------------------- struct info

StructInfo ObjectSInfo() { return StructInfo(make_object<ObjectStructInfoNode>()); }

StructInfo PrimSInfo(DataType dtype, PrimExpr value) {
  ObjectPtr<PrimStructInfoNode> n = make_object<PrimStructInfoNode>();
  n->dtype = dtype;
  n->value = std::move(value);
  return StructInfo(n);
}

StructInfo ShapeSInfo(Array<PrimExpr> values) {
  ObjectPtr<ShapeStructInfoNode> n = make_object<ShapeStructInfoNode>();
  n->ndim = static_cast<int64_t>(values.size());
  n->values = std::move(values);
  n->known = true;
  return StructInfo(n);
}

StructInfo ShapeSInfoUnknown(int64_t ndim) {
  ObjectPtr<ShapeStructInfoNode> n = make_object<ShapeStructInfoNode>();
  n->ndim = ndim;
  return StructInfo(n);
}

StructInfo TensorSInfo(Array<PrimExpr> shape, DataType dtype) {
  ObjectPtr<TensorStructInfoNode> n = make_object<TensorStructInfoNode>();
  n->ndim = static_cast<int64_t>(shape.size());
  for (const PrimExpr& d : shape) {
    if (!IsIntOrUInt(d.dtype())) TVM_FFI_THROW(TypeError) << "tensor dimensions must be integers";
    n->shape.push_back(d.dtype().bits == 64 ? d : MakeCast(Int(64), d));
  }
  n->shape_known = true;
  n->dtype = dtype;
  return StructInfo(n);
}

StructInfo TensorSInfoUnknown(DataType dtype, int64_t ndim) {
  ObjectPtr<TensorStructInfoNode> n = make_object<TensorStructInfoNode>();
  n->dtype = dtype;
  n->ndim = ndim;
  return StructInfo(n);
}

StructInfo TupleSInfo(Array<StructInfo> fields) {
  ObjectPtr<TupleStructInfoNode> n = make_object<TupleStructInfoNode>();
  n->fields = std::move(fields);
  return StructInfo(n);
}

// ---------------------------------------------------------------- op registry

namespace {
std::map<std::string, OpInfo>& OpTable() {
  static auto* table = new std::map<std::string, OpInfo>();
  return *table;
}
std::map<std::string, Expr>& OpObjects() {
  static auto* objs = new std::map<std::string, Expr>();
  return *objs;
}
std::mutex& OpMutex() {
  static auto* m = new std::mutex();
  return *m;
}
}  // namespace

void RegisterOp(OpInfo info) {
  std::lock_guard<std::mutex> lock(OpMutex());
  if (!OpTable().emplace(info.name, info).second) {
    std::fprintf(stderr, "tvm_compiler: relax operator %s registered twice\n", info.name.c_str());
    std::abort();
  }
}

const OpInfo* FindOp(const std::string& name) {
  std::lock_guard<std::mutex> lock(OpMutex());
  auto it = OpTable().find(name);
  return it == OpTable().end() ? nullptr : &it->second;
}

std::vector<std::string> ListOps() {
  std::lock_guard<std::mutex> lock(OpMutex());
  std::vector<std::string> out;
  for (const auto& kv : OpTable()) out.push_back(kv.first);
  return out;
}

Expr GetOp(const std::string& name) {
  if (FindOp(name) == nullptr) TVM_FFI_THROW(ValueError) << "no relax operator named " << name;
  std::lock_guard<std::mutex> lock(OpMutex());
  auto it = OpObjects().find(name);
  if (it != OpObjects().end()) return it->second;
  ObjectPtr<OpNode> n = make_object<OpNode>();
  n->name = String(name);
  n->struct_info = ObjectSInfo();
  Expr op(n);
  OpObjects().emplace(name, op);
  return op;
}

std::string OpName(const CallNode* call) {
  if (auto* op = call->op.as<OpNode>()) return std::string(op->name);
  if (auto* g = call->op.as<GlobalVarNode>()) return std::string(g->name_hint);
  if (auto* e = call->op.as<ExternFuncNode>()) return std::string(e->global_symbol);
  return "<call>";
}

const TensorStructInfoNode* TensorArg(const CallNode* call, size_t i) {
  if (i >= call->args.size()) {
    TVM_FFI_THROW(ValueError) << OpName(call) << " expects at least " << i + 1 << " arguments, got "
                              << call->args.size();
  }
  StructInfo s = GetStructInfo(call->args[i]);
  auto* t = s.as<TensorStructInfoNode>();
  if (t == nullptr) {
    TVM_FFI_THROW(TypeError) << OpName(call) << ": argument " << i << " must be a tensor, got "
                             << s->GetTypeKey();
  }
  return t;
}

PrimExpr I64(int64_t v) { return IntImm(Int(64), v); }

int ProveEqual(const PrimExpr& a, const PrimExpr& b) {
  PrimExpr d = arith::Simplify(MakeBinary("tir.Sub", MakeCast(Int(64), a), MakeCast(Int(64), b)), {});
  if (const int64_t* c = AsConstInt(d)) return *c == 0 ? 1 : 0;
  return -1;
}

Array<PrimExpr> BroadcastShapes(const Array<PrimExpr>& a, const Array<PrimExpr>& b, const std::string& op) {
  size_t n = std::max(a.size(), b.size());
  std::vector<PrimExpr> out(n);
  for (size_t k = 0; k < n; ++k) {
    bool ha = k < a.size(), hb = k < b.size();
    PrimExpr x = ha ? a[a.size() - 1 - k] : PrimExpr(), y = hb ? b[b.size() - 1 - k] : PrimExpr();
    PrimExpr r;
    if (!ha) {
      r = y;
    } else if (!hb) {
      r = x;
    } else {
      const int64_t* cx = AsConstInt(x);
      const int64_t* cy = AsConstInt(y);
      if (cx && *cx == 1) {
        r = y;
      } else if (cy && *cy == 1) {
        r = x;
      } else {
        int eq = ProveEqual(x, y);
        if (eq == 0) {
          TVM_FFI_THROW(ValueError) << op << ": shapes cannot broadcast (dimension " << k
                                    << " from the end differs)";
        }
        r = x;  // equal, or assumed equal (symbolic): checked at run time by the kernel
      }
    }
    out[n - 1 - k] = r;
  }
  return Array<PrimExpr>(out.begin(), out.end());
}

int64_t NormalizeAxis(int64_t axis, int64_t ndim, const std::string& op) {
  if (axis < -ndim || axis >= ndim) {
    TVM_FFI_THROW(ValueError) << op << ": axis " << axis << " is out of range for a " << ndim << "-d tensor";
  }
  return axis < 0 ? axis + ndim : axis;
}

// ---------------------------------------------------------------- normalization

StructInfo GetStructInfo(const Expr& e) {
  if (!e.defined()) TVM_FFI_THROW(ValueError) << "relax: undefined expression";
  if (!e->struct_info.defined()) Normalize(e);
  return e->struct_info;
}

namespace {

void SetSInfo(const Expr& e, StructInfo s) { const_cast<ExprNode*>(e.get())->struct_info = std::move(s); }

StructInfo InferCall(const CallNode* call) {
  for (const Expr& a : call->args) GetStructInfo(a);
  if (auto* op = call->op.as<OpNode>()) {
    const OpInfo* info = FindOp(std::string(op->name));
    if (info == nullptr) TVM_FFI_THROW(ValueError) << "no relax operator named " << std::string(op->name);
    if (info->num_inputs >= 0 && static_cast<int>(call->args.size()) != info->num_inputs) {
      TVM_FFI_THROW(ValueError) << info->name << " expects " << info->num_inputs << " arguments, got "
                                << call->args.size();
    }
    return info->infer(call);
  }
  if (!call->sinfo_args.empty()) return call->sinfo_args.size() == 1 ? call->sinfo_args[0] : TupleSInfo(call->sinfo_args);
  if (call->op.as<VarNode>() || call->op.as<GlobalVarNode>()) {
    StructInfo f = call->op->struct_info;
    if (auto* fs = f.as<FuncStructInfoNode>(); fs && fs->ret.defined()) return fs->ret;
  }
  return ObjectSInfo();
}

}  // namespace

Expr Normalize(const Expr& e) {
  if (!e.defined()) TVM_FFI_THROW(ValueError) << "relax: undefined expression";
  if (e->struct_info.defined()) return e;
  if (auto* n = e.as<CallNode>()) {
    SetSInfo(e, InferCall(n));
  } else if (auto* n = e.as<TupleNode>()) {
    Array<StructInfo> fields;
    for (const Expr& f : n->fields) fields.push_back(GetStructInfo(f));
    SetSInfo(e, TupleSInfo(fields));
  } else if (auto* n = e.as<TupleGetItemNode>()) {
    StructInfo t = GetStructInfo(n->tuple_value);
    auto* ts = t.as<TupleStructInfoNode>();
    if (ts == nullptr) TVM_FFI_THROW(TypeError) << "TupleGetItem of a non-tuple (" << t->GetTypeKey() << ")";
    if (n->index < 0 || n->index >= static_cast<int64_t>(ts->fields.size())) {
      TVM_FFI_THROW(IndexError) << "TupleGetItem index " << n->index << " out of range for a tuple of "
                                << ts->fields.size();
    }
    SetSInfo(e, ts->fields[n->index]);
  } else if (auto* n = e.as<ConstantNode>()) {
    if (!n->data.defined()) TVM_FFI_THROW(ValueError) << "relax.Constant without data";
    Array<PrimExpr> shape;
    for (int32_t k = 0; k < n->data.ndim(); ++k) shape.push_back(I64(n->data.shape()[k]));
    SetSInfo(e, TensorSInfo(shape, n->data.dtype()));
  } else if (auto* n = e.as<ShapeExprNode>()) {
    Array<PrimExpr> values;
    for (const PrimExpr& v : n->values) values.push_back(v.dtype().bits == 64 ? v : MakeCast(Int(64), v));
    SetSInfo(e, ShapeSInfo(values));
  } else if (auto* n = e.as<PrimValueNode>()) {
    SetSInfo(e, PrimSInfo(n->value.dtype(), n->value));
  } else if (e.as<StringImmNode>() || e.as<DataTypeImmNode>() || e.as<ExternFuncNode>() || e.as<OpNode>()) {
    SetSInfo(e, ObjectSInfo());
  } else if (auto* n = e.as<SeqExprNode>()) {
    SetSInfo(e, GetStructInfo(n->body));
  } else if (auto* n = e.as<FunctionNode>()) {
    ObjectPtr<FuncStructInfoNode> f = make_object<FuncStructInfoNode>();
    for (const Var& p : n->params) f->params.push_back(GetStructInfo(p));
    f->ret = n->ret_struct_info.defined() ? n->ret_struct_info : GetStructInfo(n->body);
    SetSInfo(e, StructInfo(f));
  } else if (auto* n = e.as<VarNode>()) {
    TVM_FFI_THROW(ValueError) << "relax: variable " << std::string(n->name_hint) << " has no struct info";
  } else if (e.as<GlobalVarNode>()) {
    SetSInfo(e, ObjectSInfo());
  } else {
    TVM_FFI_THROW(ValueError) << "relax: cannot normalize " << e->GetTypeKey();
  }
  return e;
}

// ---------------------------------------------------------------- registration

namespace {

template <typename T>
ObjectPtr<T> NewExpr() {
  return make_object<T>();
}

TVM_FFI_STATIC_INIT_BLOCK() {
  using ir::Reflect;
  Reflect<PrimStructInfoNode>().Field("dtype", &PrimStructInfoNode::dtype).Field("value", &PrimStructInfoNode::value);
  Reflect<ShapeStructInfoNode>()
      .Field("values", &ShapeStructInfoNode::values)
      .Field("known", &ShapeStructInfoNode::known)
      .Field("ndim", &ShapeStructInfoNode::ndim);
  Reflect<TensorStructInfoNode>()
      .Field("dtype", &TensorStructInfoNode::dtype)
      .Field("ndim", &TensorStructInfoNode::ndim)
      .Field("shape", &TensorStructInfoNode::shape)
      .Field("shape_known", &TensorStructInfoNode::shape_known);
  Reflect<TupleStructInfoNode>().Field("fields", &TupleStructInfoNode::fields);
  Reflect<FuncStructInfoNode>().Field("params", &FuncStructInfoNode::params).Field("ret", &FuncStructInfoNode::ret);
  // ObjectStructInfo has no fields; registering its creator keeps JSON loading working.
  Reflect<VarNode>().Field("name_hint", &VarNode::name_hint).Field("struct_info", &VarNode::struct_info);
  Reflect<DataflowVarNode>().Field("name_hint", &DataflowVarNode::name_hint).Field("struct_info", &DataflowVarNode::struct_info);
  Reflect<ConstantNode>().Field("data", &ConstantNode::data);
  Reflect<TupleNode>().Field("fields", &TupleNode::fields);
  Reflect<TupleGetItemNode>().Field("tuple_value", &TupleGetItemNode::tuple_value).Field("index", &TupleGetItemNode::index);
  Reflect<ShapeExprNode>().Field("values", &ShapeExprNode::values);
  Reflect<PrimValueNode>().Field("value", &PrimValueNode::value);
  Reflect<StringImmNode>().Field("value", &StringImmNode::value);
  Reflect<DataTypeImmNode>().Field("value", &DataTypeImmNode::value);
  Reflect<OpNode>().Field("name", &OpNode::name);
  Reflect<GlobalVarNode>().Field("name_hint", &GlobalVarNode::name_hint);
  Reflect<ExternFuncNode>().Field("global_symbol", &ExternFuncNode::global_symbol);
  Reflect<CallNode>()
      .Field("op", &CallNode::op)
      .Field("args", &CallNode::args)
      .Field("attrs", &CallNode::attrs)
      .Field("sinfo_args", &CallNode::sinfo_args);
  Reflect<VarBindingNode>().Field("var", &VarBindingNode::var, /*defines=*/true).Field("value", &VarBindingNode::value);
  Reflect<MatchCastNode>()
      .Field("var", &MatchCastNode::var, /*defines=*/true)
      .Field("value", &MatchCastNode::value)
      .Field("struct_info", &MatchCastNode::match_struct_info);
  Reflect<BindingBlockNode>().Field("bindings", &BindingBlockNode::bindings);
  Reflect<DataflowBlockNode>().Field("bindings", &DataflowBlockNode::bindings);
  Reflect<SeqExprNode>().Field("blocks", &SeqExprNode::blocks).Field("body", &SeqExprNode::body);
  Reflect<FunctionNode>()
      .Field("params", &FunctionNode::params, /*defines=*/true)
      .Field("body", &FunctionNode::body)
      .Field("ret_struct_info", &FunctionNode::ret_struct_info)
      .Field("is_pure", &FunctionNode::is_pure)
      .Field("attrs", &FunctionNode::attrs);

  // ---- constructors (Python: tvm.relax) ----
  RegisterCompilerGlobal("relax.ObjectStructInfo", []() { return ObjectSInfo(); });
  RegisterCompilerGlobal("relax.PrimStructInfo", [](DataType t, ffi::Optional<PrimExpr> v) {
    return PrimSInfo(t, v.has_value() ? *v : PrimExpr());
  });
  RegisterCompilerGlobal("relax.ShapeStructInfo", [](ffi::Optional<Array<PrimExpr>> values, int64_t ndim) {
    if (values.has_value()) return ShapeSInfo(*values);
    return ShapeSInfoUnknown(ndim);
  });
  RegisterCompilerGlobal("relax.TensorStructInfo", [](ffi::Optional<Array<PrimExpr>> shape, DataType dtype, int64_t ndim) {
    if (shape.has_value()) {
      if (ndim != -1 && ndim != static_cast<int64_t>(shape->size())) {
        TVM_FFI_THROW(ValueError) << "TensorStructInfo: ndim " << ndim << " does not match the shape's "
                                  << shape->size() << " dimensions";
      }
      return TensorSInfo(*shape, dtype);
    }
    return TensorSInfoUnknown(dtype, ndim);
  });
  RegisterCompilerGlobal("relax.TupleStructInfo", [](Array<StructInfo> fields) { return TupleSInfo(fields); });
  RegisterCompilerGlobal("relax.FuncStructInfo", [](Array<StructInfo> params, StructInfo ret) {
    ObjectPtr<FuncStructInfoNode> n = make_object<FuncStructInfoNode>();
    n->params = params;
    n->ret = ret;
    return StructInfo(n);
  });
  RegisterCompilerGlobal("relax.Var", [](std::string name, StructInfo s, bool dataflow) {
    if (!s.defined()) TVM_FFI_THROW(ValueError) << "relax.Var " << name << " needs a struct info";
    Expr v = dataflow ? Expr(NewExpr<DataflowVarNode>()) : Expr(NewExpr<VarNode>());
    auto* n = const_cast<VarNode*>(static_cast<const VarNode*>(v.get()));
    n->name_hint = String(name);
    n->struct_info = s;
    return v;
  });
  RegisterCompilerGlobal("relax.Constant", [](ffi::Tensor data) {
    ObjectPtr<ConstantNode> n = NewExpr<ConstantNode>();
    n->data = data;
    return Normalize(Expr(n));
  });
  RegisterCompilerGlobal("relax.Tuple", [](Array<Expr> fields) {
    ObjectPtr<TupleNode> n = NewExpr<TupleNode>();
    n->fields = fields;
    return Expr(n);
  });
  RegisterCompilerGlobal("relax.TupleGetItem", [](Expr t, int64_t i) {
    ObjectPtr<TupleGetItemNode> n = NewExpr<TupleGetItemNode>();
    n->tuple_value = t;
    n->index = i;
    return Expr(n);
  });
  RegisterCompilerGlobal("relax.ShapeExpr", [](Array<PrimExpr> values) {
    ObjectPtr<ShapeExprNode> n = NewExpr<ShapeExprNode>();
    for (const PrimExpr& v : values) {
      if (!IsIntOrUInt(v.dtype())) TVM_FFI_THROW(TypeError) << "ShapeExpr values must be integers";
      n->values.push_back(v.dtype().bits == 64 ? v : MakeCast(Int(64), v));
    }
    return Expr(n);
  });
  RegisterCompilerGlobal("relax.PrimValue", [](PrimExpr v) {
    ObjectPtr<PrimValueNode> n = NewExpr<PrimValueNode>();
    n->value = v;
    return Expr(n);
  });
  RegisterCompilerGlobal("relax.StringImm", [](std::string v) {
    ObjectPtr<StringImmNode> n = NewExpr<StringImmNode>();
    n->value = String(v);
    return Expr(n);
  });
  RegisterCompilerGlobal("relax.DataTypeImm", [](DataType v) {
    ObjectPtr<DataTypeImmNode> n = NewExpr<DataTypeImmNode>();
    n->value = v;
    return Expr(n);
  });
  RegisterCompilerGlobal("relax.GlobalVar", [](std::string name) {
    ObjectPtr<GlobalVarNode> n = NewExpr<GlobalVarNode>();
    n->name_hint = String(name);
    return Expr(n);
  });
  RegisterCompilerGlobal("relax.ExternFunc", [](std::string name) {
    ObjectPtr<ExternFuncNode> n = NewExpr<ExternFuncNode>();
    n->global_symbol = String(name);
    return Expr(n);
  });
  RegisterCompilerGlobal("relax.Op", [](std::string name) { return GetOp(name); });
  RegisterCompilerGlobal("relax.ListOps", []() {
    Array<String> out;
    for (const std::string& s : ListOps()) out.push_back(String(s));
    return out;
  });
  RegisterCompilerGlobal("relax.OpPattern", [](std::string name) {
    const OpInfo* info = FindOp(name);
    if (info == nullptr) TVM_FFI_THROW(ValueError) << "no relax operator named " << name;
    return static_cast<int64_t>(info->pattern);
  });
  RegisterCompilerGlobal("relax.Call", [](Expr op, Array<Expr> args, Map<String, Any> attrs, Array<StructInfo> sinfo_args) {
    ObjectPtr<CallNode> n = NewExpr<CallNode>();
    n->op = op;
    n->args = args;
    n->attrs = attrs;
    n->sinfo_args = sinfo_args;
    return Expr(n);
  });
  RegisterCompilerGlobal("relax.VarBinding", [](Var v, Expr value) {
    ObjectPtr<VarBindingNode> n = make_object<VarBindingNode>();
    n->var = v;
    n->value = value;
    return Binding(n);
  });
  RegisterCompilerGlobal("relax.MatchCast", [](Var v, Expr value, StructInfo s) {
    ObjectPtr<MatchCastNode> n = make_object<MatchCastNode>();
    n->var = v;
    n->value = value;
    n->match_struct_info = s;
    return Binding(n);
  });
  RegisterCompilerGlobal("relax.BindingBlock", [](Array<Binding> bindings, bool dataflow) {
    if (dataflow) {
      ObjectPtr<DataflowBlockNode> n = make_object<DataflowBlockNode>();
      n->bindings = bindings;
      return BindingBlock(n);
    }
    ObjectPtr<BindingBlockNode> n = make_object<BindingBlockNode>();
    n->bindings = bindings;
    return BindingBlock(n);
  });
  RegisterCompilerGlobal("relax.SeqExpr", [](Array<BindingBlock> blocks, Expr body) {
    ObjectPtr<SeqExprNode> n = NewExpr<SeqExprNode>();
    n->blocks = blocks;
    n->body = body;
    return Expr(n);
  });
  RegisterCompilerGlobal("relax.Function", [](Array<Var> params, Expr body, ffi::Optional<StructInfo> ret,
                                              bool is_pure, Map<String, Any> attrs) {
    ObjectPtr<FunctionNode> n = NewExpr<FunctionNode>();
    n->params = params;
    n->body = body;
    n->ret_struct_info = ret.has_value() ? *ret : GetStructInfo(body);
    n->is_pure = is_pure;
    n->attrs = attrs;
    return Normalize(Expr(n));
  });
  RegisterCompilerGlobal("relax.FunctionWithAttr", [](Expr f, std::string key, Any value) {
    auto* fn = f.as<FunctionNode>();
    if (fn == nullptr) TVM_FFI_THROW(TypeError) << "with_attr expects a relax.Function";
    ObjectPtr<FunctionNode> n = NewExpr<FunctionNode>();
    n->params = fn->params;
    n->body = fn->body;
    n->ret_struct_info = fn->ret_struct_info;
    n->is_pure = fn->is_pure;
    n->attrs = fn->attrs;
    n->attrs.Set(String(key), value);
    return Normalize(Expr(n));
  });
  RegisterCompilerGlobal("relax.Normalize", [](Expr e) { return Normalize(e); });
  RegisterCompilerGlobal("relax.GetStructInfo", [](Expr e) { return GetStructInfo(e); });
}

}  // namespace
}  // namespace relax
}  // namespace tvm
