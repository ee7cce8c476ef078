#include "reduce.h"

#include <gloo/math.h>
#include <tvm/ffi/error.h>

#include <cstdint>
#include <type_traits>
#include <vector>

#include "half.h"
#include "ring_allreduce.h"

namespace tvm {
namespace runtime {
namespace disco_gloo {

namespace {

template <typename T>
ReduceFn Pick(int kind) {
  switch (kind) {
    case 0:
    case 4:
      return static_cast<ReduceFn>(&gloo::sum<T>);
    case 1:
      return static_cast<ReduceFn>(&gloo::product<T>);
    case 2:
      return static_cast<ReduceFn>(&gloo::min<T>);
    case 3:
      return static_cast<ReduceFn>(&gloo::max<T>);
  }
  TVM_FFI_THROW(ValueError) << "reduce kind must be 0..4 (sum, prod, min, max, avg), got " << kind;
}

template <typename T>
void Run(const std::shared_ptr<gloo::Context>& ctx, T* data, size_t n, int kind,
         std::chrono::milliseconds timeout) {
  RingAllreduce(ctx, data, n, sizeof(T), Pick<T>(kind), timeout);
  if (kind == 4) {
    for (size_t i = 0; i < n; ++i) data[i] = static_cast<T>(data[i] / static_cast<T>(ctx->size));
  }
}

/*! \brief A 16-bit float type through float32: widen, reduce, round back once. */
template <float (*Widen)(uint16_t), uint16_t (*Narrow)(float)>
void RunVia32(const std::shared_ptr<gloo::Context>& ctx, uint16_t* data, size_t n, int kind,
              std::chrono::milliseconds timeout) {
  std::vector<float> wide(n);
  for (size_t i = 0; i < n; ++i) wide[i] = Widen(data[i]);
  Run<float>(ctx, wide.data(), n, kind, timeout);
  for (size_t i = 0; i < n; ++i) data[i] = Narrow(wide[i]);
}

}  // namespace

bool ReducibleType(DLDataType t) {
  if (t.lanes != 1) return false;
  switch (t.code) {
    case kDLFloat:
      return t.bits == 16 || t.bits == 32 || t.bits == 64;
    case kDLBfloat:
      return t.bits == 16;
    case kDLInt:
    case kDLUInt:
      return t.bits == 8 || t.bits == 16 || t.bits == 32 || t.bits == 64;
  }
  return false;
}

void AllreduceInPlace(const std::shared_ptr<gloo::Context>& ctx, DLDataType t, void* data,
                      size_t n, int kind, std::chrono::milliseconds timeout) {
  TVM_FFI_ICHECK(ReducibleType(t));
  if (n == 0) return;
  if (t.code == kDLFloat) {
    if (t.bits == 16) return RunVia32<HalfToFloat, FloatToHalf>(ctx, static_cast<uint16_t*>(data), n, kind, timeout);
    if (t.bits == 32) return Run(ctx, static_cast<float*>(data), n, kind, timeout);
    return Run(ctx, static_cast<double*>(data), n, kind, timeout);
  }
  if (t.code == kDLBfloat) {
    return RunVia32<BFloatToFloat, FloatToBFloat>(ctx, static_cast<uint16_t*>(data), n, kind, timeout);
  }
  bool s = t.code == kDLInt;
  switch (t.bits) {
    case 8:
      return s ? Run(ctx, static_cast<int8_t*>(data), n, kind, timeout)
               : Run(ctx, static_cast<uint8_t*>(data), n, kind, timeout);
    case 16:
      return s ? Run(ctx, static_cast<int16_t*>(data), n, kind, timeout)
               : Run(ctx, static_cast<uint16_t*>(data), n, kind, timeout);
    case 32:
      return s ? Run(ctx, static_cast<int32_t*>(data), n, kind, timeout)
               : Run(ctx, static_cast<uint32_t*>(data), n, kind, timeout);
    default:
      return s ? Run(ctx, static_cast<int64_t*>(data), n, kind, timeout)
               : Run(ctx, static_cast<uint64_t*>(data), n, kind, timeout);
  }
}

}  // namespace disco_gloo
}  // namespace runtime
}  // namespace tvm
