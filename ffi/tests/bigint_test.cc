// Big integers: normalisation, Int for anything that fits in int64, word access.
#include <tvm/ffi/any.h>

#include <random>
#include <vector>

#include "test_util.h"

namespace {
using namespace tvm::ffi;
using tvm_ffi_test::TakeErrorKind;

Any FromWords(const std::vector<int64_t>& words) {
  TVMFFIByteArray in{reinterpret_cast<const char*>(words.data()), words.size() * 8};
  TVMFFIAny out;
  EXPECT_EQ(TVMFFIBigIntFromByteArray(&in, &out), 0);
  return Any::FromOwnedRaw(out);
}

std::vector<int64_t> Words(const Any& v) {
  TVMFFIByteArray arr = TVMFFIBigIntGetContentByteArray(v.raw());
  std::vector<int64_t> out(arr.size / 8);
  std::memcpy(out.data(), arr.data, arr.size);
  return out;
}

TEST(BigInt, ValuesThatFitAreInts) {
  EXPECT_EQ(FromWords({}).type_index(), kTVMFFIInt);
  EXPECT_EQ(FromWords({}).cast<int64_t>(), 0);
  Any v = FromWords({-5, -1, -1});  // redundant sign words
  EXPECT_EQ(v.type_index(), kTVMFFIInt);
  EXPECT_EQ(v.cast<int64_t>(), -5);
  Any w = FromWords({INT64_MAX, 0});
  EXPECT_EQ(w.type_index(), kTVMFFIInt);
}

TEST(BigInt, BeyondInt64KeepsMinimalWords) {
  // 2^63 needs a zero sign-guard word.
  Any v = FromWords({INT64_MIN, 0, 0, 0});
  ASSERT_EQ(v.type_index(), kTVMFFIBigInt);
  EXPECT_EQ(Words(v), (std::vector<int64_t>{INT64_MIN, 0}));
  // -2^64 - 1
  Any n = FromWords({-1, -2, -1});
  ASSERT_EQ(n.type_index(), kTVMFFIBigInt);
  EXPECT_EQ(Words(n), (std::vector<int64_t>{-1, -2}));
  EXPECT_EQ(Words(FromWords({7})), (std::vector<int64_t>{7}));
}

TEST(BigInt, RandomWordsRoundTrip) {
  std::mt19937_64 rng(99);
  for (int i = 0; i < 1000; ++i) {
    size_t n = 2 + rng() % 4;
    std::vector<int64_t> words(n);
    for (auto& w : words) w = static_cast<int64_t>(rng());
    Any v = FromWords(words);
    std::vector<int64_t> back = Words(v);
    // Re-extending the minimal form with sign words gives the input back.
    while (back.size() < words.size()) back.push_back(back.back() < 0 ? -1 : 0);
    EXPECT_EQ(back, words);
  }
}

TEST(BigInt, RejectsPartialWords) {
  char raw[5] = {1, 2, 3, 4, 5};
  TVMFFIByteArray in{raw, 5};
  TVMFFIAny out;
  EXPECT_EQ(TVMFFIBigIntFromByteArray(&in, &out), -1);
  EXPECT_EQ(TakeErrorKind(), "ValueError");
  TVMFFIAny none{};
  EXPECT_EQ(TVMFFIBigIntGetContentByteArray(&none).data, nullptr);
}

}  // namespace
