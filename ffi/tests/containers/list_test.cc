#include <gtest/gtest.h>
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/list.h>

#include <vector>

#include "ffi/tests/containers/container_test_util.h"

namespace {

using namespace tvm::ffi;
using tvm::ffi::testing::ErrorKindOf;
using tvm::ffi::testing::ObjOf;
using tvm::ffi::testing::Handle;
using tvm::ffi::testing::ReadAt;

template <typename T>
std::vector<T> ToVector(const List<T>& l) {
  return std::vector<T>(l.begin(), l.end());
}

TEST(List, LayoutMatchesAbi) {
  List<int> empty;
  const char* h = Handle(empty);
  EXPECT_EQ(ReadAt<int32_t>(h, 8), kTVMFFIList);
  EXPECT_EQ(ReadAt<void*>(h, 24), nullptr);      // no block while capacity is 0
  EXPECT_EQ(ReadAt<int64_t>(h, 32), 0);
  EXPECT_EQ(ReadAt<int64_t>(h, 40), 0);
  EXPECT_NE(ReadAt<void*>(h, 48), nullptr);      // data_deleter always set
  List<int> l = {1, 2, 3};
  h = Handle(l);
  const char* data = ReadAt<const char*>(h, 24);
  EXPECT_NE(data, h + 56);                        // separate block
  EXPECT_EQ(ReadAt<int64_t>(h, 32), 3);
  EXPECT_EQ(reinterpret_cast<const TVMFFIAny*>(data)[2].v_int64, 3);
  EXPECT_EQ(l->GetTypeKey(), "ffi.List");
}

TEST(List, SharedMutationKeepsObject) {
  List<int> a;
  List<int> b = a;
  const Object* obj = a.get();
  for (int i = 0; i < 100; ++i) a.push_back(i);
  EXPECT_EQ(a.get(), obj);
  EXPECT_EQ(b.size(), 100u);
  EXPECT_GE(b.capacity(), 100u);
  b.Set(0, -1);
  EXPECT_EQ(a[0], -1);
  b.insert(b.begin() + 1, 42);
  EXPECT_EQ(a[1], 42);
  a.erase(a.begin(), a.begin() + 2);
  EXPECT_EQ(b.front(), 1);
  EXPECT_EQ(b.back(), 99);
  b.pop_back();
  EXPECT_EQ(a.size(), 98u);
  a.resize(100);
  EXPECT_EQ(List<Any>(b)[99].type_index(), kTVMFFINone);
  a.resize(3);
  EXPECT_EQ(ToVector(b), (std::vector<int>{1, 2, 3}));
  a.clear();
  EXPECT_TRUE(b.empty());
  EXPECT_EQ(a.get(), obj);
}

TEST(List, ReserveAndErrors) {
  List<String> l = {"x"};
  l.reserve(50);
  EXPECT_EQ(l.capacity(), 50u);
  EXPECT_EQ(l[0], "x");
  EXPECT_EQ(ErrorKindOf([&] { l[5]; }), "IndexError");
  EXPECT_EQ(ErrorKindOf([&] { l.erase(l.begin() + 3); }), "IndexError");
  List<int> e;
  EXPECT_EQ(ErrorKindOf([&] { e.pop_back(); }), "IndexError");
}

TEST(List, AnyConversions) {
  List<int> l = {1, 2};
  Any any = l;
  EXPECT_EQ(any.type_index(), kTVMFFIList);
  EXPECT_EQ(any.cast<List<int>>().get(), l.get());
  EXPECT_EQ(any.cast<List<Any>>().get(), l.get());
  Array<int> arr = {3, 4};
  List<int> from_array = Any(arr).cast<List<int>>();
  EXPECT_NE(ObjOf(from_array), ObjOf(arr));
  EXPECT_EQ(ToVector(from_array), (std::vector<int>{3, 4}));
  List<Any> strs = {"a"};
  EXPECT_FALSE(Any(strs).as<List<int>>().has_value());
  EXPECT_EQ(TypeTraits<List<String>>::TypeStr(), "List<str>");
  // A typed view of a shared list sees foreign writes; reading a wrong element is a TypeError.
  List<Any> shared = {1};
  List<int> typed = Any(shared).cast<List<int>>();
  shared.push_back("not an int");
  EXPECT_EQ(ErrorKindOf([&] { typed[1]; }), "TypeError");
}

TEST(List, RefcountsReturnToBaseline) {
  List<Any> payload;
  {
    List<Any> holder;
    for (int i = 0; i < 33; ++i) holder.push_back(payload);  // several reallocations
    EXPECT_EQ(payload.use_count(), 34);
    holder.insert(holder.begin() + 5, payload);
    holder.erase(holder.begin(), holder.begin() + 10);
    EXPECT_EQ(payload.use_count(), 25);
    holder.Set(0, 1);
    EXPECT_EQ(payload.use_count(), 24);
  }
  EXPECT_EQ(payload.use_count(), 1);
}

}  // namespace
