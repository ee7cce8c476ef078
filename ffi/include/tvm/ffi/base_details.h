/*
 * Small macros and helpers shared by the C++ headers. Nothing here is part of the C ABI.
 */
#ifndef TVM_FFI_BASE_DETAILS_H_
#define TVM_FFI_BASE_DETAILS_H_

#include <tvm/ffi/c_api.h>
#include <tvm/ffi/extra/c_env_api.h>

#include <cstddef>
#include <cstdint>
#include <utility>

#if defined(_MSC_VER)
#define TVM_FFI_INLINE __forceinline
#define TVM_FFI_NO_INLINE __declspec(noinline)
#define TVM_FFI_FUNC_SIG __FUNCSIG__
#else
#define TVM_FFI_INLINE inline __attribute__((always_inline))
#define TVM_FFI_NO_INLINE __attribute__((noinline))
#define TVM_FFI_FUNC_SIG __PRETTY_FUNCTION__
#endif

#define TVM_FFI_LIKELY(x) __builtin_expect(!!(x), 1)
#define TVM_FFI_UNLIKELY(x) __builtin_expect(!!(x), 0)

#define TVM_FFI_STR_CONCAT_(a, b) a##b
#define TVM_FFI_STR_CONCAT(a, b) TVM_FFI_STR_CONCAT_(a, b)

/*!
 * \brief Runs a block of code once when the binary that contains it is loaded (a static
 * initialiser). Used for registrations.
 */
#define TVM_FFI_STATIC_INIT_BLOCK()                                                          \
  static void TVM_FFI_STR_CONCAT(__TVMFFIStaticInitFunc, __LINE__)();                        \
  [[maybe_unused]] static const int TVM_FFI_STR_CONCAT(__TVMFFIStaticInitReg, __LINE__) = \
      (TVM_FFI_STR_CONCAT(__TVMFFIStaticInitFunc, __LINE__)(), 0);                          \
  static void TVM_FFI_STR_CONCAT(__TVMFFIStaticInitFunc, __LINE__)()

namespace tvm {
namespace ffi {
namespace details {

/*! \brief Atomic helpers on the packed strong/weak reference word. */
TVM_FFI_INLINE uint64_t AtomicFetchAdd(uint64_t* p, uint64_t v, int order) {
  return __atomic_fetch_add(p, v, order);
}
TVM_FFI_INLINE uint64_t AtomicFetchSub(uint64_t* p, uint64_t v, int order) {
  return __atomic_fetch_sub(p, v, order);
}
TVM_FFI_INLINE uint64_t AtomicLoadRelaxed(const uint64_t* p) {
  return __atomic_load_n(p, __ATOMIC_RELAXED);
}

/*! \brief Integer-to-bytes views for the whole-word hashing below. */
TVM_FFI_INLINE TVMFFIByteArray MakeByteArray(const char* data, size_t size) {
  TVMFFIByteArray out;
  out.data = data;
  out.size = size;
  return out;
}

/*!
 * \brief Hash of a byte range, the ABI's rule (Map keys built by any binary must agree):
 * fold 8-byte little-endian words as r = (r * 1099511628211 + word) % 2147483647; a short tail is
 * zero-extended into one word.
 */
inline uint64_t StableHashBytes(const void* data, size_t size) {
  constexpr uint64_t kMultiplier = 1099511628211ULL;
  constexpr uint64_t kMod = 2147483647ULL;
  const unsigned char* p = static_cast<const unsigned char*>(data);
  uint64_t result = 0;
  size_t i = 0;
  for (; i + 8 <= size; i += 8) {
    uint64_t word = 0;
    for (int b = 7; b >= 0; --b) word = (word << 8) | p[i + b];
    result = (result * kMultiplier + word) % kMod;
  }
  if (i < size) {
    uint64_t word = 0;
    for (size_t b = size; b > i; --b) word = (word << 8) | p[b - 1];
    result = (result * kMultiplier + word) % kMod;
  }
  return result;
}

/*! \brief The ABI's hash combiner (boost style, 64-bit). */
TVM_FFI_INLINE uint64_t StableHashCombine(uint64_t key, uint64_t value) {
  return key ^ (value + 0x9e3779b9 + (key << 6) + (key >> 2));
}

}  // namespace details
}  // namespace ffi
}  // namespace tvm
#endif  // TVM_FFI_BASE_DETAILS_H_
