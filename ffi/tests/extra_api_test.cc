/*
 * The extra C++ API on generated inputs (our headers): JSON text round trips, malformed
 * JSON (random edits of valid text, random bytes, deep nesting) is refused with a positioned
 * ValueError and never crashes, repr/hash/equality agree on random containers, deep copies and
 * JSON graphs round-trip. The reference comparison is in tests/interop (extra_api_app).
 */
#include <gtest/gtest.h>
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/dict.h>
#include <tvm/ffi/container/list.h>
#include <tvm/ffi/container/map.h>
#include <tvm/ffi/container/shape.h>
#include <tvm/ffi/extra/dataclass.h>
#include <tvm/ffi/extra/json.h>
#include <tvm/ffi/extra/serialization.h>

#include <random>
#include <regex>
#include <string>

namespace {
using namespace tvm::ffi;  // NOLINT(build/namespaces)

Any RandomValue(std::mt19937* rng, int depth, bool json_only) {
  std::uniform_int_distribution<int> kind(0, depth > 3 ? 5 : 9);
  auto pick = [&](int n) { return std::uniform_int_distribution<int>(0, n - 1)(*rng); };
  switch (kind(*rng)) {
    case 0: return Any(nullptr);
    case 1: return pick(2) == 0;
    case 2: return static_cast<int64_t>((*rng)()) - (1LL << 31);
    case 3: {
      // Not 1e16: an integral float >= 2^53 is written without ".0" (as the reference does)
      // and reads back as an int.
      const double v[] = {0.5, -0.0, 1e300, 1.0 / 3, 4e15, 123.0, 2.5e-300};
      return v[pick(7)];
    }
    case 4: {
      std::string s;
      const char* alphabet[] = {"a", "\"", "\\", "/", "\n", "\x01", "\x7f", "\xc3\xa9", "\xf0\x9f\x98\x80"};
      for (int i = pick(8); i > 0; --i) s += alphabet[pick(9)];
      return String(s);
    }
    case 5:
      if (json_only) return String("k");
      return pick(2) ? Any(Bytes("b\x00y", 3)) : Any(Shape(std::vector<int64_t>{1, 2}));
    case 6:
    case 7: {
      Array<Any> a;
      for (int i = pick(4); i > 0; --i) a.push_back(RandomValue(rng, depth + 1, json_only));
      return a;
    }
    case 8: {
      if (json_only) return Array<Any>();
      List<Any> l;
      for (int i = pick(4); i > 0; --i) l.push_back(RandomValue(rng, depth + 1, json_only));
      return l;
    }
    default: {
      Map<Any, Any> m;
      for (int i = pick(4); i > 0; --i) {
        m.Set(String(std::string(1, static_cast<char>('a' + pick(4)))),
              RandomValue(rng, depth + 1, json_only));
      }
      return m;
    }
  }
}

TEST(ExtraApi, JsonRoundTripsGeneratedValues) {
  std::mt19937 rng(1);
  for (int i = 0; i < 500; ++i) {
    Any v = RandomValue(&rng, 0, true);
    std::string text = json::Stringify(v);
    Any back = json::Parse(text);
    EXPECT_TRUE(RecursiveEq(v, back)) << text;
    EXPECT_EQ(std::string(json::Stringify(back)), text);
    std::string pretty = json::Stringify(v, 2);
    EXPECT_EQ(std::string(json::Stringify(json::Parse(pretty))), text);
  }
}

TEST(ExtraApi, MalformedJsonIsAPositionedValueError) {
  std::mt19937 rng(2);
  const std::regex positioned(".*: line [0-9]+ column [0-9]+ \\(char [0-9]+\\)");
  const char noise[] = "{}[],:\"\\tfnu0123456789.-+eEINa \n\x01\xff";
  int refused = 0;
  for (int i = 0; i < 3000; ++i) {
    std::string text;
    if (i % 2 == 0) {
      text = json::Stringify(RandomValue(&rng, 0, true));
      int edits = 1 + static_cast<int>(rng() % 3);
      for (int e = 0; e < edits && !text.empty(); ++e) {
        size_t at = rng() % text.size();
        switch (rng() % 3) {
          case 0: text.erase(at, 1); break;
          case 1: text.insert(at, 1, noise[rng() % (sizeof(noise) - 1)]); break;
          default: text[at] = noise[rng() % (sizeof(noise) - 1)];
        }
      }
    } else {
      for (int n = static_cast<int>(rng() % 16); n > 0; --n) text += noise[rng() % (sizeof(noise) - 1)];
    }
    String msg;
    Any result = json::Parse(text, &msg);
    if (msg.size() == 0) continue;
    ++refused;
    EXPECT_TRUE(result.is_none());
    EXPECT_TRUE(std::regex_match(std::string(msg), positioned)) << msg.c_str();
    try {
      json::Parse(text);
      ADD_FAILURE() << "throwing form accepted " << text;
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), "ValueError");
    }
  }
  EXPECT_GT(refused, 1000);
}

TEST(ExtraApi, DeepNestingIsRefusedNotACrash) {
  std::string deep(200000, '[');  // limit: 1000 levels
  String msg;
  json::Parse(deep, &msg);
  EXPECT_NE(std::string(msg).find("Maximum nesting depth exceeded"), std::string::npos);
  Any nested = Array<Any>();
  for (int i = 0; i < 5000; ++i) nested = Array<Any>{nested};
  EXPECT_THROW(ReprPrint(nested), Error);
  EXPECT_THROW(RecursiveHash(nested), Error);
  EXPECT_THROW(ToJSONGraph(nested), Error);
  EXPECT_THROW(DeepCopy(nested), Error);
}

TEST(ExtraApi, EqualityHashReprCopyAndGraphAgreeOnGeneratedValues) {
  std::mt19937 rng(3);
  for (int i = 0; i < 500; ++i) {
    Any a = RandomValue(&rng, 0, false);
    Any copy = DeepCopy(a);
    EXPECT_TRUE(RecursiveEq(a, copy));
    EXPECT_EQ(RecursiveHash(a), RecursiveHash(copy));
    EXPECT_EQ(std::string(ReprPrint(a)), std::string(ReprPrint(copy)));
    Any graph_back = FromJSONGraph(json::Parse(json::Stringify(ToJSONGraph(a))));
    EXPECT_TRUE(RecursiveEq(a, graph_back)) << ReprPrint(a).c_str();
    Any b = RandomValue(&rng, 0, false);
    if (RecursiveEq(a, b)) EXPECT_EQ(RecursiveHash(a), RecursiveHash(b));
    EXPECT_EQ(RecursiveEq(a, b), RecursiveEq(b, a));
  }
}

TEST(ExtraApi, OrderingsAreConsistent) {
  std::mt19937 rng(4);
  for (int i = 0; i < 300; ++i) {
    Array<Any> a, b;
    for (int k = static_cast<int>(rng() % 4); k > 0; --k) a.push_back(static_cast<int64_t>(rng() % 3));
    for (int k = static_cast<int>(rng() % 4); k > 0; --k) b.push_back(static_cast<int64_t>(rng() % 3));
    bool lt = RecursiveLt(a, b), eq = RecursiveEq(a, b), gt = RecursiveGt(a, b);
    EXPECT_EQ(static_cast<int>(lt) + static_cast<int>(eq) + static_cast<int>(gt), 1);
    EXPECT_EQ(RecursiveLe(a, b), lt || eq);
    EXPECT_EQ(RecursiveGe(a, b), gt || eq);
  }
}

}  // namespace
