/*
 * Property test: random insert/overwrite/erase/lookup/clear sequences on Map and Dict, mirrored
 * against std::unordered_map (content) and a model of the iteration order:
 *   new key -> appended; erase -> removed; overwrite -> stays in place in the small layout, moves
 *   to the end in the dense layout (and when a full 4-slot small map turns dense).
 * Map runs also keep copy-on-write snapshots that must never change.
 */
#include <gtest/gtest.h>
#include <tvm/ffi/container/dict.h>
#include <tvm/ffi/container/map.h>

#include <algorithm>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include "ffi/tests/containers/container_test_util.h"

namespace {

using namespace tvm::ffi;
using tvm::ffi::testing::HeapString;
using tvm::ffi::testing::RawMap;

using Oracle = std::unordered_map<Any, Any, AnyHash, AnyEqual>;

/*! \brief A key drawn from a pool of `range` values of mixed kinds. */
Any RandomKey(std::mt19937_64& rng, int range) {
  int64_t i = static_cast<int64_t>(rng() % static_cast<uint64_t>(range));
  switch (rng() % 8) {
    case 0:
    case 1:
    case 2:
      return Any(i);
    case 3:
      return Any(String("s" + std::to_string(i % 1000)));  // small string
    case 4:
      return HeapString("s" + std::to_string(i % 1000));   // same text, heap object
    case 5:
      return Any(String("long-string-key-" + std::to_string(i)));
    case 6:
      return Any(static_cast<bool>(i & 1));
    default:
      return Any(static_cast<double>(i) / 4);
  }
}

/*! \brief The container under test, seen through one interface. */
template <typename MapType>
struct Subject {
  MapType m;
  void Set(const Any& k, const Any& v) { m.Set(k, v); }
  void Erase(const Any& k) { m.erase(k); }
  void Clear() { m.clear(); }
};

struct Model {
  Oracle content;
  std::vector<Any> order;
  void Set(const Any& k, const Any& v, bool overwrite_moves) {
    auto it = content.find(k);
    if (it == content.end()) {
      content.emplace(k, v);
      order.push_back(k);
      return;
    }
    it->second = v;
    if (overwrite_moves) {
      auto pos = std::find(order.begin(), order.end(), k);
      Any kept = *pos;  // the stored key object stays the original one
      order.erase(pos);
      order.push_back(kept);
    }
  }
  void Erase(const Any& k) {
    if (content.erase(k) == 0) return;
    order.erase(std::find(order.begin(), order.end(), k));
  }
  void Clear() {
    content.clear();
    order.clear();
  }
};

template <typename MapType>
void CheckSame(const MapType& m, const Model& model) {
  ASSERT_EQ(m.size(), model.content.size());
  size_t i = 0;
  for (auto kv : m) {
    ASSERT_LT(i, model.order.size());
    ASSERT_TRUE(kv.first == model.order[i]) << "position " << i;
    ASSERT_TRUE(kv.second == model.content.at(kv.first));
    ++i;
  }
  ASSERT_EQ(i, model.order.size());
}

template <typename MapType>
void RunRandom(uint64_t seed, int num_ops, int key_range, uint64_t clear_permille, bool snapshots) {
  std::mt19937_64 rng(seed);
  Subject<MapType> s;
  Model model;
  std::vector<std::pair<MapType, Model>> frozen;
  for (int op = 0; op < num_ops; ++op) {
    uint64_t r = rng() % 1000;
    Any key = RandomKey(rng, key_range);
    if (r < 600) {
      Any value(static_cast<int64_t>(rng()));
      RawMap raw(s.m);
      bool moves = !raw.small() || raw.size() >= 4;
      s.Set(key, value);
      model.Set(key, value, moves);
    } else if (r < 950) {
      if (!model.order.empty() && rng() % 3 != 0) key = model.order[rng() % model.order.size()];
      s.Erase(key);
      model.Erase(key);
    } else if (r < 950 + clear_permille) {
      s.Clear();
      model.Clear();
    } else if (snapshots && r < 960 + clear_permille) {
      frozen.emplace_back(s.m, model);
    }
    // Lookups of a random (maybe absent) key and of a present one.
    for (int probe = 0; probe < 2; ++probe) {
      Any q = probe == 0 || model.order.empty() ? RandomKey(rng, key_range)
                                                : model.order[rng() % model.order.size()];
      auto it = model.content.find(q);
      std::optional<Any> got = s.m.Get(q);
      ASSERT_EQ(got.has_value(), it != model.content.end()) << "seed " << seed << " op " << op;
      if (got.has_value()) {
        ASSERT_TRUE(*got == it->second);
      }
      ASSERT_EQ(s.m.count(q), it != model.content.end() ? 1u : 0u);
    }
    ASSERT_EQ(s.m.size(), model.content.size()) << "seed " << seed << " op " << op;
    if (op % 97 == 0) CheckSame(s.m, model);
  }
  CheckSame(s.m, model);
  for (auto& [snapshot, snapshot_model] : frozen) CheckSame(snapshot, snapshot_model);
}

class MapRandom : public ::testing::TestWithParam<uint64_t> {};

// Small key spaces keep maps around the small/dense boundary; large ones grow to thousands of
// entries (no clears) through many rehashes.
using AnyMap = Map<Any, Any>;
using AnyDict = Dict<Any, Any>;
// Arguments: seed, operations, key range, clears per 1000 operations, keep COW snapshots.
TEST_P(MapRandom, SmallKeySpace) { RunRandom<AnyMap>(GetParam(), 3000, 6, 5, true); }
TEST_P(MapRandom, MediumKeySpace) { RunRandom<AnyMap>(GetParam(), 4000, 150, 2, true); }
TEST_P(MapRandom, LargeKeySpace) { RunRandom<AnyMap>(GetParam(), 8000, 20000, 0, true); }
TEST_P(MapRandom, DictSmallKeySpace) { RunRandom<AnyDict>(GetParam(), 3000, 6, 5, false); }
TEST_P(MapRandom, DictMediumKeySpace) { RunRandom<AnyDict>(GetParam(), 4000, 150, 2, false); }
TEST_P(MapRandom, DictLargeKeySpace) { RunRandom<AnyDict>(GetParam(), 8000, 20000, 0, false); }

INSTANTIATE_TEST_SUITE_P(Seeds, MapRandom, ::testing::Values(1, 2, 3, 42, 20240601));

}  // namespace
