// String and Bytes: the 7/8-byte boundary, zeroed tails, NULs, hashing across both forms.
#include <tvm/ffi/any.h>

#include <random>

#include "test_util.h"

namespace {
using namespace tvm::ffi;
using tvm_ffi_test::TakeErrorKind;

TEST(String, SevenBytesInlineEightBytesOnHeap) {
  for (size_t n = 0; n <= 16; ++n) {
    std::string text(n, 'a');
    for (size_t i = 0; i < n; ++i) text[i] = static_cast<char>('a' + i);
    TVMFFIByteArray in{text.data(), text.size()};
    TVMFFIAny out;
    std::memset(&out, 0x5A, sizeof(out));  // garbage in, so every byte written is checked
    ASSERT_EQ(TVMFFIStringFromByteArray(&in, &out), 0);
    if (n <= 7) {
      EXPECT_EQ(out.type_index, kTVMFFISmallStr);
      EXPECT_EQ(out.small_str_len, n);
      for (size_t i = n; i < 8; ++i) EXPECT_EQ(out.v_bytes[i], 0) << "tail byte " << i;
    } else {
      EXPECT_EQ(out.type_index, kTVMFFIStr);
      EXPECT_EQ(out.zero_padding, 0u);
      const TVMFFIByteArray* cell = TVMFFIBytesGetByteArrayPtr(out.v_obj);
      EXPECT_EQ(cell->size, n);
      EXPECT_EQ(cell->data[n], '\0');  // heap text is NUL-terminated
      EXPECT_EQ(std::string(cell->data, cell->size), text);
    }
    String s = String::FromOwnedValue(out);
    EXPECT_EQ(std::string(s), text);
    EXPECT_EQ(s.c_str()[n], '\0');
  }
}

TEST(String, BytesWithEmbeddedNul) {
  std::string raw("a\0b\0c\0d\0e", 9);
  TVMFFIByteArray in{raw.data(), raw.size()};
  TVMFFIAny out;
  ASSERT_EQ(TVMFFIBytesFromByteArray(&in, &out), 0);
  EXPECT_EQ(out.type_index, kTVMFFIBytes);
  Bytes b = Bytes::FromOwnedValue(out);
  EXPECT_EQ(b.size(), 9u);
  EXPECT_EQ(std::string(b.data(), b.size()), raw);
  Bytes small(std::string("\0x\0", 3));
  EXPECT_FALSE(small.is_heap());
  EXPECT_EQ(small.size(), 3u);
}

TEST(String, SmallAndHeapFormsHashAndCompareEqual) {
  // A heap string with short content (as C++ code may produce) equals the small form.
  auto heap = make_inplace_array_object<StringObj, char>(4);
  char* dest = reinterpret_cast<char*>(heap.get()) + sizeof(StringObj);
  std::memcpy(dest, "abc", 4);
  heap->data = dest;
  heap->size = 3;
  TVMFFIAny heap_any;
  heap_any.type_index = kTVMFFIStr;
  heap_any.zero_padding = 0;
  heap_any.v_obj = details::ObjectUnsafe::GetHeader(heap.get());
  String small("abc");
  EXPECT_FALSE(small.is_heap());
  EXPECT_TRUE(details::AnyEqual(&heap_any, small.raw()));
  EXPECT_EQ(details::AnyHash(&heap_any), details::AnyHash(small.raw()));
  EXPECT_EQ(small.hash(), details::AnyHash(small.raw()));
  // Strings and bytes with the same content are different keys.
  Bytes b("abc");
  EXPECT_FALSE(details::AnyEqual(b.raw(), small.raw()));
}

TEST(String, HashOfSmallFormIsPayloadModPrime) {
  String s("xyz");
  uint64_t payload = s.raw()->v_uint64;
  EXPECT_EQ(details::AnyHash(s.raw()),
            details::StableHashCombine(kTVMFFIStr, payload % 2147483647ULL));
  // The byte hash of the same content equals the small-form rule (little endian words).
  EXPECT_EQ(details::StableHashBytes("xyz", 3), payload % 2147483647ULL);
}

TEST(String, RandomContentRoundTripsThroughAny) {
  std::mt19937 rng(1234);
  for (int iter = 0; iter < 2000; ++iter) {
    size_t n = rng() % 40;
    std::string text(n, '\0');
    for (char& c : text) c = static_cast<char>(rng() & 0xFF);
    Any a = String(text);
    EXPECT_EQ(a.type_index(), n <= 7 ? kTVMFFISmallStr : kTVMFFIStr);
    EXPECT_EQ(a.cast<std::string>(), text);
    Any copy = a;
    EXPECT_TRUE(copy == a);
    EXPECT_EQ(AnyHash()(copy), AnyHash()(a));
  }
}

TEST(String, NullInputIsAnError) {
  TVMFFIAny out;
  EXPECT_EQ(TVMFFIStringFromByteArray(nullptr, &out), -1);
  EXPECT_EQ(TakeErrorKind(), "ValueError");
  TVMFFIByteArray bad{nullptr, 5};
  EXPECT_EQ(TVMFFIBytesFromByteArray(&bad, &out), -1);
  EXPECT_EQ(TakeErrorKind(), "ValueError");
}

TEST(String, Comparisons) {
  String a("hello world, long enough for the heap");
  EXPECT_TRUE(a == "hello world, long enough for the heap");
  EXPECT_TRUE(a != "other");
  EXPECT_TRUE(std::string("x") == String("x"));
  EXPECT_TRUE(String("a") < String("b"));
  EXPECT_EQ((String("ab") + String("cd")).view(), "abcd");
}

}  // namespace
