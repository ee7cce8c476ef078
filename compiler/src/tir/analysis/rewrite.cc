/*
 * Substitution of variables and buffers in statements and expressions (analysis.h).
 */
#include "analysis.h"

namespace tvm {
namespace tir {

namespace {

class Substituter : public ExprMutator {
 public:
  explicit Substituter(VarMap map) : map_(std::move(map)) {}
  PrimExpr VisitExpr(const PrimExpr& e) override {
    if (e.as<VarNode>()) {
      auto it = map_.find(e.get());
      if (it != map_.end()) return it->second;
      return e;
    }
    return MutateExprChildren(e);
  }

 private:
  VarMap map_;
};

class BufferReplacer : public ExprMutator {
 public:
  BufferReplacer(const Buffer& from, const Buffer& to) : from_(from), to_(to) {}
  PrimExpr VisitExpr(const PrimExpr& e) override {
    PrimExpr x = MutateExprChildren(e);
    if (auto* n = x.as<BufferLoadNode>(); n && n->buffer.same_as(from_)) return MakeBufferLoad(to_, n->indices);
    return x;
  }
  Stmt VisitStmt(const Stmt& s) override {
    Stmt x = MutateStmtChildren(s);
    if (auto* n = x.as<BufferStoreNode>(); n && n->buffer.same_as(from_)) {
      return MakeBufferStore(to_, n->value, n->indices);
    }
    if (auto* n = x.as<BlockNode>()) {
      auto fix = [&](const Array<BufferRegion>& rs) {
        Array<BufferRegion> out;
        for (const BufferRegion& r : rs) out.push_back(r->buffer.same_as(from_) ? BufferRegion(to_, r->region) : r);
        return out;
      };
      return MakeBlock(n->iter_vars, fix(n->reads), fix(n->writes), std::string(n->name_hint), n->body,
                       n->init, n->alloc_buffers, n->annotations);
    }
    return x;
  }

 private:
  Buffer from_, to_;
};

}  // namespace

Stmt Substitute(const Stmt& s, VarMap map) { return Substituter(std::move(map)).VisitStmt(s); }
PrimExpr Substitute(const PrimExpr& e, VarMap map) { return Substituter(std::move(map)).VisitExpr(e); }
Stmt ReplaceBuffer(const Stmt& s, const Buffer& from, const Buffer& to) {
  return BufferReplacer(from, to).VisitStmt(s);
}

}  // namespace tir
}  // namespace tvm
