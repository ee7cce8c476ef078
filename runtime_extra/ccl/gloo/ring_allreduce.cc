#include "ring_allreduce.h"

#include <gloo/common/error.h>
#include <gloo/transport/unbound_buffer.h>

#include <algorithm>
#include <cstring>
#include <vector>

namespace tvm {
namespace runtime {
namespace disco_gloo {

namespace {

// A block goes as segments of its own messages so that receiving, reducing and sending on
// overlap along the ring: a block / kSegmentsPerBlock each, kept within the bounds. Each
// message costs hand-offs through gloo's event loops, so on a busy machine fewer, larger
// segments win: measured on 2 and 4 ranks of a loaded 2-core machine (4 and 16 MB), 1 MB
// segments took 15-20% less CPU per op than 256 KB ones and were as fast or faster; 128 KB
// was worse again. Above 4 MB there is little left to overlap.
constexpr size_t kSegmentsPerBlock = 4;
constexpr size_t kMinSegmentBytes = 1 << 20;
constexpr size_t kMaxSegmentBytes = 4 << 20;

void Wait(bool ok, const char* what) {
  if (!ok) GLOO_THROW_IO_EXCEPTION(std::string("ring allreduce: ") + what + " aborted");
}

}  // namespace

void RingAllreduce(const std::shared_ptr<gloo::Context>& ctx, const void* in, void* out, size_t n,
                   size_t elem_size, ReduceFn fn, std::chrono::milliseconds timeout) {
  const int p = ctx->size, r = ctx->rank;
  if (n == 0) return;
  if (p == 1) {
    if (out != in) std::memcpy(out, in, n * elem_size);
    return;
  }
  const int right = (r + 1) % p, left = (r + p - 1) % p;
  const size_t block = (n + p - 1) / p;
  const size_t seg_bytes = std::min(kMaxSegmentBytes,
                                    std::max(kMinSegmentBytes, block * elem_size / kSegmentsPerBlock));
  const size_t seg = std::max<size_t>(1, seg_bytes / elem_size);
  auto lo = [&](int b) { return std::min(n, static_cast<size_t>(b) * block); };
  auto len = [&](int b) { return std::min(n, static_cast<size_t>(b + 1) * block) - lo(b); };
  auto mod = [&](int b) { return ((b % p) + p) % p; };
  // Reduce-scatter step s: send block r - s, receive block r - s - 1 (into scratch, reduced
  // into out). Allgather step s: send block r + 1 - s, receive block r - s (into out).
  auto rs_block = [&](int s) { return mod(r - s - 1); };
  auto ag_block = [&](int s) { return mod(r - s); };
  // Two halves of scratch: the receives of step s + 1 are posted while step s's are reduced.
  const int halves = std::min(2, p - 1);
  thread_local std::vector<char> scratch;
  if (scratch.size() < halves * block * elem_size) scratch.resize(halves * block * elem_size);
  const char* src = static_cast<const char*>(in);
  char* bytes = static_cast<char*>(out);
  auto dst = ctx->createUnboundBuffer(out, n * elem_size);
  // Sends only read: the first step's own block goes out of `in` (the same buffer in place).
  auto own = in == out ? nullptr : ctx->createUnboundBuffer(const_cast<void*>(in), n * elem_size);
  gloo::transport::UnboundBuffer* first = own ? own.get() : dst.get();
  auto tmp = ctx->createUnboundBuffer(scratch.data(), halves * block * elem_size);
  const uint64_t rs_slot = ctx->nextSlot(2), ag_slot = rs_slot + 1;
  int first_sends = 0, dst_sends = 0;
  auto post_rs_recvs = [&](int s) {
    const size_t base = static_cast<size_t>(s % halves) * block;
    for (size_t o = 0; o < len(rs_block(s)); o += seg) {
      tmp->recv(left, rs_slot, (base + o) * elem_size, std::min(seg, len(rs_block(s)) - o) * elem_size);
    }
  };
  // Every allgather receive lands in its own place in `out`: post them all now. None can
  // arrive before this rank is done with that place (the finished block it brings depends on
  // what this rank sent from there).
  for (int s = 0; s < p - 1; ++s) {
    const int b = ag_block(s);
    for (size_t o = 0; o < len(b); o += seg) {
      dst->recv(left, ag_slot, (lo(b) + o) * elem_size, std::min(seg, len(b) - o) * elem_size);
    }
  }
  for (int s = 0; s < halves; ++s) post_rs_recvs(s);
  // Step 0 sends this rank's own block, which it never reduces: straight from `in`.
  for (size_t o = 0; o < len(r); o += seg, ++first_sends) {
    first->send(right, rs_slot, (lo(r) + o) * elem_size, std::min(seg, len(r) - o) * elem_size);
  }
  // Segments from one peer on one slot complete in the order they were posted, so each
  // segment is reduced as it lands and sent on at once: the next step (or, after the last
  // reduction, the allgather) starts segment by segment, not when the whole block is in.
  for (int s = 0; s < p - 1; ++s) {
    const int b = rs_block(s);
    const size_t base = static_cast<size_t>(s % halves) * block;
    const uint64_t next_slot = s + 1 < p - 1 ? rs_slot : ag_slot;
    for (size_t o = 0; o < len(b); o += seg, ++dst_sends) {
      const size_t k = std::min(seg, len(b) - o);
      Wait(tmp->waitRecv(timeout), "receive");
      const size_t at = (lo(b) + o) * elem_size;
      fn(bytes + at, src + at, scratch.data() + (base + o) * elem_size, k);
      dst->send(right, next_slot, at, k * elem_size);
    }
    if (s + halves < p - 1) post_rs_recvs(s + halves);  // this half of scratch is free again
  }
  // Allgather: each finished segment is passed on as it arrives (the last step's are kept).
  for (int s = 0; s < p - 1; ++s) {
    const int b = ag_block(s);
    for (size_t o = 0; o < len(b); o += seg) {
      Wait(dst->waitRecv(timeout), "receive");
      if (s + 1 < p - 1) {
        dst->send(right, ag_slot, (lo(b) + o) * elem_size, std::min(seg, len(b) - o) * elem_size);
        ++dst_sends;
      }
    }
  }
  for (int i = 0; i < first_sends; ++i) Wait(first->waitSend(timeout), "send");
  for (int i = 0; i < dst_sends; ++i) Wait(dst->waitSend(timeout), "send");
}

}  // namespace disco_gloo
}  // namespace runtime
}  // namespace tvm
