#include <gtest/gtest.h>
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/dict.h>
#include <tvm/ffi/container/map.h>

#include <string>
#include <vector>

#include "ffi/tests/containers/container_test_util.h"

namespace {

using namespace tvm::ffi;
using tvm::ffi::testing::ErrorKindOf;
using tvm::ffi::testing::ObjOf;
using tvm::ffi::testing::HeapString;
using tvm::ffi::testing::RawMap;

template <typename K, typename V>
std::vector<K> Keys(const Dict<K, V>& d) {
  std::vector<K> out;
  for (auto kv : d) out.push_back(kv.first);
  return out;
}

TEST(Dict, GrowsInPlace) {
  Dict<int, int> d;
  Dict<int, int> alias = d;
  const Object* obj = d.get();
  RawMap raw(d);
  EXPECT_EQ(raw.type_index(), kTVMFFIDict);
  EXPECT_TRUE(raw.small());
  EXPECT_EQ(raw.capacity(), 2u);
  EXPECT_TRUE(raw.inline_data());
  for (int i = 0; i < 2000; ++i) {
    d.Set(i, i);
    ASSERT_EQ(d.get(), obj);  // never a new object
    raw = RawMap(d);
    if (i < 2) {
      EXPECT_TRUE(raw.small());
      EXPECT_TRUE(raw.inline_data());
    } else if (i < 4) {
      // 2 -> 4: the pairs now live inside a helper object that this Dict keeps alive.
      EXPECT_TRUE(raw.small());
      EXPECT_EQ(raw.capacity(), 4u);
      EXPECT_FALSE(raw.inline_data());
      EXPECT_NE(raw.data_deleter(), nullptr);
    } else {
      EXPECT_FALSE(raw.small());  // dense fields written over our own inline area
      if (i == 4) {
        EXPECT_EQ(raw.capacity(), 8u);
      }
    }
  }
  EXPECT_EQ(alias.size(), 2000u);
  std::vector<int> keys = Keys(alias);
  for (int i = 0; i < 2000; ++i) ASSERT_EQ(keys[i], i);
  EXPECT_EQ(d->GetTypeKey(), "ffi.Dict");
}

TEST(Dict, SharedMutation) {
  Dict<String, int> a;
  Dict<String, int> b = a;
  a.Set("x", 1);
  b.Set("y", 2);
  EXPECT_EQ(a.size(), 2u);
  EXPECT_EQ(a.at("y"), 2);
  b.erase("x");
  EXPECT_EQ(a.count("x"), 0u);
  a.Set(String("a-long-key-for-the-heap"), 3);
  EXPECT_EQ(b.at(String("a-long-key-for-the-heap")), 3);
  b.clear();
  EXPECT_TRUE(a.empty());
  EXPECT_EQ(ObjOf(a), ObjOf(b));
}

TEST(Dict, ClearKeepsWorkingInEveryLayout) {
  for (int n : {1, 3, 4, 5, 100}) {
    Dict<int, int> d;
    for (int i = 0; i < n; ++i) d.Set(i, i);
    bool was_small = RawMap(d).small();
    d.clear();
    EXPECT_EQ(d.size(), 0u);
    EXPECT_EQ(RawMap(d).small(), was_small);
    EXPECT_TRUE(d.begin() == d.end());
    for (int i = 0; i < n + 3; ++i) d.Set(-i, i);
    EXPECT_EQ(d.size(), static_cast<size_t>(n + 3));
    for (int i = 0; i < n + 3; ++i) EXPECT_EQ(d.at(-i), i);
  }
}

TEST(Dict, EraseAndReinsert) {
  Dict<Any, Any> d;
  for (int i = 0; i < 50; ++i) d.Set(i, i);
  for (int i = 0; i < 50; i += 5) d.erase(i);
  d.erase(12345);  // absent: no-op
  EXPECT_EQ(d.size(), 40u);
  for (int i = 0; i < 50; i += 5) d.Set(i, -i);
  EXPECT_EQ(d.size(), 50u);
  std::vector<Any> keys = Keys(d);
  EXPECT_EQ(keys.back().cast<int>(), 45);
  EXPECT_EQ(d.at(45).cast<int>(), -45);
  EXPECT_EQ(ErrorKindOf([&] { d.at(1000); }), "KeyError");
  EXPECT_FALSE(d.Get(1000).has_value());
}

TEST(Dict, KeyKinds) {
  Dict<Any, int> d;
  d.Set(1, 1);
  d.Set(true, 2);
  d.Set(String("str"), 3);
  EXPECT_EQ(d.size(), 3u);
  d.Set(HeapString("str"), 4);
  EXPECT_EQ(d.size(), 3u);
  EXPECT_EQ(d.at(String("str")), 4);
  EXPECT_EQ(d.at(true), 2);
}

TEST(Dict, AnyConversions) {
  Dict<String, int> d = {{"a", 1}};
  Any any = d;
  EXPECT_EQ(any.type_index(), kTVMFFIDict);
  EXPECT_EQ(ObjOf(any.cast<Dict<String, int>>()), ObjOf(d));
  EXPECT_EQ(ObjOf(any.cast<Dict<Any, Any>>()), ObjOf(d));
  Map<String, int> m = {{"m", 2}};
  Dict<String, int> from_map = Any(m).cast<Dict<String, int>>();
  EXPECT_NE(ObjOf(from_map), ObjOf(m));
  EXPECT_EQ(from_map.at("m"), 2);
  EXPECT_FALSE((Any(Dict<Any, Any>{{Any(1), Any("x")}}).as<Dict<int, int>>().has_value()));
  EXPECT_EQ((TypeTraits<Dict<int, Any>>::TypeStr()), "Dict<int, Any>");
}

TEST(Dict, RefcountsReturnToBaseline) {
  Array<Any> value = {0};
  Array<Any> key = {1};
  {
    Dict<Any, Any> d;
    d.Set(key, value);
    for (int i = 0; i < 500; ++i) d.Set(i, value);  // inline -> helper small -> dense -> rehashes
    EXPECT_EQ(value.use_count(), 502);
    EXPECT_EQ(key.use_count(), 2);
    for (int i = 0; i < 500; i += 2) d.erase(i);
    EXPECT_EQ(value.use_count(), 252);
    d.Set(key, 0);
    EXPECT_EQ(value.use_count(), 251);
    // A 2 -> 4 switched dict dies with its helper object.
    Dict<Any, Any> small;
    for (int i = 0; i < 3; ++i) small.Set(i, value);
    EXPECT_EQ(value.use_count(), 254);
    small.clear();
    EXPECT_EQ(value.use_count(), 251);
    small.Set(key, value);
  }
  EXPECT_EQ(value.use_count(), 1);
  EXPECT_EQ(key.use_count(), 1);
}

}  // namespace
