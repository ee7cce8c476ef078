/*
 * Walks over statements: block lookup, variable uses, buffer accesses (analysis.h).
 */
#include "analysis.h"

namespace tvm {
namespace tir {

bool WalkPath(const Stmt& s, std::vector<Stmt>* stack, const std::function<bool(const Stmt&)>& visit) {
  if (!s.defined()) return false;
  stack->push_back(s);
  if (visit(s)) return true;
  bool stop = false;
  if (auto* n = s.as<ForNode>()) {
    stop = WalkPath(n->body, stack, visit);
  } else if (auto* n = s.as<SeqStmtNode>()) {
    for (const Stmt& x : n->seq) {
      if ((stop = WalkPath(x, stack, visit))) break;
    }
  } else if (auto* n = s.as<BlockRealizeNode>()) {
    stop = WalkPath(n->block, stack, visit);
  } else if (auto* n = s.as<BlockNode>()) {
    stop = WalkPath(n->init, stack, visit) || WalkPath(n->body, stack, visit);
  } else if (auto* n = s.as<IfThenElseNode>()) {
    stop = WalkPath(n->then_case, stack, visit) || WalkPath(n->else_case, stack, visit);
  } else if (auto* n = s.as<LetStmtNode>()) {
    stop = WalkPath(n->body, stack, visit);
  } else if (auto* n = s.as<AllocateNode>()) {
    stop = WalkPath(n->body, stack, visit);
  }
  if (!stop) stack->pop_back();
  return stop;
}


std::vector<const BlockRealizeNode*> ChildBlocks(const Stmt& s) {
  std::vector<const BlockRealizeNode*> out;
  std::function<void(const Stmt&)> go = [&](const Stmt& x) {
    if (!x.defined()) return;
    if (auto* r = x.as<BlockRealizeNode>()) {
      out.push_back(r);
    } else if (auto* n = x.as<ForNode>()) {
      go(n->body);
    } else if (auto* n = x.as<SeqStmtNode>()) {
      for (const Stmt& y : n->seq) go(y);
    } else if (auto* n = x.as<IfThenElseNode>()) {
      go(n->then_case);
      go(n->else_case);
    } else if (auto* n = x.as<LetStmtNode>()) {
      go(n->body);
    } else if (auto* n = x.as<AllocateNode>()) {
      go(n->body);
    } else if (auto* n = x.as<BlockNode>()) {
      go(n->body);
    }
  };
  go(s);
  return out;
}

std::vector<const BlockRealizeNode*> AllBlocks(const Stmt& s) {
  std::vector<const BlockRealizeNode*> out;
  std::vector<Stmt> stack;
  WalkPath(s, &stack, [&](const Stmt& x) {
    if (auto* r = x.as<BlockRealizeNode>()) out.push_back(r);
    return false;
  });
  return out;
}

namespace {
class VarFinder : public ExprMutator {
 public:
  explicit VarFinder(const Object* v) : v_(v) {}
  PrimExpr VisitExpr(const PrimExpr& x) override {
    if (x.get() == v_) used = true;
    return used ? x : MutateExprChildren(x);
  }
  Stmt VisitStmt(const Stmt& s) override { return used ? s : MutateStmtChildren(s); }
  bool used{false};

 private:
  const Object* v_;
};
}  // namespace

bool UsesVar(const Stmt& s, const Object* v) {
  VarFinder f(v);
  f.VisitStmt(s);
  return f.used;
}

bool UsesVar(const PrimExpr& e, const Object* v) {
  VarFinder f(v);
  f.VisitExpr(e);
  return f.used;
}

void CollectAccesses(const Stmt& s, const Object* buffer, bool loads, bool stores,
                     std::vector<Array<PrimExpr>>* out) {
  class C : public ExprMutator {
   public:
    C(const Object* b, bool l, bool st, std::vector<Array<PrimExpr>>* o) : b_(b), l_(l), s_(st), o_(o) {}
    PrimExpr VisitExpr(const PrimExpr& e) override {
      if (auto* n = e.as<BufferLoadNode>(); l_ && n && n->buffer.get() == b_) o_->push_back(n->indices);
      return MutateExprChildren(e);
    }
    Stmt VisitStmt(const Stmt& st) override {
      if (auto* n = st.as<BufferStoreNode>(); s_ && n && n->buffer.get() == b_) o_->push_back(n->indices);
      return MutateStmtChildren(st);
    }

   private:
    const Object* b_;
    bool l_, s_;
    std::vector<Array<PrimExpr>>* o_;
  };
  C(buffer, loads, stores, out).VisitStmt(s);
}

}  // namespace tir
}  // namespace tvm
