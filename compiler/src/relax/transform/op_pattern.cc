/*
 * The op pattern of a PrimFunc (TVM's OpPatternKind), read from its blocks: what
 * relax.transform.AnnotateTIROpPattern stores as attr "op_pattern" and FuseOps groups by.
 *
 * Per block (the store it makes, the loads in the stored value):
 *   elementwise  every load indexes with exactly the store's indices;
 *   broadcast    every load indexes with a subsequence of the store's index variables (in
 *                order; a constant index stands for a size-1 dimension);
 *   injective    anything else without reduction axes (reshape, transpose, concat, pad...);
 *   a block with reduction axes is "out-elementwise-fusable" when it accumulates a product
 *   (matmul, conv: C = C + A * B), a plain reduction (sum, max, pooling) otherwise.
 * The function's pattern is the largest of its blocks', except that a function with two or
 * more reduction blocks (softmax, layer norm) is opaque, and so is one whose blocks are not
 * all single stores, or that is not in block form: fusion must not treat those as anything
 * it understands.
 */
#include <tvm/relax/op.h>
#include <tvm/tir/functor.h>

#include <algorithm>
#include <vector>

#include "../../support/registry.h"
#include "../../tir/analysis/analysis.h"

namespace tvm {
namespace relax {
namespace {

// TIR's VarNode, not Relax's (this file lives in namespace relax).
using TirVarNode = ::tvm::VarNode;

class LoadCollector : public ExprMutator {
 public:
  PrimExpr VisitExpr(const PrimExpr& e) override {
    if (auto* n = e.as<BufferLoadNode>()) loads.push_back(n);
    return MutateExprChildren(e);
  }
  std::vector<const BufferLoadNode*> loads;
};

const BufferStoreNode* SingleStore(const Stmt& body) {
  Stmt s = body;
  // A reduction with a condition (a `where`) stores under an if without else.
  if (auto* n = s.as<IfThenElseNode>(); n && !n->else_case.defined()) s = n->then_case;
  return s.as<BufferStoreNode>();
}

bool SameIndices(const Array<PrimExpr>& a, const Array<PrimExpr>& b) {
  if (a.size() != b.size()) return false;
  for (size_t k = 0; k < a.size(); ++k) {
    if (!a[k].same_as(b[k])) return false;
  }
  return true;
}

// Each index of `load` is a constant or a variable of `store`, the variables in store order.
bool IsBroadcastOf(const Array<PrimExpr>& load, const Array<PrimExpr>& store) {
  size_t next = 0;
  for (const PrimExpr& x : load) {
    if (x.as<IntImmNode>()) continue;
    if (!x.as<TirVarNode>()) return false;
    while (next < store.size() && !store[next].same_as(x)) ++next;
    if (next == store.size()) return false;
    ++next;
  }
  return true;
}

const PrimExpr StripCast(const PrimExpr& e) {
  if (auto* c = e.as<CastNode>()) return c->value;
  return e;
}

// C = C + A * B (possibly with casts around the product or its factors): matmul, conv.
bool AccumulatesProduct(const BufferStoreNode* store) {
  auto* add = store->value.as<AddNode>();
  if (add == nullptr) return false;
  for (const PrimExpr& side : {add->a, add->b}) {
    auto* mul = StripCast(side).as<MulNode>();
    if (mul && StripCast(mul->a).as<BufferLoadNode>() && StripCast(mul->b).as<BufferLoadNode>()) return true;
  }
  return false;
}

int BlockPattern(const BlockNode* block) {
  const BufferStoreNode* store = SingleStore(block->body);
  if (store == nullptr) return kOpaque;
  bool reduction = std::any_of(block->iter_vars.begin(), block->iter_vars.end(),
                               [](const IterVar& iv) { return iv->kind == 2; });
  if (reduction) return AccumulatesProduct(store) ? kOutEWiseFusable : kCommReduce;
  for (const PrimExpr& x : store->indices) {
    if (!x.as<TirVarNode>()) return kInjective;
  }
  LoadCollector c;
  c.VisitExpr(store->value);
  int kind = kElemWise;
  for (const BufferLoadNode* load : c.loads) {
    if (SameIndices(load->indices, store->indices)) continue;
    kind = std::max(kind, IsBroadcastOf(load->indices, store->indices) ? int(kBroadcast) : int(kInjective));
  }
  return kind;
}

int64_t PrimFuncOpPattern(const PrimFunc& f) {
  auto* realize = f->body.as<BlockRealizeNode>();
  if (realize == nullptr || !realize->iter_values.empty()) return kOpaque;
  std::vector<const BlockRealizeNode*> blocks = tir::AllBlocks(realize->block->body);
  if (blocks.empty()) return kOpaque;
  int kind = kElemWise, reductions = 0;
  for (const BlockRealizeNode* r : blocks) {
    int k = BlockPattern(r->block.get());
    if (k == kOpaque) return kOpaque;
    if (k == kCommReduce || k == kOutEWiseFusable) ++reductions;
    kind = std::max(kind, k);
  }
  return reductions > 1 ? kOpaque : kind;
}

}  // namespace

TVM_FFI_STATIC_INIT_BLOCK() {
  RegisterCompilerGlobal("relax.analysis.PrimFuncOpPattern", PrimFuncOpPattern);
}

}  // namespace relax
}  // namespace tvm
