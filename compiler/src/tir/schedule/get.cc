/*
 * Queries: get_block (existence), get_loops, get_child_blocks, get_producers, get_consumers,
 * get (the Block or For statement a handle names, TVM's `sch.get(rv)`).
 * Producers/consumers are the sibling blocks (same parent block) that write a buffer the
 * block reads / read a buffer it writes, in program order.
 */
#include "../../support/registry.h"
#include "utils.h"

namespace tvm {
namespace tir {
namespace {

Array<Var> GetLoops(const PrimFunc& f, const std::string& block) {
  StmtPath p = FindBlock(f, block, "get_loops");
  Array<Var> out;
  for (const ForNode* l : p.Loops()) out.push_back(l->loop_var);
  return out;
}

Array<String> Names(const std::vector<const BlockRealizeNode*>& v) {
  Array<String> out;
  for (const BlockRealizeNode* r : v) out.push_back(r->block->name_hint);
  return out;
}

// The blocks directly under a block (its body) or a loop.
Array<String> GetChildBlocks(const PrimFunc& f, const Any& parent) {
  if (auto name = parent.as<String>()) {
    StmtPath p = FindBlock(f, std::string(*name), "get_child_blocks");
    return Names(ChildBlocks(p.leaf().as<BlockRealizeNode>()->block->body));
  }
  Var loop = parent.cast<Var>();
  StmtPath p = FindLoop(f, loop, "get_child_blocks");
  return Names(ChildBlocks(p.leaf().as<ForNode>()->body));
}

bool Touches(const Array<BufferRegion>& rs, const Buffer& b) {
  for (const BufferRegion& r : rs) {
    if (r->buffer.same_as(b)) return true;
  }
  return false;
}

bool Reads(const BlockNode* b, const Buffer& buf) {
  if (Touches(b->reads, buf)) return true;
  // A reduction reads what it writes; its regions list it once, as a write.
  return false;
}

Array<String> Related(const PrimFunc& f, const std::string& block, bool producers) {
  StmtPath p = FindBlock(f, block, producers ? "get_producers" : "get_consumers");
  const BlockNode* self = p.leaf().as<BlockRealizeNode>()->block.get();
  const BlockNode* parent = p.ParentBlock();
  Array<String> out;
  for (const BlockRealizeNode* r : ChildBlocks(parent->body)) {
    const BlockNode* o = r->block.get();
    if (o == self) continue;
    bool rel = false;
    if (producers) {
      for (const BufferRegion& w : o->writes) rel |= Reads(self, w->buffer);
    } else {
      for (const BufferRegion& w : self->writes) rel |= Reads(o, w->buffer);
    }
    if (rel) out.push_back(o->name_hint);
  }
  return out;
}

}  // namespace

TVM_FFI_STATIC_INIT_BLOCK() {
  RegisterCompilerGlobal("tir.schedule.GetBlock", [](PrimFunc f, std::string name) {
    FindBlock(f, name, "get_block");
    return String(name);
  });
  RegisterCompilerGlobal("tir.schedule.Get", [](PrimFunc f, Any rv) -> Stmt {
    if (auto name = rv.as<String>()) {
      return FindBlock(f, std::string(*name), "get").leaf().as<BlockRealizeNode>()->block;
    }
    return FindLoop(f, rv.cast<Var>(), "get").leaf();
  });
  RegisterCompilerGlobal("tir.schedule.GetLoops", [](PrimFunc f, std::string block) { return GetLoops(f, block); });
  RegisterCompilerGlobal("tir.schedule.GetChildBlocks", [](PrimFunc f, Any parent) { return GetChildBlocks(f, parent); });
  RegisterCompilerGlobal("tir.schedule.GetProducers", [](PrimFunc f, std::string b) { return Related(f, b, true); });
  RegisterCompilerGlobal("tir.schedule.GetConsumers", [](PrimFunc f, std::string b) { return Related(f, b, false); });
}

}  // namespace tir
}  // namespace tvm
