/*
 * TVMScript-like text of Relax functions and expressions (part of "ir.AsText"):
 *
 *   @R.function
 *   def main(x: R.Tensor((n, 784), "float32")) -> R.Tensor((n, 10), "float32"):
 *       with R.dataflow():
 *           lv: R.Tensor((n, 512), "float32") = R.matmul(x, w)
 *           R.output(lv)
 *       return lv
 *
 * Constants print as metadata references (R.const shape/dtype), PrimExprs through the TIR
 * printer. For reading and test failures; there is no parser. Registered with the printer
 * dispatch (tvm/ir/printer.h) for Relax's base node types.
 */
#include <tvm/ffi/error.h>
#include <tvm/ffi/function.h>
#include <tvm/ir/printer.h>
#include <tvm/relax/expr.h>

#include <sstream>
#include <unordered_map>

namespace tvm {
namespace relax {
namespace {

std::string Prim(const PrimExpr& e) {
  static ffi::Function as_text = *ffi::Function::GetGlobal("ir.AsText");
  return as_text(e).cast<std::string>();
}

class RelaxPrinter {
 public:
  std::ostringstream os;

  std::string SInfo(const StructInfo& s) {
    if (!s.defined()) return "R.Object";
    if (auto* t = s.as<TensorStructInfoNode>()) {
      std::string dt = IsUnknownDType(t->dtype) ? "" : "\"" + DTypeToString(t->dtype) + "\"";
      if (t->shape_known) return "R.Tensor(" + Shape(t->shape) + (dt.empty() ? "" : ", " + dt) + ")";
      std::string nd = t->ndim >= 0 ? "ndim=" + std::to_string(t->ndim) : "";
      return "R.Tensor(" + dt + (dt.empty() || nd.empty() ? "" : ", ") + nd + ")";
    }
    if (auto* t = s.as<ShapeStructInfoNode>()) {
      if (t->known) return "R.Shape(" + List(t->values) + ")";
      return "R.Shape(ndim=" + std::to_string(t->ndim) + ")";
    }
    if (auto* t = s.as<PrimStructInfoNode>()) {
      return t->value.defined() ? "R.Prim(value=" + Prim(t->value) + ")" : "R.Prim(\"" + DTypeToString(t->dtype) + "\")";
    }
    if (auto* t = s.as<TupleStructInfoNode>()) {
      std::string out = "R.Tuple(";
      for (size_t i = 0; i < t->fields.size(); ++i) out += (i ? ", " : "") + SInfo(t->fields[i]);
      return out + ")";
    }
    if (auto* t = s.as<FuncStructInfoNode>()) {
      std::string out = "R.Callable((";
      for (size_t i = 0; i < t->params.size(); ++i) out += (i ? ", " : "") + SInfo(t->params[i]);
      return out + "), " + SInfo(t->ret) + ")";
    }
    return "R.Object";
  }

  std::string List(const Array<PrimExpr>& v) {
    std::string out = "[";
    for (size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + Prim(v[i]);
    return out + "]";
  }
  std::string Shape(const Array<PrimExpr>& v) {
    std::string out = "(";
    for (size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + Prim(v[i]);
    return out + (v.size() == 1 ? ",)" : ")");
  }

  std::string Name(const VarNode* v) {
    auto it = names_.find(v);
    if (it != names_.end()) return it->second;
    std::string base(v->name_hint.empty() ? std::string("v") : std::string(v->name_hint)), n = base;
    for (int k = 1; used_.count(n); ++k) n = base + "_" + std::to_string(k);
    used_[n] = 1;
    names_[v] = n;
    return n;
  }

  std::string AttrValue(const Any& v) {
    switch (v.type_index()) {
      case kTVMFFINone: return "None";
      case kTVMFFIInt: return std::to_string(v.cast<int64_t>());
      case kTVMFFIBool: return v.cast<bool>() ? "True" : "False";
      case kTVMFFIFloat: {
        std::ostringstream s;
        s << v.cast<double>();
        return s.str();
      }
      case kTVMFFIDataType: return "\"" + DTypeToString(v.cast<DataType>()) + "\"";
      case kTVMFFISmallStr:
      case kTVMFFIStr: return "\"" + v.cast<std::string>() + "\"";
      default: break;
    }
    if (auto e = v.as<PrimExpr>()) return Prim(*e);
    if (auto arr = v.as<Array<Any>>()) {
      std::string out = "[";
      bool first = true;
      for (const Any& x : *arr) {
        out += (first ? "" : ", ") + AttrValue(x);
        first = false;
      }
      return out + "]";
    }
    return std::string("<") + v.GetTypeKey() + ">";
  }

  std::string E(const Expr& e) {
    if (!e.defined()) return "None";
    if (auto* n = e.as<VarNode>()) return Name(n);
    if (auto* n = e.as<ConstantNode>()) {
      std::string shape = "(";
      for (int32_t k = 0; k < n->data.ndim(); ++k) shape += (k ? ", " : "") + std::to_string(n->data.shape()[k]);
      return "R.const(<" + shape + (n->data.ndim() == 1 ? ",)" : ")") + ", \"" + DTypeToString(n->data.dtype()) + "\">)";
    }
    if (auto* n = e.as<TupleNode>()) {
      std::string out = "(";
      for (size_t i = 0; i < n->fields.size(); ++i) out += (i ? ", " : "") + E(n->fields[i]);
      return out + (n->fields.size() == 1 ? ",)" : ")");
    }
    if (auto* n = e.as<TupleGetItemNode>()) return E(n->tuple_value) + "[" + std::to_string(n->index) + "]";
    if (auto* n = e.as<ShapeExprNode>()) return "R.shape(" + List(n->values) + ")";
    if (auto* n = e.as<PrimValueNode>()) return "R.prim_value(" + Prim(n->value) + ")";
    if (auto* n = e.as<StringImmNode>()) return "R.str(\"" + std::string(n->value) + "\")";
    if (auto* n = e.as<DataTypeImmNode>()) return "R.dtype(\"" + DTypeToString(n->value) + "\")";
    if (auto* n = e.as<OpNode>()) {
      std::string name(n->name);
      return "R." + (name.rfind("relax.", 0) == 0 ? name.substr(6) : name);
    }
    if (auto* n = e.as<GlobalVarNode>()) return "cls." + std::string(n->name_hint);
    if (auto* n = e.as<ExternFuncNode>()) return "R.ExternFunc(\"" + std::string(n->global_symbol) + "\")";
    if (auto* n = e.as<CallNode>()) {
      std::string out = E(n->op) + "(";
      bool first = true;
      for (const Expr& a : n->args) {
        out += (first ? "" : ", ") + E(a);
        first = false;
      }
      for (const auto& kv : n->attrs) {
        out += (first ? "" : ", ") + std::string(kv.first) + "=" + AttrValue(kv.second);
        first = false;
      }
      if (!n->sinfo_args.empty()) {
        out += std::string(first ? "" : ", ") + "out_sinfo=";
        out += n->sinfo_args.size() == 1 ? SInfo(n->sinfo_args[0]) : SInfo(TupleSInfo(n->sinfo_args));
      }
      return out + ")";
    }
    if (e.as<SeqExprNode>() || e.as<FunctionNode>()) return "<" + std::string(e->GetTypeKey()) + ">";
    return "<" + std::string(e->GetTypeKey()) + ">";
  }

  void Indent(int n) { os << std::string(static_cast<size_t>(n) * 4, ' '); }

  void Body(const Expr& body, int ind) {
    auto* seq = body.as<SeqExprNode>();
    if (seq == nullptr) {
      Indent(ind);
      os << "return " << E(body) << "\n";
      return;
    }
    for (const BindingBlock& b : seq->blocks) {
      bool df = b.as<DataflowBlockNode>() != nullptr;
      int bi = ind;
      if (df) {
        Indent(ind);
        os << "with R.dataflow():\n";
        bi = ind + 1;
      }
      std::vector<std::string> outputs;
      for (const Binding& bd : b->bindings) {
        Indent(bi);
        const VarNode* v = bd->var.get();
        std::string value;
        if (auto* vb = bd.as<VarBindingNode>()) {
          value = E(vb->value);
        } else if (auto* mc = bd.as<MatchCastNode>()) {
          value = "R.match_cast(" + E(mc->value) + ", " + SInfo(mc->match_struct_info) + ")";
        }
        os << Name(v) << ": " << SInfo(v->struct_info) << " = " << value << "\n";
        if (df && !bd->var.as<DataflowVarNode>()) outputs.push_back(Name(v));
      }
      if (df) {
        Indent(bi);
        os << "R.output(";
        for (size_t i = 0; i < outputs.size(); ++i) os << (i ? ", " : "") << outputs[i];
        os << ")\n";
      }
    }
    Indent(ind);
    os << "return " << E(seq->body) << "\n";
  }

  void Function(const FunctionNode* f, const std::string& name) {
    os << "@R.function" << (f->is_pure ? "" : "(pure=False)") << "\n";
    os << "def " << name << "(";
    for (size_t i = 0; i < f->params.size(); ++i) {
      os << (i ? ", " : "") << Name(f->params[i].get()) << ": " << SInfo(f->params[i]->struct_info);
    }
    os << ") -> " << SInfo(f->ret_struct_info) << ":\n";
    for (const auto& kv : f->attrs) {
      Indent(1);
      os << "R.func_attr({\"" << std::string(kv.first) << "\": " << AttrValue(kv.second) << "})\n";
    }
    Body(f->body, 1);
  }

 private:
  std::unordered_map<const Object*, std::string> names_;
  std::unordered_map<std::string, int> used_;
};

std::string AsRelaxText(const ObjectRef& node, const std::string& name) {
  RelaxPrinter p;
  if (auto* f = node.as<FunctionNode>()) {
    p.Function(f, name);
  } else if (node.as<StructInfoNode>()) {
    p.os << p.SInfo(UncheckedCast<StructInfo>(node));
  } else if (node.as<ExprNode>()) {
    p.os << p.E(UncheckedCast<Expr>(node));
  } else {
    p.os << "<" << node->GetTypeKey() << ">";
  }
  return p.os.str();
}

}  // namespace

// Every Relax node derives from one of these four (type keys "relax.*").
TVM_FFI_STATIC_INIT_BLOCK() {
  for (int32_t type_index : {StructInfoNode::RuntimeTypeIndex(), ExprNode::RuntimeTypeIndex(),
                             BindingNode::RuntimeTypeIndex(), BindingBlockNode::RuntimeTypeIndex()}) {
    ir::RegisterNodePrinter(type_index, AsRelaxText);
  }
}

}  // namespace relax
}  // namespace tvm
