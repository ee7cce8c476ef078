// The ffi.* container globals that language bindings use instead of header code.
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/dict.h>
#include <tvm/ffi/container/list.h>
#include <tvm/ffi/container/map.h>
#include <tvm/ffi/container/shape.h>

#include "test_util.h"

namespace {
using namespace tvm::ffi;

Function G(const char* name) { return Function::GetGlobalRequired(name); }

TEST(ContainerGlobals, Array) {
  Any a = G("ffi.Array")(1, String("two"), 3.0);
  EXPECT_EQ(a.type_index(), kTVMFFIArray);
  EXPECT_EQ(G("ffi.ArraySize")(a).cast<int64_t>(), 3);
  EXPECT_EQ(G("ffi.ArrayGetItem")(a, 1).cast<std::string>(), "two");
  EXPECT_EQ(G("ffi.ArrayGetItem")(a, -1).cast<double>(), 3.0);
  EXPECT_THROW_KIND(G("ffi.ArrayGetItem")(a, 3), "IndexError");
  EXPECT_TRUE(G("ffi.ArrayContains")(a, String("two")).cast<bool>());
  EXPECT_FALSE(G("ffi.ArrayContains")(a, 2).cast<bool>());
  EXPECT_THROW_KIND(G("ffi.ArraySize")(String("not an array")), "TypeError");
  EXPECT_EQ(G("ffi.ArraySize")(G("ffi.Array")()).cast<int64_t>(), 0);
}

TEST(ContainerGlobals, ListIsSharedAndMutable) {
  Any l = G("ffi.List")(1, 2);
  G("ffi.ListAppend")(l, 3);
  G("ffi.ListInsert")(l, 0, 0);
  G("ffi.ListSetItem")(l, -1, 30);
  EXPECT_EQ(G("ffi.ListSize")(l).cast<int64_t>(), 4);
  EXPECT_EQ(G("ffi.ListGetItem")(l, 3).cast<int64_t>(), 30);
  G("ffi.ListErase")(l, 0);
  EXPECT_EQ(G("ffi.ListGetItem")(l, 0).cast<int64_t>(), 1);
  EXPECT_TRUE(G("ffi.ListContains")(l, 30).cast<bool>());
  G("ffi.ListClear")(l);
  EXPECT_EQ(G("ffi.ListSize")(l).cast<int64_t>(), 0);
  EXPECT_THROW_KIND(G("ffi.ListErase")(l, 0), "IndexError");
}

TEST(ContainerGlobals, MapAndIteration) {
  Any m = G("ffi.Map")(String("a"), 1, 2, String("b"), true, 3.5);
  EXPECT_EQ(G("ffi.MapSize")(m).cast<int64_t>(), 3);
  EXPECT_EQ(G("ffi.MapGetItem")(m, String("a")).cast<int64_t>(), 1);
  EXPECT_EQ(G("ffi.MapCount")(m, 2).cast<int64_t>(), 1);
  EXPECT_EQ(G("ffi.MapCount")(m, 1).cast<int64_t>(), 0);  // bool true is a different key
  EXPECT_THROW_KIND(G("ffi.MapGetItem")(m, String("zz")), "KeyError");
  Any missing = G("ffi.GetInvalidObject")();
  EXPECT_TRUE(G("ffi.MapGetItemOrMissing")(m, String("zz")) == missing);
  EXPECT_THROW_KIND(G("ffi.Map")(1), "ValueError");
  Function it = G("ffi.MapForwardIterFunctor")(m).cast<Function>();
  std::vector<int32_t> key_kinds;
  do {
    key_kinds.push_back(it(0).type_index());
  } while (it(2).cast<bool>());
  EXPECT_EQ(key_kinds, (std::vector<int32_t>{kTVMFFISmallStr, kTVMFFIInt, kTVMFFIBool}));
}

TEST(ContainerGlobals, DictMutations) {
  Any d = G("ffi.Dict")();
  for (int i = 0; i < 20; ++i) G("ffi.DictSetItem")(d, i, i * i);
  EXPECT_EQ(G("ffi.DictSize")(d).cast<int64_t>(), 20);
  EXPECT_EQ(G("ffi.DictGetItem")(d, 7).cast<int64_t>(), 49);
  G("ffi.DictErase")(d, 7);
  EXPECT_EQ(G("ffi.DictCount")(d, 7).cast<int64_t>(), 0);
  Function it = G("ffi.DictForwardIterFunctor")(d).cast<Function>();
  int64_t count = 1;
  while (it(2).cast<bool>()) ++count;
  EXPECT_EQ(count, 19);
  G("ffi.DictClear")(d);
  EXPECT_EQ(G("ffi.DictSize")(d).cast<int64_t>(), 0);
}

TEST(ContainerGlobals, Shape) {
  Any s = G("ffi.Shape")(2, 3, 4);
  EXPECT_EQ(s.type_index(), kTVMFFIShape);
  EXPECT_EQ(G("ffi.ShapeSize")(s).cast<int64_t>(), 3);
  EXPECT_EQ(G("ffi.ShapeGetItem")(s, -1).cast<int64_t>(), 4);
  EXPECT_THROW_KIND(G("ffi.Shape")(String("x")), "TypeError");
}

}  // namespace
