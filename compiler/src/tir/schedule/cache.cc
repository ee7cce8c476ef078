/*
 * cache_read / cache_write: a copy of a buffer in another storage scope, with a block that
 * copies it in (before the readers) or out (after the writer). The copy covers the whole
 * buffer; compute_at / reverse_compute_at then move it into a tile loop, and lowering
 * (CompactBufferAllocation) shrinks the cache to what one iteration touches.
 */
#include "../../support/registry.h"
#include "utils.h"

#include <unordered_set>

namespace tvm {
namespace tir {
namespace {

// A loop nest over the whole of `shape` around block `name`: dst[v...] = src[v...].
Stmt CopyNest(const std::string& name, const Buffer& src, const Buffer& dst) {
  Array<IterVar> ivs;
  Array<PrimExpr> idx, values;
  std::vector<Var> loops;
  for (size_t d = 0; d < src->shape.size(); ++d) {
    DataType t = src->shape[d].dtype();
    Var v("v" + std::to_string(d), t), l("ax" + std::to_string(d), t);
    ivs.push_back(MakeIterVar(v, IntImm(t, 0), src->shape[d], 0));
    idx.push_back(v);
    values.push_back(l);
    loops.push_back(l);
  }
  Stmt body = MakeBufferStore(dst, MakeBufferLoad(src, idx), idx);
  Block b = WithAccessRegions(MakeBlock(ivs, {}, {}, name, body, Stmt(), {}, {}));
  Stmt s = MakeBlockRealize(values, IntImm(Bool(), 1), b);
  for (size_t d = loops.size(); d-- > 0;) s = MakeFor(loops[d], IntImm(loops[d]->dtype, 0), src->shape[d], 0, s);
  return s;
}

void CheckScope(const std::string& scope, const char* prim) {
  if (scope != "global" && scope != "local" && scope != "shared") {
    TVM_SCHEDULE_ERROR(prim) << "unknown storage scope \"" << scope << "\" (global, local or shared)";
  }
}

// Puts `s` first in the body sequence of the scope block.
PrimFunc InsertFirstInScope(const PrimFunc& f, const BlockNode* scope, const Stmt& s) {
  Array<Stmt> out{s};
  if (auto* n = scope->body.as<SeqStmtNode>()) {
    for (const Stmt& x : n->seq) out.push_back(x);
  } else {
    out.push_back(scope->body);
  }
  Block nb = MakeBlock(scope->iter_vars, scope->reads, scope->writes, std::string(scope->name_hint), MakeSeq(out),
                       scope->init, scope->alloc_buffers, scope->annotations);
  return Replace(f, scope, nb);
}

// Inserts `nest` right after the writer block, at the highest level where no reader of
// `buf` sits between: after the writer's whole loop nest, unless a reader was moved into it
// (compute_at / reverse_compute_at), then just after the deepest enclosing statement that
// holds no reader.
PrimFunc InsertAfterWriter(const PrimFunc& f, const std::string& writer, const Buffer& buf, const Stmt& nest,
                           const char* prim) {
  StmtPath p = FindBlock(f, writer, prim);
  const BlockNode* wb = p.leaf().as<BlockRealizeNode>()->block.get();
  std::unordered_set<const Object*> readers;
  for (const BlockRealizeNode* r : AllBlocks(f->body)) {
    const BlockNode* b = r->block.get();
    if (b == wb || !ChildBlocks(b->body).empty()) continue;
    std::vector<Array<PrimExpr>> acc;
    CollectAccesses(b->body, buf.get(), true, false, &acc);
    if (!acc.empty()) readers.insert(r);
  }
  size_t start = 0;
  for (size_t i = 0; i + 1 < p.stack.size(); ++i) {
    if (p.stack[i].as<BlockNode>()) start = i + 1;
  }
  Stmt where = p.leaf();
  for (size_t i = start; i < p.stack.size(); ++i) {
    const Stmt& s = p.stack[i];
    if (!s.as<ForNode>() && !s.as<BlockRealizeNode>()) continue;
    bool holds = false;
    for (const BlockRealizeNode* r : AllBlocks(s)) holds |= readers.count(r) > 0;
    if (!holds) {
      where = s;
      break;
    }
  }
  return Replace(f, where.get(), MakeSeq({where, nest}));
}

Array<Any> CacheRead(const PrimFunc& f, const std::string& block, int64_t index, const std::string& scope_name,
                     const Array<String>& consumers) {
  const char* prim = "cache_read";
  CheckScope(scope_name, prim);
  StmtPath p = FindBlock(f, block, prim);
  const BlockNode* b = p.leaf().as<BlockRealizeNode>()->block.get();
  if (index < 0 || index >= static_cast<int64_t>(b->reads.size())) {
    TVM_SCHEDULE_ERROR(prim) << "block \"" << block << "\" reads " << b->reads.size() << " buffers; index " << index
                             << " is out of range";
  }
  Buffer buf = b->reads[index]->buffer;
  std::string cname = std::string(buf->name) + "_" + scope_name;
  Buffer cache = MakeBufferLike(buf, cname, buf->shape, scope_name);
  std::string bname = FreshBlockName(f, cname);
  const BlockNode* scope = p.ParentBlock();
  // Readers to redirect: the given consumers, else every block of the scope reading buf.
  std::vector<const BlockRealizeNode*> readers;
  const BlockRealizeNode* producer = nullptr;
  for (const BlockRealizeNode* r : AllBlocks(scope->body)) {
    bool reads = false, writes = false;
    for (const BufferRegion& x : r->block->reads) reads |= x->buffer.same_as(buf);
    for (const BufferRegion& x : r->block->writes) writes |= x->buffer.same_as(buf);
    if (writes) producer = r;
    bool chosen = consumers.empty();
    for (const String& c : consumers) chosen |= std::string(c) == std::string(r->block->name_hint);
    if (reads && chosen) readers.push_back(r);
  }
  for (const String& c : consumers) FindBlock(f, std::string(c), prim);
  PrimFunc out = f;
  for (const BlockRealizeNode* r : readers) {
    std::string n(r->block->name_hint);
    const BlockRealizeNode* cur = FindBlock(out, n, prim).leaf().as<BlockRealizeNode>();
    out = Replace(out, cur->block.get(), ReplaceBuffer(cur->block, buf, cache));
  }
  if (producer != nullptr) {
    out = InsertAfterWriter(out, std::string(producer->block->name_hint), cache, CopyNest(bname, buf, cache), prim);
  } else {
    StmtPath p2 = FindBlock(out, block, prim);
    out = InsertFirstInScope(out, p2.ParentBlock(), CopyNest(bname, buf, cache));
  }
  return Array<Any>{AddRootAlloc(out, cache), String(bname)};
}

Array<Any> CacheWrite(const PrimFunc& f, const std::string& block, int64_t index, const std::string& scope_name) {
  const char* prim = "cache_write";
  CheckScope(scope_name, prim);
  StmtPath p = FindBlock(f, block, prim);
  const BlockRealizeNode* r = p.leaf().as<BlockRealizeNode>();
  const BlockNode* b = r->block.get();
  if (index < 0 || index >= static_cast<int64_t>(b->writes.size())) {
    TVM_SCHEDULE_ERROR(prim) << "block \"" << block << "\" writes " << b->writes.size() << " buffers; index "
                             << index << " is out of range";
  }
  Buffer buf = b->writes[index]->buffer;
  CheckSingleWriter(f, b, buf, prim);
  std::string cname = std::string(buf->name) + "_" + scope_name;
  Buffer cache = MakeBufferLike(buf, cname, buf->shape, scope_name);
  std::string bname = FreshBlockName(f, cname);
  PrimFunc out = Replace(f, b, ReplaceBuffer(r->block, buf, cache));
  out = InsertAfterWriter(out, block, buf, CopyNest(bname, cache, buf), prim);
  return Array<Any>{AddRootAlloc(out, cache), String(bname)};
}

}  // namespace

TVM_FFI_STATIC_INIT_BLOCK() {
  RegisterCompilerGlobal("tir.schedule.CacheRead", [](PrimFunc f, std::string block, int64_t index,
                                                      std::string scope, Array<String> consumers) {
    return CacheRead(f, block, index, scope, consumers);
  });
  RegisterCompilerGlobal("tir.schedule.CacheWrite", [](PrimFunc f, std::string block, int64_t index,
                                                       std::string scope) {
    return CacheWrite(f, block, index, scope);
  });
}

}  // namespace tir
}  // namespace tvm
