/*
 * StructuralEqual / StructuralHash / GetFirstMismatch / VisitErrorContext::FindAccessPaths on
 * generated inputs (our headers): random nested containers equal their deep copies and hash
 * alike; changing one random leaf makes them unequal and GetFirstMismatch's paths lead to that
 * leaf on both sides; deep nesting is refused with ValueError, never a crash; AccessPath helpers.
 * The comparison with the reference library is tests/interop/structural_app.cc.
 */
#include <gtest/gtest.h>
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/dict.h>
#include <tvm/ffi/container/list.h>
#include <tvm/ffi/container/map.h>
#include <tvm/ffi/container/shape.h>
#include <tvm/ffi/extra/dataclass.h>
#include <tvm/ffi/extra/structural_equal.h>
#include <tvm/ffi/extra/structural_hash.h>
#include <tvm/ffi/extra/visit_error_context.h>

#include <random>
#include <string>
#include <vector>

namespace {
using namespace tvm::ffi;  // NOLINT(build/namespaces)
using reflection::AccessKind;
using reflection::AccessPath;
using reflection::AccessStep;

Any RandomValue(std::mt19937* rng, int depth) {
  auto pick = [&](int n) { return std::uniform_int_distribution<int>(0, n - 1)(*rng); };
  switch (pick(depth > 3 ? 5 : 9)) {
    case 0: return Any(nullptr);
    case 1: return pick(2) == 0;
    case 2: return static_cast<int64_t>(pick(1000)) - 500;
    case 3: return 0.25 * pick(9);
    case 4: return String(std::string(static_cast<size_t>(pick(20)), static_cast<char>('a' + pick(3))));
    case 5: {
      std::vector<Any> items;
      for (int i = pick(5); i > 0; --i) items.push_back(RandomValue(rng, depth + 1));
      return Array<Any>(items);
    }
    case 6: {
      List<Any> items;
      for (int i = pick(5); i > 0; --i) items.push_back(RandomValue(rng, depth + 1));
      return items;
    }
    case 7: {
      Map<Any, Any> m;
      for (int i = pick(6); i > 0; --i) m.Set(String("k" + std::to_string(pick(8))), RandomValue(rng, depth + 1));
      return m;
    }
    default: return Shape({pick(4), pick(4)});
  }
}

/*! \brief A copy of v with the leaf reached by `steps` replaced by a marker; false if none. */
Any ReplaceLeaf(const Any& v, std::mt19937* rng, std::vector<AccessStep>* steps) {
  auto pick = [&](int n) { return std::uniform_int_distribution<int>(0, n - 1)(*rng); };
  if (v.type_index() == kTVMFFIArray || v.type_index() == kTVMFFIList) {
    std::vector<Any> items;
    if (v.type_index() == kTVMFFIArray) {
      for (const Any& x : v.cast<Array<Any>>()) items.push_back(x);
    } else {
      for (const Any& x : v.cast<List<Any>>()) items.push_back(x);
    }
    if (!items.empty()) {
      int i = pick(static_cast<int>(items.size()));
      steps->push_back(AccessStep::ArrayItem(i));
      items[i] = ReplaceLeaf(items[i], rng, steps);
      if (v.type_index() == kTVMFFIArray) return Array<Any>(items);
      return List<Any>(items);
    }
  } else if (v.type_index() == kTVMFFIMap) {
    Map<Any, Any> m = v.cast<Map<Any, Any>>();
    if (m.size() > 0) {
      int i = pick(static_cast<int>(m.size()));
      auto it = m.begin();
      std::advance(it, i);
      Any key = (*it).first;
      steps->push_back(AccessStep::MapItem(key));
      Map<Any, Any> copy = m;
      copy.Set(key, ReplaceLeaf((*it).second, rng, steps));
      return copy;
    }
  }
  return String("<<replaced leaf>>");
}

TEST(Structural, RandomValuesEqualTheirCopies) {
  std::mt19937 rng(13);
  for (int round = 0; round < 400; ++round) {
    Any v = RandomValue(&rng, 0);
    Any copy = DeepCopy(v);
    ASSERT_TRUE(StructuralEqual::Equal(v, copy)) << ReprPrint(v);
    ASSERT_TRUE(StructuralEqual()(v, v));
    ASSERT_EQ(StructuralHash::Hash(v), StructuralHash::Hash(copy)) << ReprPrint(v);
    ASSERT_EQ(StructuralHash()(v), StructuralHash::Hash(v, true, true));
    ASSERT_FALSE(StructuralEqual::GetFirstMismatch(v, copy).has_value());
  }
}

TEST(Structural, OneChangedLeafIsFound) {
  std::mt19937 rng(7);
  int checked = 0;
  for (int round = 0; round < 400; ++round) {
    Any v = RandomValue(&rng, 0);
    std::vector<AccessStep> steps;
    Any changed = ReplaceLeaf(v, &rng, &steps);
    ASSERT_FALSE(StructuralEqual::Equal(v, changed)) << ReprPrint(v);
    Optional<reflection::AccessPathPair> m = StructuralEqual::GetFirstMismatch(v, changed);
    ASSERT_TRUE(m.has_value());
    AccessPath expected = AccessPath::FromSteps(steps.begin(), steps.end());
    EXPECT_TRUE(m.value().get<0>()->PathEqual(expected)) << ReprPrint(m.value().get<0>());
    EXPECT_TRUE(m.value().get<1>()->PathEqual(expected)) << ReprPrint(m.value().get<1>());
    EXPECT_EQ(m.value().get<0>()->depth, static_cast<int32_t>(steps.size()));
    checked += steps.empty() ? 0 : 1;
  }
  EXPECT_GT(checked, 100);
}

TEST(Structural, MissingItemsAndKeys) {
  auto text = [](const Optional<reflection::AccessPathPair>& m) {
    return std::string(ReprPrint(m.value().get<0>())) + " | " +
           std::string(ReprPrint(m.value().get<1>()));
  };
  EXPECT_EQ(text(StructuralEqual::GetFirstMismatch(Array<Any>{1, 2, 3}, Array<Any>{1})),
            "<root>[1] | <root>[<missing:1>]");
  EXPECT_EQ(text(StructuralEqual::GetFirstMismatch(Map<Any, Any>{{String("a"), 1}},
                                                   Map<Any, Any>{{String("b"), 1}})),
            "<root>[\"a\"] | <root>[<missing:\"a\">]");
  EXPECT_TRUE(StructuralEqual::Equal(String("abc"), String(std::string("abc"))));
  EXPECT_FALSE(StructuralEqual::Equal(String("abc"), Bytes("abc", 3)));
}

TEST(Structural, DeepNestingIsRefused) {
  Any v = 0;
  for (int i = 0; i < 5000; ++i) v = Array<Any>{v};
  for (int kind = 0; kind < 3; ++kind) {
    try {
      if (kind == 0) StructuralEqual::Equal(v, v);
      if (kind == 1) StructuralHash::Hash(v);
      if (kind == 2) StructuralEqual::GetFirstMismatch(v, v);
      ADD_FAILURE() << "deep input accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), "ValueError");
    }
  }
}

TEST(Structural, AccessPathHelpers) {
  AccessPath p = AccessPath::Root()->Attr("body")->ArrayItem(2)->MapItem(String("k"));
  EXPECT_EQ(p->depth, 3);
  Array<AccessStep> steps = p->ToSteps();
  ASSERT_EQ(steps.size(), 3u);
  EXPECT_EQ(steps[0]->kind, AccessKind::kAttr);
  EXPECT_EQ(steps[1]->key.cast<int64_t>(), 2);
  EXPECT_TRUE(AccessPath::FromSteps(steps)->PathEqual(p));
  EXPECT_TRUE(p->GetParent().value()->IsPrefixOf(p));
  EXPECT_FALSE(p->IsPrefixOf(p->GetParent().value()));
  EXPECT_FALSE(AccessPath::Root()->Attr("x")->PathEqual(AccessPath::Root()->Attr("y")));
  EXPECT_EQ(std::string(ReprPrint(p->ArrayItemMissing(4))),
            "<root>.body[2][\"k\"][<missing:4>]");
  EXPECT_EQ(std::string(ReprPrint(AccessPath::Root())), "<root>");
}

TEST(Structural, FindAccessPathsThroughContainers) {
  // Random containers hold a marker object at random places; the pattern [marker] finds them
  // all (FindAccessPaths only searches objects with metadata: an AccessPath is one).
  std::mt19937 rng(5);
  for (int round = 0; round < 50; ++round) {
    AccessPath marker = AccessPath::Root()->Attr("marker");
    std::vector<Any> items;
    int expected = 0;
    for (int i = 0; i < 6; ++i) {
      if (rng() % 2) {
        items.push_back(Map<Any, Any>{{String("m"), marker}});
        ++expected;
      } else {
        items.push_back(RandomValue(&rng, 2));
      }
    }
    AccessPath root = AccessPath::Root()->MapItem(Array<Any>(items));
    // Not a field of `root` (its key is not walked): a holder whose parent field leads there.
    AccessPath holder = root->Extend(AccessStep::MapItem(Array<Any>(items)));
    ObjectPtr<VisitErrorContextObj> ctx = make_object<VisitErrorContextObj>();
    ctx->reverse_visit_pattern = List<ObjectRef>{marker};
    Array<AccessPath> found =
        VisitErrorContext::FindAccessPaths(holder, VisitErrorContext(ctx));
    // holder.step.key is the Array: each marker sits at .step.key[i]["m"].
    EXPECT_EQ(static_cast<int>(found.size()), 2 * expected);  // root's step key holds them too
    for (const AccessPath& p : found) {
      EXPECT_EQ(p->ToSteps().back()->kind, AccessKind::kMapItem);
    }
  }
}

}  // namespace
