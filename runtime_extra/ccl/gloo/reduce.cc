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
void Run(const std::shared_ptr<gloo::Context>& ctx, const void* in, void* out, size_t n, int kind,
         std::chrono::milliseconds timeout) {
  RingAllreduce(ctx, in, out, n, sizeof(T), Pick<T>(kind), timeout);
  if (kind == 4) {
    T* data = static_cast<T*>(out);
    for (size_t i = 0; i < n; ++i) data[i] = static_cast<T>(data[i] / static_cast<T>(ctx->size));
  }
}

/*! \brief A 16-bit float type through float32: widen, reduce, round back once. */
template <float (*Widen)(uint16_t), uint16_t (*Narrow)(float)>
void RunVia32(const std::shared_ptr<gloo::Context>& ctx, const void* in, void* out, size_t n,
              int kind, std::chrono::milliseconds timeout) {
  const uint16_t* src = static_cast<const uint16_t*>(in);
  std::vector<float> wide(n);
  for (size_t i = 0; i < n; ++i) wide[i] = Widen(src[i]);
  Run<float>(ctx, wide.data(), wide.data(), n, kind, timeout);
  uint16_t* dst = static_cast<uint16_t*>(out);
  for (size_t i = 0; i < n; ++i) dst[i] = Narrow(wide[i]);
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

void Allreduce(const std::shared_ptr<gloo::Context>& ctx, DLDataType t, const void* in,
               void* out, size_t n, int kind, std::chrono::milliseconds timeout) {
  TVM_FFI_ICHECK(ReducibleType(t));
  if (n == 0) return;
  if (t.code == kDLFloat) {
    if (t.bits == 16) return RunVia32<HalfToFloat, FloatToHalf>(ctx, in, out, n, kind, timeout);
    if (t.bits == 32) return Run<float>(ctx, in, out, n, kind, timeout);
    return Run<double>(ctx, in, out, n, kind, timeout);
  }
  if (t.code == kDLBfloat) return RunVia32<BFloatToFloat, FloatToBFloat>(ctx, in, out, n, kind, timeout);
  bool s = t.code == kDLInt;
  switch (t.bits) {
    case 8:
      return s ? Run<int8_t>(ctx, in, out, n, kind, timeout) : Run<uint8_t>(ctx, in, out, n, kind, timeout);
    case 16:
      return s ? Run<int16_t>(ctx, in, out, n, kind, timeout) : Run<uint16_t>(ctx, in, out, n, kind, timeout);
    case 32:
      return s ? Run<int32_t>(ctx, in, out, n, kind, timeout) : Run<uint32_t>(ctx, in, out, n, kind, timeout);
    default:
      return s ? Run<int64_t>(ctx, in, out, n, kind, timeout) : Run<uint64_t>(ctx, in, out, n, kind, timeout);
  }
}

}  // namespace disco_gloo
}  // namespace runtime
}  // namespace tvm
