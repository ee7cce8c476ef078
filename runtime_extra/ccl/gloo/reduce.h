/*
 * Allreduce by element type: TVM's ReduceKind (0 sum, 1 prod, 2 min,
 * 3 max, 4 avg = sum / the communicator's size; integers truncate toward zero). float16 and
 * bfloat16 are reduced in float32 (half.h).
 */
#ifndef TVM_RUNTIME_EXTRA_CCL_GLOO_REDUCE_H_
#define TVM_RUNTIME_EXTRA_CCL_GLOO_REDUCE_H_

#include <dlpack/dlpack.h>
#include <gloo/context.h>

#include <chrono>
#include <memory>

namespace tvm {
namespace runtime {
namespace disco_gloo {

/*! \brief Whether allreduce supports `dtype` (scalar float16/bfloat16/float32/float64, int8-64, uint8-64). */
bool ReducibleType(DLDataType dtype);

/*!
 * \brief Reduces `numel` elements at `in` across `ctx` into `out` (the same buffer, or two that
 * do not overlap); every rank gets the result.
 */
void Allreduce(const std::shared_ptr<gloo::Context>& ctx, DLDataType dtype, const void* in,
               void* out, size_t numel, int kind, std::chrono::milliseconds timeout);

}  // namespace disco_gloo
}  // namespace runtime
}  // namespace tvm
#endif  // TVM_RUNTIME_EXTRA_CCL_GLOO_REDUCE_H_
