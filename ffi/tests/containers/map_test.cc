#include <gtest/gtest.h>
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/dict.h>
#include <tvm/ffi/container/map.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "ffi/tests/containers/container_test_util.h"

namespace {

using namespace tvm::ffi;
using tvm::ffi::testing::ErrorKindOf;
using tvm::ffi::testing::ObjOf;
using tvm::ffi::testing::HeapString;
using tvm::ffi::testing::RawMap;

constexpr uint64_t kFib = 11400714819323198485ULL;

template <typename K, typename V>
std::vector<K> Keys(const Map<K, V>& m) {
  std::vector<K> out;
  for (auto kv : m) out.push_back(kv.first);
  return out;
}

uint64_t HashOf(const Any& key) { return details::AnyHash(key.raw()); }
uint64_t HomeSlot(const Any& key, uint32_t fib_shift) { return (HashOf(key) * kFib) >> fib_shift; }

/*! \brief `count` int keys whose hashes agree in the top 10 bits: same home slot in every table
 * of up to 1024 slots. */
std::vector<int64_t> CollidingInts(size_t count, uint64_t top_bits_value) {
  std::vector<int64_t> out;
  for (int64_t i = 0; out.size() < count; ++i) {
    if (((HashOf(Any(i)) * kFib) >> 54) == top_bits_value) out.push_back(i);
  }
  return out;
}

TEST(Map, SmallLayout) {
  Map<Any, Any> m;
  RawMap raw(m);
  EXPECT_EQ(raw.type_index(), kTVMFFIMap);
  EXPECT_TRUE(raw.small());
  EXPECT_EQ(raw.capacity(), 2u);
  EXPECT_TRUE(raw.inline_data());
  EXPECT_EQ(raw.data_deleter(), nullptr);
  EXPECT_EQ(raw.size(), 0u);
  m.Set(1, "one");
  raw = RawMap(m);
  const TVMFFIAny* kv = reinterpret_cast<const TVMFFIAny*>(raw.data());
  EXPECT_EQ(kv[0].type_index, kTVMFFIInt);
  EXPECT_EQ(kv[0].v_int64, 1);
  EXPECT_EQ(kv[1].type_index, kTVMFFISmallStr);
  EXPECT_EQ(m->GetTypeKey(), "ffi.Map");
}

TEST(Map, IncrementalGrowthBoundaries) {
  Map<int, int> m;
  struct Expect { bool small; uint64_t cap; };
  std::vector<Expect> expect = {{true, 2}, {true, 2}, {true, 4}, {true, 4},
                                {false, 8}, {false, 8}, {false, 8}, {false, 16}};
  const Object* prev = m.get();
  for (int i = 0; i < 8; ++i) {
    m.Set(i, i * 10);
    RawMap raw(m);
    EXPECT_EQ(raw.small(), expect[i].small) << i;
    EXPECT_EQ(raw.capacity(), expect[i].cap) << i;
    EXPECT_EQ(raw.size(), static_cast<uint64_t>(i + 1));
    if (raw.small()) {
      EXPECT_TRUE(raw.inline_data());
    } else {
      EXPECT_EQ(raw.fib_shift(), 64u - (raw.capacity() == 8 ? 3u : 4u));
    }
    // A new object exactly when the capacity had to change.
    bool grew = i == 2 || i == 4 || i == 7;
    EXPECT_EQ(m.get() != prev, grew) << i;
    prev = m.get();
    std::vector<int> keys = Keys(m);
    for (int j = 0; j <= i; ++j) EXPECT_EQ(keys[j], j);
  }
}

TEST(Map, BulkConstructionLayout) {
  auto make = [](int n) {
    std::vector<std::pair<int, int>> pairs;
    for (int i = 0; i < n; ++i) pairs.emplace_back(i, i);
    return Map<int, int>(pairs.begin(), pairs.end());
  };
  // (RawMap reads raw memory: keep each map alive while it is inspected.)
  auto small_cap = [&](int n) {
    Map<int, int> m = make(n);
    RawMap raw(m);
    return raw.small() ? static_cast<int64_t>(raw.capacity()) : -1;
  };
  auto dense_slots = [&](int n) {
    Map<int, int> m = make(n);
    RawMap raw(m);
    return raw.small() ? -1 : static_cast<int64_t>(raw.capacity());
  };
  EXPECT_EQ(small_cap(0), 2);
  EXPECT_EQ(small_cap(1), 2);
  EXPECT_EQ(small_cap(2), 2);
  EXPECT_EQ(small_cap(3), 3);
  EXPECT_EQ(dense_slots(4), 8);
  EXPECT_EQ(dense_slots(5), 16);
  EXPECT_EQ(dense_slots(8), 16);
  EXPECT_EQ(dense_slots(1000), 2048);
  // Duplicates in the range: later value wins.
  Map<String, int> dup = {{"a", 1}, {"b", 2}, {"a", 3}};
  EXPECT_EQ(dup.size(), 2u);
  EXPECT_EQ(dup.at("a"), 3);
}

TEST(Map, KeyKindsAreDistinct) {
  Map<Any, Any> m;
  m.Set(1, "int");
  m.Set(true, "bool");
  m.Set(1.0, "float");
  m.Set(0, "zero");
  m.Set(false, "false");
  m.Set(Any(), "none");
  EXPECT_EQ(m.size(), 6u);
  EXPECT_EQ(m.at(1).cast<String>(), "int");
  EXPECT_EQ(m.at(true).cast<String>(), "bool");
  EXPECT_EQ(m.at(1.0).cast<String>(), "float");
  EXPECT_EQ(m.at(false).cast<String>(), "false");
  EXPECT_EQ(m.at(Any()).cast<String>(), "none");
  EXPECT_EQ(m.count(2), 0u);
}

TEST(Map, SmallAndHeapStringsAreEqualKeys) {
  for (bool dense : {false, true}) {
    Map<Any, Any> m;
    if (dense) {
      for (int i = 0; i < 10; ++i) m.Set(i, i);
    }
    m.Set(String("abc"), 1);
    EXPECT_EQ(m.count(HeapString("abc")), 1u);
    m.Set(HeapString("abc"), 2);  // overwrites: same key
    EXPECT_EQ(m.at(String("abc")).cast<int>(), 2);
    std::string long_text = "a string well beyond seven bytes";
    m.Set(HeapString(long_text), 3);
    EXPECT_EQ(m.at(HeapString(long_text)).cast<int>(), 3);  // a different object, same text
    EXPECT_EQ(m.at(String(long_text)).cast<int>(), 3);
    // Borrowed C strings and std::string look up by content too.
    EXPECT_EQ(m->count(AnyView("abc")), 1u);
    EXPECT_EQ(m->count(AnyView(long_text)), 1u);
    EXPECT_EQ(m.size(), dense ? 12u : 2u);
    // Bytes with the same content are a different key.
    EXPECT_EQ(m.count(Bytes("abc", 3)), 0u);
    EXPECT_EQ(String("abc").hash(), HashOf(HeapString("abc")) );
  }
}

TEST(Map, ThousandsOfKeys) {
  Map<int64_t, int64_t> m;
  const int64_t n = 5000;
  for (int64_t i = 0; i < n; ++i) m.Set(i * 7919, i);
  EXPECT_EQ(m.size(), static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) ASSERT_EQ(m.at(i * 7919), i);
  std::vector<int64_t> keys = Keys(m);
  for (int64_t i = 0; i < n; ++i) ASSERT_EQ(keys[i], i * 7919);
  for (int64_t i = 0; i < n; i += 2) m.erase(i * 7919);
  EXPECT_EQ(m.size(), static_cast<size_t>(n / 2));
  for (int64_t i = 0; i < n; ++i) ASSERT_EQ(m.count(i * 7919), static_cast<size_t>(i % 2));
  for (int64_t i = 0; i < n; i += 2) m.Set(i * 7919, -i);  // reinsert: appended
  keys = Keys(m);
  std::vector<int64_t> expect;
  for (int64_t i = 1; i < n; i += 2) expect.push_back(i * 7919);
  for (int64_t i = 0; i < n; i += 2) expect.push_back(i * 7919);
  EXPECT_EQ(keys, expect);
  EXPECT_EQ(m.at(2 * 7919), -2);
}

TEST(Map, ForcedHomeSlotCollisions) {
  std::vector<int64_t> same = CollidingInts(60, 123);
  Map<int64_t, int64_t> m;
  std::vector<int64_t> order;
  for (size_t i = 0; i < same.size(); ++i) {
    m.Set(same[i], static_cast<int64_t>(i));
    order.push_back(same[i]);
    m.Set(1000000 + static_cast<int64_t>(i), 0);  // unrelated keys interleaved
    order.push_back(1000000 + static_cast<int64_t>(i));
  }
  EXPECT_EQ(Keys(m), order);
  for (size_t i = 0; i < same.size(); ++i) ASSERT_EQ(m.at(same[i]), static_cast<int64_t>(i));
  // Erase chain members from the middle, the end and the head.
  std::vector<size_t> victims = {30, 59, 0, 1, 45, 2};
  for (size_t v : victims) {
    m.erase(same[v]);
    order.erase(std::find(order.begin(), order.end(), same[v]));
    EXPECT_EQ(Keys(m), order);
    for (size_t i = 0; i < same.size(); ++i) {
      // Erased so far: i appears in `victims` no later than v.
      auto victim_pos = [&](size_t x) { return std::find(victims.begin(), victims.end(), x); };
      bool gone = victim_pos(i) <= victim_pos(v);
      ASSERT_EQ(m.count(same[i]), gone ? 0u : 1u) << i;
    }
  }
  for (size_t v : victims) m.Set(same[v], -1);
  for (size_t i = 0; i < same.size(); ++i) ASSERT_EQ(m.count(same[i]), 1u);
}

TEST(Map, HomeSlotTakenByAnotherChain) {
  // 8 colliding keys built at once: dense, 16 slots, one chain on consecutive slots.
  std::vector<int64_t> chain = CollidingInts(8, 77);
  std::vector<std::pair<int64_t, int64_t>> pairs;
  for (int64_t k : chain) pairs.emplace_back(k, k);
  Map<int64_t, int64_t> m(pairs.begin(), pairs.end());
  RawMap raw(m);
  ASSERT_FALSE(raw.small());
  ASSERT_EQ(raw.capacity(), 16u);
  uint32_t shift = raw.fib_shift();
  uint64_t head = HomeSlot(Any(chain[0]), shift);
  EXPECT_EQ(raw.meta(head) & 0x80, 0);          // head of the chain
  EXPECT_NE(raw.meta((head + 1) % 16) & 0x80, 0);  // chain body
  // A key whose home is the body slot next to the head: the body must be moved away.
  int64_t intruder = -1;
  for (int64_t i = 1 << 20;; ++i) {
    if (HomeSlot(Any(i), shift) == (head + 1) % 16) {
      intruder = i;
      break;
    }
  }
  const Object* obj = m.get();
  m.Set(intruder, 42);
  EXPECT_EQ(m.get(), obj);  // unique, no growth: in place
  raw = RawMap(m);
  EXPECT_EQ(raw.capacity(), 16u);
  EXPECT_EQ(raw.meta((head + 1) % 16), 0);  // now a one-item chain head
  for (int64_t k : chain) EXPECT_EQ(m.at(k), k);
  EXPECT_EQ(m.at(intruder), 42);
  std::vector<int64_t> order = chain;
  order.push_back(intruder);
  EXPECT_EQ(Keys(m), order);
  for (int64_t k : chain) {
    m.erase(k);
    EXPECT_EQ(m.at(intruder), 42);
  }
  EXPECT_EQ(m.size(), 1u);
}

TEST(Map, IterationOrderAcrossRehashes) {
  Map<String, int> m;
  std::vector<String> order;
  for (int i = 0; i < 3000; ++i) {
    String key = "key-" + std::to_string(i * 31 % 3001);
    m.Set(key, i);
    order.push_back(key);
    if ((i & (i + 1)) == 0) {  // at every power of two - 1
      ASSERT_EQ(Keys(m), order) << i;
    }
  }
  EXPECT_EQ(Keys(m), order);
  // Backwards iteration walks the same list.
  std::vector<String> back;
  auto it = m.end();
  while (it != m.begin()) {
    --it;
    back.push_back((*it).first);
  }
  std::reverse(back.begin(), back.end());
  EXPECT_EQ(back, order);
}

TEST(Map, OverwriteOrderFollowsReference) {
  // Small layout: overwriting keeps the position.
  Map<int, int> small = {{1, 1}, {2, 2}, {3, 3}};
  small.Set(1, 10);
  EXPECT_EQ(Keys(small), (std::vector<int>{1, 2, 3}));
  // Dense layout (as in the reference implementation): the overwritten key moves to the end.
  Map<int, int> dense = {{1, 1}, {2, 2}, {3, 3}, {4, 4}, {5, 5}};
  dense.Set(1, 10);
  EXPECT_EQ(Keys(dense), (std::vector<int>{2, 3, 4, 5, 1}));
  EXPECT_EQ(dense.at(1), 10);
}

TEST(Map, CopyOnWrite) {
  Map<String, int> a = {{"x", 1}, {"y", 2}};
  const Object* a_obj = a.get();
  a.Set("x", 5);  // unique, existing key: in place
  EXPECT_EQ(a.get(), a_obj);
  Map<String, int> b = a;
  b.Set("z", 3);
  EXPECT_NE(ObjOf(b), ObjOf(a));
  EXPECT_EQ(a.size(), 2u);
  EXPECT_EQ(a.count("z"), 0u);
  EXPECT_EQ(b.at("z"), 3);
  Map<String, int> c = a;
  c.erase("x");
  EXPECT_EQ(a.at("x"), 5);
  EXPECT_EQ(c.count("x"), 0u);
  Map<String, int> d = a;
  d.erase("missing");  // nothing to erase: still shared
  EXPECT_EQ(ObjOf(d), ObjOf(a));
  // Dense maps too.
  Map<int, int> big;
  for (int i = 0; i < 100; ++i) big.Set(i, i);
  Map<int, int> snapshot = big;
  for (int i = 0; i < 100; i += 3) big.erase(i);
  big.Set(1000, 1);
  EXPECT_EQ(snapshot.size(), 100u);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(snapshot.at(i), i);
  EXPECT_EQ(Keys(snapshot).front(), 0);
  big.clear();
  EXPECT_TRUE(big.empty());
  EXPECT_EQ(snapshot.size(), 100u);
}

TEST(Map, LookupApi) {
  Map<String, int> m = {{"a", 1}};
  EXPECT_EQ(m["a"], 1);
  EXPECT_EQ(m.Get("a").value(), 1);
  EXPECT_FALSE(m.Get("b").has_value());
  EXPECT_TRUE(m.find("b") == m.end());
  EXPECT_EQ((*m.find("a")).second, 1);
  EXPECT_EQ(ErrorKindOf([&] { m.at("b"); }), "KeyError");
  EXPECT_EQ(ErrorKindOf([&] { Map<Any, Any>().at(1); }), "KeyError");
}

TEST(Map, AnyConversions) {
  Map<String, int> m = {{"a", 1}, {"bbbbbbbbbbbbbb", 2}};
  Any any = m;
  EXPECT_EQ(any.type_index(), kTVMFFIMap);
  EXPECT_EQ(ObjOf(any.cast<Map<String, int>>()), ObjOf(m));
  EXPECT_EQ(ObjOf(any.cast<Map<String, int64_t>>()), ObjOf(m));
  EXPECT_EQ(ObjOf(any.cast<Map<Any, Any>>()), ObjOf(m));
  Map<Any, Any> bools = {{Any(String("a")), Any(true)}};
  Map<String, int> converted = Any(bools).cast<Map<String, int>>();
  EXPECT_NE(ObjOf(converted), ObjOf(bools));
  EXPECT_EQ(converted.at("a"), 1);
  Map<Any, Any> bad = {{Any(1), Any(2)}};
  EXPECT_FALSE((Any(bad).as<Map<String, int>>().has_value()));
  Dict<String, int> dict = {{"d", 4}};
  Map<String, int> from_dict = Any(dict).cast<Map<String, int>>();
  EXPECT_NE(ObjOf(from_dict), ObjOf(dict));
  EXPECT_EQ(from_dict.at("d"), 4);
  EXPECT_EQ((TypeTraits<Map<String, int>>::TypeStr()), "Map<str, int>");
  EXPECT_FALSE((Any(Array<int>{}).as<Map<Any, Any>>().has_value()));
}

TEST(Map, RefcountsReturnToBaseline) {
  Array<Any> key_obj = {1};
  Array<Any> value_obj = {2};
  {
    Map<Any, Any> m;
    m.Set(key_obj, value_obj);
    for (int i = 0; i < 300; ++i) m.Set(i, value_obj);  // small -> dense -> rehashes
    EXPECT_EQ(key_obj.use_count(), 2);
    EXPECT_EQ(value_obj.use_count(), 302);
    Map<Any, Any> copy = m;
    copy.Set(key_obj, 0);  // COW copy then overwrite
    EXPECT_EQ(key_obj.use_count(), 3);
    EXPECT_EQ(value_obj.use_count(), 301 + 301);
    for (int i = 0; i < 300; i += 2) copy.erase(i);
    EXPECT_EQ(value_obj.use_count(), 301 + 151);
    m.Set(key_obj, key_obj);
    EXPECT_EQ(key_obj.use_count(), 4);
    EXPECT_EQ(value_obj.use_count(), 300 + 151);
    Map<Any, Any> small;
    small.Set(key_obj, value_obj);
    small.Set(1, value_obj);
    small.Set(2, value_obj);  // 2 -> 4 growth copies
    small.erase(1);
    EXPECT_EQ(value_obj.use_count(), 300 + 151 + 2);
  }
  EXPECT_EQ(key_obj.use_count(), 1);
  EXPECT_EQ(value_obj.use_count(), 1);
}

}  // namespace
