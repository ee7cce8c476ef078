/*
 * A ring allreduce on gloo's transport (its pairs and unbound buffers), used instead of
 * gloo::allreduce: Debian's libgloo keeps two segments of at most 1 MB in flight, so every
 * segment waits for a hand-off through gloo's event-loop thread, and on a small or busy
 * machine those hand-offs, not the bytes, set the pace (about half of torch.distributed's
 * bandwidth from 1 MB to 16 MB, benchmarks/disco_bench.py). Here a ring step posts all its
 * segments at once: reduce-scatter (p-1 steps: send one block to the right, receive the
 * next from the left into a scratch buffer and reduce it in, segment by segment as they
 * land), then allgather (p-1 steps, received straight into place).
 *
 * Out of place without a copy: every block but the rank's own is reduced exactly once on
 * this rank (out = in op what came from the left), the first step sends the own block
 * straight from `in`, and the allgather fills the rest of `out`. `in` is only read. (A
 * copy of in to out first, then an in-place ring, moved one more byte per byte reduced:
 * about a fifth of the memory traffic of a 4-rank ring.)
 */
#ifndef TVM_RUNTIME_EXTRA_CCL_GLOO_RING_ALLREDUCE_H_
#define TVM_RUNTIME_EXTRA_CCL_GLOO_RING_ALLREDUCE_H_

#include <gloo/context.h>

#include <chrono>
#include <cstddef>
#include <memory>

namespace tvm {
namespace runtime {
namespace disco_gloo {

/*! \brief c[i] = op(a[i], b[i]) for n elements (gloo's reduce-function signature). */
using ReduceFn = void (*)(void* c, const void* a, const void* b, size_t n);

/*!
 * \brief Reduces `n` elements of `elem_size` bytes at `in` across `ctx` with `fn` into `out`;
 * every rank ends with the result. `in` and `out` are the same buffer or do not overlap.
 * Throws gloo::IoException on a timeout or a broken peer. Keeps a per-thread scratch buffer
 * of one block (n / size elements), reused across calls.
 */
void RingAllreduce(const std::shared_ptr<gloo::Context>& ctx, const void* in, void* out, size_t n,
                   size_t elem_size, ReduceFn fn, std::chrono::milliseconds timeout);

}  // namespace disco_gloo
}  // namespace runtime
}  // namespace tvm
#endif  // TVM_RUNTIME_EXTRA_CCL_GLOO_RING_ALLREDUCE_H_
