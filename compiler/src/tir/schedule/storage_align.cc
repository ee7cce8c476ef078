/*
 * storage_align(block, buffer_index, axis, factor, offset): the buffer the block writes gets,
 * when it is allocated, a padded stride on `axis` such that stride % factor == offset (TVM's
 * semantics; e.g. shared-memory rows padded to avoid bank conflicts, or CPU rows off a
 * power-of-two stride to avoid cache-set conflicts). Recorded as the block annotation
 * "buffer_dim_align" ([[buffer_index, axis, factor, offset], ...]) and applied by
 * CompactBufferAllocation.
 */
#include "../../support/registry.h"
#include "utils.h"

namespace tvm {
namespace tir {
namespace {

PrimFunc StorageAlign(const PrimFunc& f, const std::string& name, int64_t buffer_index, int64_t axis,
                      int64_t factor, int64_t offset) {
  const char* prim = "storage_align";
  StmtPath p = FindBlock(f, name, prim);
  const BlockNode* b = p.leaf().as<BlockRealizeNode>()->block.get();
  if (buffer_index < 0 || buffer_index >= static_cast<int64_t>(b->writes.size())) {
    TVM_SCHEDULE_ERROR(prim) << "block \"" << name << "\" writes " << b->writes.size() << " buffers; index "
                             << buffer_index << " is out of range";
  }
  Buffer buf = b->writes[buffer_index]->buffer;
  if (IsParamBuffer(f, buf)) {
    TVM_SCHEDULE_ERROR(prim) << std::string(buf->name) << " is an argument of the function (its layout is the caller's)";
  }
  int64_t nd = static_cast<int64_t>(buf->shape.size());
  if (axis < 0) axis += nd;
  if (axis < 0 || axis >= nd - 1) {
    TVM_SCHEDULE_ERROR(prim) << "axis must be a dimension of " << std::string(buf->name)
                             << " other than the last (it has " << nd << ")";
  }
  if (factor <= 0 || offset < 0 || offset >= factor) {
    TVM_SCHEDULE_ERROR(prim) << "need factor > 0 and 0 <= offset < factor, got " << factor << ", " << offset;
  }
  Array<Any> entries;
  if (std::optional<Any> old = b->annotations.Get(String("buffer_dim_align"))) {
    for (const Any& e : old->cast<Array<Any>>()) {
      Array<Any> v = e.cast<Array<Any>>();
      if (!(v[0].cast<int64_t>() == buffer_index && v[1].cast<int64_t>() == axis)) entries.push_back(e);
    }
  }
  entries.push_back(Array<Any>{buffer_index, axis, factor, offset});
  Map<String, Any> ann = b->annotations;
  ann.Set(String("buffer_dim_align"), entries);
  return Replace(f, b, MakeBlock(b->iter_vars, b->reads, b->writes, name, b->body, b->init, b->alloc_buffers, ann));
}

}  // namespace

TVM_FFI_STATIC_INIT_BLOCK() {
  RegisterCompilerGlobal("tir.schedule.StorageAlign", [](PrimFunc f, std::string block, int64_t buffer_index,
                                                         int64_t axis, int64_t factor, int64_t offset) {
    return StorageAlign(f, block, buffer_index, axis, factor, offset);
  });
}

}  // namespace tir
}  // namespace tvm
