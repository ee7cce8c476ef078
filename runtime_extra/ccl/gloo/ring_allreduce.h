/*
 * A ring allreduce on gloo's transport (its pairs and unbound buffers), used instead of
 * gloo::allreduce: Debian's libgloo keeps two segments of at most 1 MB in flight, so every
 * segment waits for a hand-off through gloo's event-loop thread, and on a small or busy
 * machine those hand-offs, not the bytes, set the pace (about half of torch.distributed's
 * bandwidth from 1 MB to 16 MB, benchmarks/disco_bench.py).
 *
 * Reduce-scatter (p-1 steps: send one block to the right, receive the next from the left
 * into scratch and reduce it in), then allgather (p-1 steps, received straight into place).
 * Pipelined by segments (a quarter of a block, kept within 1-4 MB): a segment is reduced as it
 * lands and sent on at once, so the next step (and, after the last reduction, the
 * allgather) starts with the first segment, not when the whole block is in. Every receive
 * is posted ahead (the next step's into the other half of a two-block scratch, all of the
 * allgather's into place at the start), so a peer's send never waits for this rank to get
 * round to asking for it: gloo's TCP pair only writes data the receiver has announced a
 * buffer for, and an unannounced send costs a round of notices through both ranks'
 * event-loop threads. (The earlier ring posted a step's receives only when the step began
 * and sent a block only when all of it was reduced: with 4 ranks on 2 cores each step
 * waited for the slowest rank to be scheduled, 0.71x / 0.86x of torch at 4 / 16 MB.)
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
 * of two blocks (2 n / size elements; one with 2 ranks), reused across calls.
 */
void RingAllreduce(const std::shared_ptr<gloo::Context>& ctx, const void* in, void* out, size_t n,
                   size_t elem_size, ReduceFn fn, std::chrono::milliseconds timeout);

}  // namespace disco_gloo
}  // namespace runtime
}  // namespace tvm
#endif  // TVM_RUNTIME_EXTRA_CCL_GLOO_RING_ALLREDUCE_H_
