/*
 * float16 / bfloat16 <-> float32, round to nearest even. gloo has no bfloat16 and no float16
 * min/max, so 16-bit floats are reduced in float32 (one rounding at the end, which is also
 * closer to the exact result than a reduction in 16 bits at every step).
 */
#ifndef TVM_RUNTIME_EXTRA_CCL_GLOO_HALF_H_
#define TVM_RUNTIME_EXTRA_CCL_GLOO_HALF_H_

#include <cmath>
#include <cstdint>
#include <cstring>

namespace tvm {
namespace runtime {
namespace disco_gloo {

inline uint32_t FloatBits(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  return x;
}

inline float BitsFloat(uint32_t x) {
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

inline float HalfToFloat(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000) << 16;
  int exp = (h >> 10) & 0x1f;
  uint32_t mant = h & 0x3ff;
  float v;
  if (exp == 0) {
    v = std::ldexp(static_cast<float>(mant), -24);  // zero or subnormal
  } else if (exp == 31) {
    return BitsFloat(sign | 0x7f800000u | (mant << 13));  // inf or nan
  } else {
    v = std::ldexp(static_cast<float>(mant | 0x400), exp - 25);
  }
  return BitsFloat(FloatBits(v) | sign);
}

inline uint16_t FloatToHalf(float f) {
  uint32_t x = FloatBits(f);
  uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000);
  x &= 0x7fffffffu;
  if (x >= 0x7f800000u) return sign | (x > 0x7f800000u ? 0x7e00 : 0x7c00);  // nan, inf
  if (x >= 0x477ff000u) return sign | 0x7c00;                                // rounds past 65504
  if (x < 0x38800000u) {  // below 2^-14: a subnormal half (exact scaling, then nearest even)
    return sign | static_cast<uint16_t>(std::nearbyint(BitsFloat(x) * 16777216.0f));
  }
  uint32_t r = x - 0x38000000u;  // exponent bias 127 -> 15
  r += 0x0fffu + ((r >> 13) & 1u);
  return sign | static_cast<uint16_t>(r >> 13);
}

inline float BFloatToFloat(uint16_t b) { return BitsFloat(static_cast<uint32_t>(b) << 16); }

inline uint16_t FloatToBFloat(float f) {
  uint32_t x = FloatBits(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((x >> 16) | 0x40);  // quiet nan
  x += 0x7fffu + ((x >> 16) & 1u);
  return static_cast<uint16_t>(x >> 16);
}

}  // namespace disco_gloo
}  // namespace runtime
}  // namespace tvm
#endif  // TVM_RUNTIME_EXTRA_CCL_GLOO_HALF_H_
