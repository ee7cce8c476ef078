/*
 * TIR's part of the text printer ("ir.AsText"): TVMScript-like text of expressions,
 * statements, blocks and PrimFuncs, registered with the printer dispatch (tvm/ir/printer.h)
 * for PrimExpr (so IntImm/FloatImm too), Stmt, Buffer (its name) and PrimFunc.
 */
#include <tvm/ir/printer.h>
#include <tvm/ir/structural.h>
#include <tvm/tir/ir.h>

#include <iomanip>
#include <limits>
#include <sstream>

namespace tvm {
namespace {

class TIRPrinter {
 public:
  std::ostringstream os;

  void Bin(const char* op, const PrimExpr& a, const PrimExpr& b) {
    os << "(";
    Expr(a);
    os << " " << op << " ";
    Expr(b);
    os << ")";
  }
  void Fn(const char* name, const PrimExpr& a, const PrimExpr& b) {
    os << name << "(";
    Expr(a);
    os << ", ";
    Expr(b);
    os << ")";
  }

  void Expr(const PrimExpr& e) {
    if (!e.defined()) {
      os << "None";
      return;
    }
    if (auto* n = e.as<IntImmNode>()) {
      if (n->dtype == Int(32)) os << n->value;
      else if (IsBool(n->dtype)) os << (n->value ? "T.bool(True)" : "T.bool(False)");
      else os << "T." << DTypeToString(n->dtype) << "(" << n->value << ")";
    } else if (auto* n = e.as<FloatImmNode>()) {
      os << "T." << DTypeToString(n->dtype) << "(" << std::setprecision(17) << n->value << ")";
    } else if (auto* n = e.as<StringImmNode>()) {
      os << '"' << std::string(n->value) << '"';
    } else if (auto* n = e.as<VarNode>()) {
      os << std::string(n->name);
    } else if (auto* n = e.as<AddNode>()) { Bin("+", n->a, n->b);
    } else if (auto* n = e.as<SubNode>()) { Bin("-", n->a, n->b);
    } else if (auto* n = e.as<MulNode>()) { Bin("*", n->a, n->b);
    } else if (auto* n = e.as<DivNode>()) { Fn("T.Div", n->a, n->b);
    } else if (auto* n = e.as<ModNode>()) { Fn("T.truncmod", n->a, n->b);
    } else if (auto* n = e.as<FloorDivNode>()) { Bin("//", n->a, n->b);
    } else if (auto* n = e.as<FloorModNode>()) { Bin("%", n->a, n->b);
    } else if (auto* n = e.as<MinNode>()) { Fn("T.min", n->a, n->b);
    } else if (auto* n = e.as<MaxNode>()) { Fn("T.max", n->a, n->b);
    } else if (auto* n = e.as<EQNode>()) { Bin("==", n->a, n->b);
    } else if (auto* n = e.as<NENode>()) { Bin("!=", n->a, n->b);
    } else if (auto* n = e.as<LTNode>()) { Bin("<", n->a, n->b);
    } else if (auto* n = e.as<LENode>()) { Bin("<=", n->a, n->b);
    } else if (auto* n = e.as<GTNode>()) { Bin(">", n->a, n->b);
    } else if (auto* n = e.as<GENode>()) { Bin(">=", n->a, n->b);
    } else if (auto* n = e.as<AndNode>()) { Bin("and", n->a, n->b);
    } else if (auto* n = e.as<OrNode>()) { Bin("or", n->a, n->b);
    } else if (auto* n = e.as<NotNode>()) {
      os << "not ";
      Expr(n->a);
    } else if (auto* n = e.as<SelectNode>()) {
      os << "T.Select(";
      Expr(n->condition);
      os << ", ";
      Expr(n->true_value);
      os << ", ";
      Expr(n->false_value);
      os << ")";
    } else if (auto* n = e.as<CastNode>()) {
      os << "T.Cast(\"" << DTypeToString(n->dtype) << "\", ";
      Expr(n->value);
      os << ")";
    } else if (auto* n = e.as<CallNode>()) {
      std::string op(n->op);
      if (op.rfind("tir.", 0) == 0) op = "T." + op.substr(4);
      os << op << "(";
      for (size_t i = 0; i < n->args.size(); ++i) {
        if (i) os << ", ";
        Expr(n->args[i]);
      }
      os << ")";
    } else if (auto* n = e.as<RampNode>()) {
      os << "T.Ramp(";
      Expr(n->base);
      os << ", ";
      Expr(n->stride);
      os << ", " << n->lanes << ")";
    } else if (auto* n = e.as<BroadcastNode>()) {
      os << "T.Broadcast(";
      Expr(n->value);
      os << ", " << n->lanes << ")";
    } else if (auto* n = e.as<LetNode>()) {
      os << "T.Let(" << std::string(n->var->name) << ", ";
      Expr(n->value);
      os << ", ";
      Expr(n->body);
      os << ")";
    } else if (auto* n = e.as<BufferLoadNode>()) {
      os << std::string(n->buffer->name) << "[";
      Indices(n->indices);
      os << "]";
    } else if (auto* n = e.as<ReduceNode>()) {
      os << "T.reduce_" << std::string(n->combiner) << "(";
      Expr(n->source);
      os << ", axis=[";
      for (size_t i = 0; i < n->axis.size(); ++i) {
        if (i) os << ", ";
        os << std::string(n->axis[i]->var->name);
      }
      os << "]";
      const IntImmNode* always = n->condition.as<IntImmNode>();
      if (!(always && always->value == 1)) {
        os << ", where=";
        Expr(n->condition);
      }
      os << ")";
    } else {
      os << ir::GenericText(e);
    }
  }

  void Indices(const Array<PrimExpr>& idx) {
    for (size_t i = 0; i < idx.size(); ++i) {
      if (i) os << ", ";
      Expr(idx[i]);
    }
  }

  void Indent(int n) { os << std::string(static_cast<size_t>(n) * 4, ' '); }

  void St(const Stmt& s, int ind) {
    if (!s.defined()) return;
    if (auto* n = s.as<SeqStmtNode>()) {
      for (const Stmt& x : n->seq) St(x, ind);
    } else if (auto* n = s.as<ForNode>()) {
      static const char* kinds[] = {"serial", "parallel", "vectorized", "unroll", "thread_binding"};
      Indent(ind);
      os << "for " << std::string(n->loop_var->name) << " in T."
         << kinds[n->kind >= 0 && n->kind < 5 ? n->kind : 0] << "(";
      if (const int64_t* m = AsConstInt(n->min); !(m && *m == 0)) {
        Expr(n->min);
        os << ", ";
        PrimExpr end = n->extent;
        os << "";
        Expr(n->min);
        os << " + ";
        Expr(end);
      } else {
        Expr(n->extent);
      }
      if (n->kind == 4) os << ", thread=\"" << std::string(n->thread_tag) << "\"";
      os << "):\n";
      St(n->body, ind + 1);
    } else if (auto* n = s.as<BufferStoreNode>()) {
      Indent(ind);
      os << std::string(n->buffer->name) << "[";
      Indices(n->indices);
      os << "] = ";
      Expr(n->value);
      os << "\n";
    } else if (auto* n = s.as<LetStmtNode>()) {
      Indent(ind);
      os << std::string(n->var->name) << ": " << DTypeToString(n->var->dtype) << " = ";
      Expr(n->value);
      os << "\n";
      St(n->body, ind);
    } else if (auto* n = s.as<IfThenElseNode>()) {
      Indent(ind);
      os << "if ";
      Expr(n->condition);
      os << ":\n";
      St(n->then_case, ind + 1);
      if (n->else_case.defined()) {
        Indent(ind);
        os << "else:\n";
        St(n->else_case, ind + 1);
      }
    } else if (auto* n = s.as<AllocateNode>()) {
      Indent(ind);
      os << std::string(n->buffer->name) << " = T.alloc_buffer((";
      Indices(n->buffer->shape);
      os << (n->buffer->shape.size() == 1 ? ",), \"" : "), \"") << DTypeToString(n->buffer->dtype) << "\")\n";
      St(n->body, ind);
    } else if (auto* n = s.as<BlockRealizeNode>()) {
      Realize(n, ind);
    } else if (auto* n = s.as<AssertStmtNode>()) {
      Indent(ind);
      os << "assert ";
      Expr(n->condition);
      os << ", \"" << std::string(n->kind) << ": " << std::string(n->message) << "\"\n";
      St(n->body, ind);
    } else if (auto* n = s.as<EvaluateNode>()) {
      Indent(ind);
      os << "T.evaluate(";
      Expr(n->value);
      os << ")\n";
    } else {
      Indent(ind);
      os << ir::GenericText(s);
      os << "\n";
    }
  }

  void Region(const BufferRegion& r) {
    os << std::string(r->buffer->name) << "[";
    for (size_t i = 0; i < r->region.size(); ++i) {
      if (i) os << ", ";
      const Range& x = r->region[i];
      Expr(x->min);
      if (const int64_t* e = AsConstInt(x->extent); !(e && *e == 1)) {
        os << ":";
        Expr(x->min);
        os << " + ";
        Expr(x->extent);
      }
    }
    os << "]";
  }

  void Regions(const char* what, const Array<BufferRegion>& rs, int ind) {
    Indent(ind);
    os << "T." << what << "(";
    for (size_t i = 0; i < rs.size(); ++i) {
      if (i) os << ", ";
      Region(rs[i]);
    }
    os << ")\n";
  }

  void AllocBuffer(const Buffer& b, int ind) {
    Indent(ind);
    os << std::string(b->name) << " = T.alloc_buffer((";
    Indices(b->shape);
    os << (b->shape.size() == 1 ? ",), \"" : "), \"") << DTypeToString(b->dtype) << "\"";
    if (std::string(b->scope) != "global") os << ", scope=\"" << std::string(b->scope) << "\"";
    os << ")\n";
  }

  // `with T.block(name):` then the iter var bindings, predicate, regions, allocations,
  // init and body. The root block (name "root") is shown only when it allocates.
  void Realize(const BlockRealizeNode* r, int ind) {
    const BlockNode* b = r->block.get();
    bool root = std::string(b->name_hint) == "root" && b->iter_vars.empty();
    if (root && b->alloc_buffers.empty()) {
      St(b->body, ind);
      return;
    }
    Indent(ind);
    os << "with T.block(\"" << std::string(b->name_hint) << "\"):\n";
    int in = ind + 1;
    for (size_t i = 0; i < b->iter_vars.size(); ++i) {
      const IterVar& iv = b->iter_vars[i];
      Indent(in);
      os << std::string(iv->var->name) << " = T.axis." << (iv->kind == 2 ? "reduce" : "spatial") << "(";
      if (const int64_t* m = AsConstInt(iv->min); m && *m == 0) {
        Expr(iv->extent);
      } else {
        os << "(";
        Expr(iv->min);
        os << ", ";
        Expr(iv->min);
        os << " + ";
        Expr(iv->extent);
        os << ")";
      }
      os << ", ";
      Expr(r->iter_values[i]);
      os << ")\n";
    }
    if (const int64_t* p = AsConstInt(r->predicate); !(p && *p == 1)) {
      Indent(in);
      os << "T.where(";
      Expr(r->predicate);
      os << ")\n";
    }
    if (!root) {
      Regions("reads", b->reads, in);
      Regions("writes", b->writes, in);
    }
    if (!b->annotations.empty()) {
      Indent(in);
      os << "T.block_attr(";
      os << AsText(Any(b->annotations));
      os << ")\n";
    }
    for (const Buffer& buf : b->alloc_buffers) AllocBuffer(buf, in);
    if (b->init.defined()) {
      Indent(in);
      os << "with T.init():\n";
      St(b->init, in + 1);
    }
    St(b->body, in);
  }

  void Func(const PrimFunc& f, const std::string& name, int ind) {
    Indent(ind);
    os << "@T.prim_func\n";
    Indent(ind);
    os << "def " << f.GlobalSymbol(name) << "(";
    for (size_t i = 0; i < f->params.size(); ++i) {
      if (i) os << ", ";
      Var p = f->params[i];
      os << std::string(p->name) << ": ";
      std::optional<Buffer> b = f->buffer_map.Get(p);
      if (b.has_value()) {
        os << "T.Buffer((";
        Indices((*b)->shape);
        os << ((*b)->shape.size() == 1 ? ",), \"" : "), \"") << DTypeToString((*b)->dtype) << "\")";
      } else {
        os << "T." << DTypeToString(p->dtype);
      }
    }
    os << "):\n";
    St(f->body, ind + 1);
  }
};

std::string PrintExpr(const ObjectRef& node, const std::string&) {
  TIRPrinter p;
  p.Expr(UncheckedCast<PrimExpr>(node));
  return p.os.str();
}

std::string PrintStmt(const ObjectRef& node, const std::string&) {
  TIRPrinter p;
  p.St(UncheckedCast<Stmt>(node), 0);
  return p.os.str();
}

std::string PrintBuffer(const ObjectRef& node, const std::string&) {
  return std::string(UncheckedCast<Buffer>(node)->name);
}

std::string PrintPrimFunc(const ObjectRef& node, const std::string& name) {
  TIRPrinter p;
  p.Func(UncheckedCast<PrimFunc>(node), name, 0);
  return p.os.str();
}

}  // namespace

TVM_FFI_STATIC_INIT_BLOCK() {
  ir::RegisterNodePrinter(PrimExprNode::RuntimeTypeIndex(), PrintExpr);
  ir::RegisterNodePrinter(StmtNode::RuntimeTypeIndex(), PrintStmt);
  ir::RegisterNodePrinter(BufferNode::RuntimeTypeIndex(), PrintBuffer);
  ir::RegisterNodePrinter(PrimFuncNode::RuntimeTypeIndex(), PrintPrimFunc);
}

}  // namespace tvm
