/*
 * UnrollLoop: a loop marked unrolled (schedule `unroll`, ForKind 3) with a constant extent of
 * at most kMaxUnroll iterations becomes its body repeated, the loop variable replaced by each
 * value, so the passes after it (Simplify, VectorizeLoop) and LLVM see constants. Longer or
 * symbolic unrolled loops stay loops; codegen gives them LLVM's unroll.full hint.
 */
#include <tvm/arith/analyzer.h>
#include <tvm/tir/functor.h>

#include "../../support/registry.h"
#include "../analysis/analysis.h"

namespace tvm {
namespace tir {
namespace {

constexpr int64_t kMaxUnroll = 64;

Stmt Unroll(const Stmt& x) {
  auto* loop = x.as<ForNode>();
  if (loop == nullptr || loop->kind != 3) return x;
  const int64_t* ext = AsConstInt(loop->extent);
  if (ext == nullptr || *ext > kMaxUnroll || *ext < 1) return x;
  Array<Stmt> copies;
  for (int64_t k = 0; k < *ext; ++k) {
    PrimExpr v = Simp(Add(loop->min, IntImm(loop->loop_var->dtype, k)));
    copies.push_back(Substitute(loop->body, {{loop->loop_var.get(), v}}));
  }
  return MakeSeq(copies);
}

}  // namespace

PrimFunc UnrollLoop(const PrimFunc& f) { return WithBody(f, PostOrderRewrite(f->body, Unroll)); }

TVM_FFI_STATIC_INIT_BLOCK() {
  RegisterCompilerGlobal("tir.transform.UnrollLoop", [](PrimFunc f) { return UnrollLoop(f); });
}

}  // namespace tir
}  // namespace tvm
