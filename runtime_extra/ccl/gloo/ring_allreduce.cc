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

// Segments of a block are sent as separate messages so that reducing one overlaps receiving
// the next; 4 MB keeps the hand-offs per byte low (measured best of 256 KB, 1 MB and 4 MB).
constexpr size_t kSegmentBytes = 4 << 20;

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
  const size_t seg = std::max<size_t>(1, kSegmentBytes / elem_size);
  auto lo = [&](int b) { return std::min(n, static_cast<size_t>(b) * block); };
  auto len = [&](int b) { return std::min(n, static_cast<size_t>(b + 1) * block) - lo(b); };
  thread_local std::vector<char> scratch;
  const char* src = static_cast<const char*>(in);
  char* bytes = static_cast<char*>(out);
  if (scratch.size() < block * elem_size) scratch.resize(block * elem_size);
  auto dst = ctx->createUnboundBuffer(out, n * elem_size);
  // Sends only read: the first step's own block goes out of `in` (the same buffer in place).
  auto own = in == out ? nullptr : ctx->createUnboundBuffer(const_cast<void*>(in), n * elem_size);
  auto tmp = ctx->createUnboundBuffer(scratch.data(), block * elem_size);
  // Both phases' slots, the same on every rank (collectives run in the same order on all).
  const uint64_t slot = ctx->nextSlot(2);
  // Block b travels the ring; at step s rank r sends block r - s and receives block r - s - 1.
  for (int s = 0; s < p - 1; ++s) {
    const int sb = (r - s + 2 * p) % p, rb = (r - s - 1 + 2 * p) % p;
    // Step 0 sends this rank's own block, not reduced here: from `in`. Later steps send the
    // block reduced at the step before, from `out`.
    gloo::transport::UnboundBuffer* from = s == 0 && own ? own.get() : dst.get();
    int sends = 0, recvs = 0;
    for (size_t o = 0; o < len(rb); o += seg, ++recvs) {
      tmp->recv(left, slot, o * elem_size, std::min(seg, len(rb) - o) * elem_size);
    }
    for (size_t o = 0; o < len(sb); o += seg, ++sends) {
      from->send(right, slot, (lo(sb) + o) * elem_size, std::min(seg, len(sb) - o) * elem_size);
    }
    // Segments from one peer on one slot complete in the order they were posted.
    for (size_t i = 0, o = 0; i < static_cast<size_t>(recvs); ++i, o += seg) {
      Wait(tmp->waitRecv(timeout), "receive");
      size_t at = (lo(rb) + o) * elem_size;
      fn(bytes + at, src + at, scratch.data() + o * elem_size, std::min(seg, len(rb) - o));
    }
    for (int i = 0; i < sends; ++i) Wait(from->waitSend(timeout), "send");
  }
  // Rank r now holds the sum of block r + 1; pass the finished blocks around.
  for (int s = 0; s < p - 1; ++s) {
    const int sb = (r + 1 - s + 2 * p) % p, rb = (r - s + 2 * p) % p;
    int sends = 0, recvs = 0;
    for (size_t o = 0; o < len(rb); o += seg, ++recvs) {
      dst->recv(left, slot + 1, (lo(rb) + o) * elem_size, std::min(seg, len(rb) - o) * elem_size);
    }
    for (size_t o = 0; o < len(sb); o += seg, ++sends) {
      dst->send(right, slot + 1, (lo(sb) + o) * elem_size, std::min(seg, len(sb) - o) * elem_size);
    }
    for (int i = 0; i < recvs; ++i) Wait(dst->waitRecv(timeout), "receive");
    for (int i = 0; i < sends; ++i) Wait(dst->waitSend(timeout), "send");
  }
}

}  // namespace disco_gloo
}  // namespace runtime
}  // namespace tvm
