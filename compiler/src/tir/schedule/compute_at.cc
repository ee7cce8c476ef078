/*
 * compute_at / reverse_compute_at: move a block under a loop of its consumer / producer.
 *
 * The moved block gets fresh loops covering the region it must compute: for compute_at the
 * region of its output that the consumers under `loop` read in one iteration of `loop`; for
 * reverse_compute_at the region of its input that the producers under `loop` write. Inner
 * loops (below `loop`) are relaxed over their ranges; `loop` and the loops above it stay
 * symbolic, so the region moves with the iteration. A block var indexing that buffer
 * dimension directly iterates over the region (with a predicate where the region may leave
 * the var's domain, e.g. at a split tail); other vars iterate over their whole domain.
 * Unit loops are left out (the var is bound to the region's start).
 * GPU scopes widen the region as TVM does: a "shared" output is computed for every thread of
 * the block (threadIdx loops above `loop` are relaxed too; the threads share the copy work
 * once its loops are bound), a "global" one for the whole launch.
 */
#include "../../support/registry.h"
#include "utils.h"

#include <tvm/ir/structural.h>

#include <unordered_set>

namespace tvm {
namespace tir {
namespace {

const BlockRealizeNode* Realize(const StmtPath& p) { return p.leaf().as<BlockRealizeNode>(); }

// True when one copy of `buf` serves every iteration of the GPU-bound loop `l`: a "shared"
// buffer is one per thread block (all threadIdx values), a "global" one one per kernel.
bool SharedAcrossThreads(const Buffer& buf, const ForNode* l) {
  if (l->kind != static_cast<int64_t>(ForKind::kThreadBinding)) return false;
  std::string scope(buf->scope), tag(l->thread_tag);
  bool thread = tag.rfind("threadIdx", 0) == 0, block = tag.rfind("blockIdx", 0) == 0;
  return (scope.rfind("shared", 0) == 0 && thread) || (scope == "global" && (thread || block));
}

// The region of `buf` accessed by the blocks under `loop` (loads or stores), relaxed over the
// loops below `loop`; false if there is no such access.
bool AccessedRegion(const PrimFunc& f, const ForNode* loop, const Buffer& buf, bool loads,
                    const char* prim, std::vector<Interval>* hull) {
  bool any = false;
  hull->assign(buf->shape.size(), Interval());
  for (const BlockRealizeNode* r : AllBlocks(loop->body)) {
    std::vector<Array<PrimExpr>> acc;
    CollectAccesses(r->block->body, buf.get(), loads, !loads, &acc);
    if (r->block->init.defined()) CollectAccesses(r->block->init, buf.get(), loads, !loads, &acc);
    if (acc.empty()) continue;
    any = true;
    VarMap bind;
    for (size_t i = 0; i < r->iter_values.size(); ++i) bind[r->block->iter_vars[i]->var.get()] = r->iter_values[i];
    StmtPath p = FindBlock(f, std::string(r->block->name_hint), prim);
    std::unordered_map<const Object*, Range> relax;
    bool below = false;
    for (const ForNode* l : p.Loops()) {
      if (below || SharedAcrossThreads(buf, l)) relax[l->loop_var.get()] = Range(l->min, l->extent);
      if (l == loop) below = true;
    }
    for (const Array<PrimExpr>& idx : acc) {
      for (size_t d = 0; d < idx.size(); ++d) {
        Interval iv = EvalInterval(Substitute(idx[d], bind), relax);
        if (!iv.ok) {
          TVM_SCHEDULE_ERROR(prim) << "cannot bound the index " << d << " of " << std::string(buf->name)
                                   << " in block \"" << std::string(r->block->name_hint) << "\" (not affine)";
        }
        UnionInto(&(*hull)[d], iv);
      }
    }
  }
  return any;
}

// Index of the top-level statement of `path` in its parent block's body sequence.
const Stmt& TopLevel(const StmtPath& p) {
  for (size_t i = p.stack.size() - 1; i-- > 0;) {
    if (p.stack[i].as<BlockNode>()) return p.stack[i + 1].as<SeqStmtNode>() ? p.stack[i + 2] : p.stack[i + 1];
  }
  return p.stack[0];
}

PrimFunc MoveTo(const PrimFunc& f, const std::string& name, const Var& loop_var, bool reverse) {
  const char* prim = reverse ? "reverse_compute_at" : "compute_at";
  StmtPath bp = FindBlock(f, name, prim);
  StmtPath lp = FindLoop(f, loop_var, prim);
  const BlockRealizeNode* br = Realize(bp);
  const BlockNode* b = br->block.get();
  const ForNode* loop = lp.leaf().as<ForNode>();
  for (const Stmt& s : bp.stack) {
    if (s.get() == loop) TVM_SCHEDULE_ERROR(prim) << "block \"" << name << "\" is already under loop " << std::string(loop_var->name);
  }
  if (bp.ParentBlock() != lp.ParentBlock()) {
    TVM_SCHEDULE_ERROR(prim) << "block \"" << name << "\" and loop " << std::string(loop_var->name)
                             << " are not in the same block scope";
  }
  // Order: a producer must come before the loop, a consumer after it.
  const BlockNode* scope = bp.ParentBlock();
  const Stmt& btop = TopLevel(bp);
  const Stmt& ltop = TopLevel(lp);
  int bi = -1, li = -1;
  if (auto* seq = scope->body.as<SeqStmtNode>()) {
    for (size_t i = 0; i < seq->seq.size(); ++i) {
      if (seq->seq[i].same_as(btop)) bi = static_cast<int>(i);
      if (seq->seq[i].same_as(ltop)) li = static_cast<int>(i);
    }
  }
  if (bi < 0 || li < 0 || bi == li) {
    TVM_SCHEDULE_ERROR(prim) << "block \"" << name << "\" and loop " << std::string(loop_var->name)
                             << " must be in different top-level loop nests of their scope";
  }
  if (!reverse && bi > li) TVM_SCHEDULE_ERROR(prim) << "block \"" << name << "\" comes after loop " << std::string(loop_var->name);
  if (reverse && bi < li) TVM_SCHEDULE_ERROR(prim) << "block \"" << name << "\" comes before loop " << std::string(loop_var->name);
  // The buffer linking the block to the blocks under the loop, and how the block indexes it.
  Buffer link;
  Array<PrimExpr> index;
  std::vector<Interval> hull;
  if (!reverse) {
    if (b->writes.size() != 1) TVM_SCHEDULE_ERROR(prim) << "block \"" << name << "\" must write exactly one buffer";
    link = b->writes[0]->buffer;
    CheckSingleWriter(f, b, link, prim);
    std::vector<Array<PrimExpr>> st;
    CollectAccesses(b->body, link.get(), false, true, &st);
    index = st.at(0);
    if (!AccessedRegion(f, loop, link, true, prim, &hull)) {
      TVM_SCHEDULE_ERROR(prim) << "no block under loop " << std::string(loop_var->name) << " reads "
                               << std::string(link->name) << ", the output of block \"" << name << "\"";
    }
  } else {
    for (const BufferRegion& r : b->reads) {
      std::vector<Interval> h;
      if (AccessedRegion(f, loop, r->buffer, false, prim, &h)) {
        if (link.defined()) TVM_SCHEDULE_ERROR(prim) << "block \"" << name << "\" reads more than one buffer written under the loop";
        link = r->buffer;
        hull = h;
      }
    }
    if (!link.defined()) {
      TVM_SCHEDULE_ERROR(prim) << "block \"" << name << "\" reads nothing written under loop " << std::string(loop_var->name);
    }
    std::vector<Array<PrimExpr>> ld;
    CollectAccesses(b->body, link.get(), true, false, &ld);
    for (const Array<PrimExpr>& x : ld) {
      if (!StructuralEqual(Any(x), Any(ld[0]))) {
        TVM_SCHEDULE_ERROR(prim) << "block \"" << name << "\" reads " << std::string(link->name)
                                 << " at more than one index";
      }
    }
    index = ld.at(0);
  }
  // Every other block touching the link must be under the loop: all consumers (compute_at)
  // or all producers (reverse_compute_at), or some would see a partial region.
  std::unordered_set<const Object*> under;
  for (const BlockRealizeNode* r : AllBlocks(loop->body)) under.insert(r);
  for (const BlockRealizeNode* r : AllBlocks(f->body)) {
    const BlockNode* o = r->block.get();
    if (o == b || !ChildBlocks(o->body).empty() || under.count(r)) continue;
    std::vector<Array<PrimExpr>> acc;
    CollectAccesses(o->body, link.get(), !reverse, reverse, &acc);
    if (o->init.defined()) CollectAccesses(o->init, link.get(), !reverse, reverse, &acc);
    if (!acc.empty()) {
      TVM_SCHEDULE_ERROR(prim) << "block \"" << std::string(o->name_hint) << "\" " << (reverse ? "writes " : "reads ")
                               << std::string(link->name) << " but is not under loop " << std::string(loop_var->name);
    }
  }
  if (reverse) {
    // A producer's values are final after one iteration only if its reduction does not
    // continue across iterations of the loop (or of loops above it).
    std::vector<const ForNode*> upto = lp.Loops();
    upto.push_back(loop);
    for (const BlockRealizeNode* r : AllBlocks(loop->body)) {
      std::vector<Array<PrimExpr>> acc;
      CollectAccesses(r->block->body, link.get(), false, true, &acc);
      if (acc.empty()) continue;
      for (size_t i = 0; i < r->iter_values.size(); ++i) {
        if (r->block->iter_vars[i]->kind != 2) continue;
        for (const ForNode* l : upto) {
          if (UsesVar(r->iter_values[i], l->loop_var.get())) {
            TVM_SCHEDULE_ERROR(prim) << "block \"" << std::string(r->block->name_hint) << "\" reduces over loop "
                                     << std::string(l->loop_var->name) << ": its output is not final inside loop "
                                     << std::string(loop_var->name);
          }
        }
      }
    }
  }
  // New loops, one per iter var.
  arith::VarBounds bounds;
  std::vector<const ForNode*> outer = lp.Loops();
  outer.push_back(loop);
  for (const ForNode* l : outer) {
    const int64_t* mn = AsConstInt(l->min);
    const int64_t* ex = AsConstInt(l->extent);
    if (mn && ex) bounds[l->loop_var.get()] = arith::ConstIntBound{*mn, *mn + *ex - 1};
  }
  std::vector<std::pair<Var, PrimExpr>> loops;  // loop var, extent
  Array<PrimExpr> values;
  std::vector<PrimExpr> preds;
  for (const IterVar& iv : b->iter_vars) {
    int dim = -1;
    for (size_t d = 0; d < index.size(); ++d) {
      if (index[d].same_as(iv->var)) dim = static_cast<int>(d);
    }
    PrimExpr start = iv->min, ext = iv->extent;
    if (dim >= 0 && iv->kind == 0) {
      start = hull[dim].min;
      ext = Simp(Add(MakeBinary("tir.Sub", hull[dim].max, hull[dim].min), IntImm(start.dtype(), 1)));
    }
    DataType t = iv->var->dtype;
    const int64_t* ce = AsConstInt(ext);
    PrimExpr value;
    if (ce && *ce == 1) {
      value = start;
    } else {
      Var ax("ax" + std::to_string(loops.size()), t);
      loops.push_back({ax, ext});
      if (ce) bounds[ax.get()] = arith::ConstIntBound{0, *ce - 1};
      value = Simp(Add(start, ax));
    }
    values.push_back(value);
    if (dim >= 0 && iv->kind == 0) {
      PrimExpr lo = arith::Simplify(MakeBinary("tir.GE", value, iv->min), bounds);
      PrimExpr hi = arith::Simplify(MakeBinary("tir.LT", value, Add(iv->min, iv->extent)), bounds);
      if (!IsConstTrue(lo)) preds.push_back(lo);
      if (!IsConstTrue(hi)) preds.push_back(hi);
    }
  }
  Stmt nest = MakeBlockRealize(values, AndAll(preds), br->block);
  for (size_t k = loops.size(); k-- > 0;) nest = MakeFor(loops[k].first, IntImm(loops[k].first->dtype, 0), loops[k].second, 0, nest);
  // Remove the block, then put its new nest at the start (end) of the loop body.
  PrimFunc removed = Replace(f, br, Stmt());
  const ForNode* l2 = FindLoop(removed, loop_var, prim).leaf().as<ForNode>();
  Stmt body = reverse ? MakeSeq({l2->body, nest}) : MakeSeq({nest, l2->body});
  return Replace(removed, l2, WithBody(l2, body));
}

}  // namespace

TVM_FFI_STATIC_INIT_BLOCK() {
  RegisterCompilerGlobal("tir.schedule.ComputeAt", [](PrimFunc f, std::string block, Var loop) {
    return MoveTo(f, block, loop, false);
  });
  RegisterCompilerGlobal("tir.schedule.ReverseComputeAt", [](PrimFunc f, std::string block, Var loop) {
    return MoveTo(f, block, loop, true);
  });
}

}  // namespace tir
}  // namespace tvm
