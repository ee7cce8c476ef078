/*
 * ThreadSync: barriers (T.tvm_storage_sync("shared"), __syncthreads) in GPU kernels, so that
 * the threads of a block see each other's writes to shared memory.
 *
 * Within a statement sequence, a barrier goes before the first statement that reads a shared
 * buffer written by an earlier statement since the last barrier (read after write), or writes
 * one read or written since then (write after read/write). A loop whose body both writes and
 * reads a shared buffer gets a barrier at the end of its body, so that the next iteration's
 * writes wait for this iteration's reads (the cache-tile loop of a tiled matmul). Barriers
 * are only placed in sequences, never inside a branch the pass creates, so every thread of a
 * block reaches the same barriers when the schedule's guards do not depend on the thread.
 */
#include <tvm/ffi/error.h>
#include <tvm/tir/functor.h>

#include <unordered_set>

#include "../../support/registry.h"
#include "../analysis/analysis.h"

namespace tvm {
namespace tir {
namespace {

using VarSet = std::unordered_set<const Object*>;

/*! \brief The shared buffers (by data var) a statement reads and writes. */
class SharedAccess : public ExprMutator {
 public:
  PrimExpr VisitExpr(const PrimExpr& e) override {
    if (auto* n = e.as<BufferLoadNode>(); n && IsShared(n->buffer)) reads.insert(n->buffer->data.get());
    return MutateExprChildren(e);
  }
  Stmt VisitStmt(const Stmt& s) override {
    if (auto* n = s.as<BufferStoreNode>(); n && IsShared(n->buffer)) writes.insert(n->buffer->data.get());
    return MutateStmtChildren(s);
  }
  VarSet reads, writes;

 private:
  static bool IsShared(const Buffer& b) { return std::string(b->scope).rfind("shared", 0) == 0; }
};

bool Intersects(const VarSet& a, const VarSet& b) {
  for (const Object* x : a) {
    if (b.count(x)) return true;
  }
  return false;
}

Stmt Barrier() {
  ObjectPtr<StringImmNode> scope = make_object<StringImmNode>();
  scope->dtype = Handle();
  scope->value = String("shared");
  return MakeEvaluate(MakeCall(Int(32), "tir.tvm_storage_sync", {PrimExpr(scope)}));
}

Stmt Sync(const Stmt& x) {
  if (auto* n = x.as<SeqStmtNode>()) {
    VarSet written, read;
    Array<Stmt> out;
    for (const Stmt& s : n->seq) {
      SharedAccess a;
      a.VisitStmt(s);
      if (Intersects(a.reads, written) || Intersects(a.writes, written) || Intersects(a.writes, read)) {
        out.push_back(Barrier());
        written.clear();
        read.clear();
      }
      written.insert(a.writes.begin(), a.writes.end());
      read.insert(a.reads.begin(), a.reads.end());
      out.push_back(s);
    }
    return out.size() == n->seq.size() ? x : MakeSeq(out);
  }
  if (auto* n = x.as<ForNode>(); n && n->kind != static_cast<int64_t>(ForKind::kThreadBinding)) {
    SharedAccess a;
    a.VisitStmt(n->body);
    if (Intersects(a.writes, a.reads)) return WithBody(n, MakeSeq({n->body, Barrier()}));
  }
  return x;
}

}  // namespace

PrimFunc ThreadSync(const PrimFunc& f) { return WithBody(f, PostOrderRewrite(f->body, Sync)); }

TVM_FFI_STATIC_INIT_BLOCK() {
  RegisterCompilerGlobal("tir.transform.ThreadSync", [](PrimFunc f) { return ThreadSync(f); });
}

}  // namespace tir
}  // namespace tvm
