/*
 * Lookups and replacement for the schedule primitives (the helpers passes share too are in
 * ../analysis).
 */
#include "utils.h"

#include <tvm/ir/structural.h>

#include <set>

namespace tvm {
namespace tir {

std::vector<const ForNode*> StmtPath::Loops() const {
  std::vector<const ForNode*> out;
  for (size_t i = 0; i + 1 < stack.size(); ++i) {
    if (auto* f = stack[i].as<ForNode>()) out.push_back(f);
    if (stack[i].as<BlockNode>()) out.clear();  // loops above an enclosing block are not ours
  }
  return out;
}

const BlockNode* StmtPath::ParentBlock() const {
  for (size_t i = stack.size() - 1; i-- > 0;) {
    if (auto* b = stack[i].as<BlockNode>()) return b;
  }
  return nullptr;
}

StmtPath FindBlock(const PrimFunc& f, const std::string& name, const char* prim) {
  StmtPath p;
  int count = 0;
  StmtPath found;
  std::vector<Stmt> stack;
  WalkPath(f->body, &stack, [&](const Stmt& s) {
    if (auto* r = s.as<BlockRealizeNode>(); r && std::string(r->block->name_hint) == name) {
      if (count++ == 0) found.stack = stack;
    }
    return false;
  });
  if (count == 0) TVM_SCHEDULE_ERROR(prim) << "no block named \"" << name << "\" in the function";
  if (count > 1) TVM_SCHEDULE_ERROR(prim) << "block name \"" << name << "\" is not unique";
  return found;
}

StmtPath FindLoop(const PrimFunc& f, const Var& loop, const char* prim) {
  if (!loop.defined()) TVM_SCHEDULE_ERROR(prim) << "loop is None";
  StmtPath p;
  bool ok = WalkPath(f->body, &p.stack, [&](const Stmt& s) {
    auto* n = s.as<ForNode>();
    return n != nullptr && n->loop_var.same_as(loop);
  });
  if (!ok) TVM_SCHEDULE_ERROR(prim) << "loop " << std::string(loop->name) << " is not in the function";
  return p;
}

namespace {

class StmtReplacer : public ExprMutator {
 public:
  StmtReplacer(const Object* target, Stmt rep) : target_(target), rep_(std::move(rep)) {}
  PrimExpr VisitExpr(const PrimExpr& e) override { return e; }
  Stmt VisitStmt(const Stmt& s) override {
    if (!s.defined()) return s;
    if (s.get() == target_) {
      found = true;
      return rep_;
    }
    if (auto* n = s.as<SeqStmtNode>()) {
      Array<Stmt> seq;
      bool changed = false;
      for (const Stmt& x : n->seq) {
        Stmt y = VisitStmt(x);
        if (!y.same_as(x)) changed = true;
        if (!y.defined()) continue;
        if (auto* inner = y.as<SeqStmtNode>()) {
          for (const Stmt& z : inner->seq) seq.push_back(z);
        } else {
          seq.push_back(y);
        }
      }
      if (!changed) return s;
      if (seq.empty()) return Stmt();
      return MakeSeq(seq);
    }
    if (auto* n = s.as<ForNode>()) {
      Stmt b = VisitStmt(n->body);
      if (b.same_as(n->body)) return s;
      if (!b.defined()) return Stmt();
      return WithBody(n, b);
    }
    if (auto* n = s.as<BlockNode>()) {
      Stmt b = VisitStmt(n->body);
      Stmt init = VisitStmt(n->init);
      if (b.same_as(n->body) && init.same_as(n->init)) return s;
      if (!b.defined()) b = MakeSeq(Array<Stmt>{});
      return MakeBlock(n->iter_vars, n->reads, n->writes, std::string(n->name_hint), b, init,
                       n->alloc_buffers, n->annotations);
    }
    if (auto* n = s.as<IfThenElseNode>()) {
      Stmt t = VisitStmt(n->then_case), e = VisitStmt(n->else_case);
      if (t.same_as(n->then_case) && e.same_as(n->else_case)) return s;
      if (!t.defined() && !e.defined()) return Stmt();
      if (!t.defined()) t = MakeSeq(Array<Stmt>{});
      return MakeIfThenElse(n->condition, t, e);
    }
    return MutateStmtChildren(s);
  }
  bool found{false};

 private:
  const Object* target_;
  Stmt rep_;
};

}  // namespace

Stmt ReplaceStmt(const Stmt& root, const Object* target, const Stmt& replacement) {
  StmtReplacer r(target, replacement);
  Stmt out = r.VisitStmt(root);
  if (!r.found) TVM_FFI_THROW(InternalError) << "schedule: statement to replace not found";
  return out;
}
PrimFunc Replace(const PrimFunc& f, const Object* target, const Stmt& replacement) {
  return WithBody(f, ReplaceStmt(f->body, target, replacement));
}
std::string FreshBlockName(const PrimFunc& f, const std::string& base) {
  std::set<std::string> used;
  for (const BlockRealizeNode* r : AllBlocks(f->body)) used.insert(std::string(r->block->name_hint));
  if (!used.count(base)) return base;
  for (int i = 1;; ++i) {
    std::string n = base + "_" + std::to_string(i);
    if (!used.count(n)) return n;
  }
}

void CheckSingleWriter(const PrimFunc& f, const BlockNode* block, const Buffer& buf, const char* prim) {
  for (const BlockRealizeNode* r : AllBlocks(f->body)) {
    const BlockNode* b = r->block.get();
    if (b == block || ChildBlocks(b->body).size() > 0) continue;  // itself, or a scope block
    for (const BufferRegion& w : b->writes) {
      if (w->buffer.same_as(buf)) {
        TVM_SCHEDULE_ERROR(prim) << "buffer " << std::string(buf->name) << " is written by block \""
                                 << std::string(b->name_hint) << "\" too (the block must be its only writer; "
                                 << "e.g. before decompose_reduction)";
      }
    }
  }
}

Buffer FindBufferByName(const PrimFunc& f, const std::string& name) {
  for (const auto& kv : f->buffer_map) {
    if (std::string(kv.second->name) == name) return kv.second;
  }
  for (const BlockRealizeNode* r : AllBlocks(f->body)) {
    for (const Buffer& b : r->block->alloc_buffers) {
      if (std::string(b->name) == name) return b;
    }
  }
  return Buffer();
}

bool IsParamBuffer(const PrimFunc& f, const Buffer& b) {
  for (const auto& kv : f->buffer_map) {
    if (kv.second.same_as(b)) return true;
  }
  return false;
}

namespace {
PrimFunc EditRootAlloc(const PrimFunc& f, const std::function<Array<Buffer>(Array<Buffer>)>& edit) {
  auto* r = f->body.as<BlockRealizeNode>();
  if (r == nullptr) TVM_FFI_THROW(ScheduleError) << "the function has no root block (not made by create_prim_func?)";
  const BlockNode* b = r->block.get();
  Block nb = MakeBlock(b->iter_vars, b->reads, b->writes, std::string(b->name_hint), b->body, b->init,
                       edit(b->alloc_buffers), b->annotations);
  return WithBody(f, MakeBlockRealize(r->iter_values, r->predicate, nb));
}
}  // namespace

PrimFunc AddRootAlloc(const PrimFunc& f, const Buffer& buf) {
  return EditRootAlloc(f, [&](Array<Buffer> a) {
    a.push_back(buf);
    return a;
  });
}

PrimFunc RemoveAlloc(const PrimFunc& f, const Buffer& buf) {
  for (const BlockRealizeNode* r : AllBlocks(f->body)) {
    const BlockNode* b = r->block.get();
    Array<Buffer> kept;
    for (const Buffer& x : b->alloc_buffers) {
      if (!x.same_as(buf)) kept.push_back(x);
    }
    if (kept.size() == b->alloc_buffers.size()) continue;
    return Replace(f, b, MakeBlock(b->iter_vars, b->reads, b->writes, std::string(b->name_hint), b->body, b->init,
                                   kept, b->annotations));
  }
  return f;
}

}  // namespace tir
}  // namespace tvm
