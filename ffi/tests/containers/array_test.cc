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
std::vector<T> ToVector(const Array<T>& a) {
  return std::vector<T>(a.begin(), a.end());
}

TEST(Array, LayoutMatchesAbi) {
  Array<int> a = {1, 2, 3};
  const char* h = Handle(a);
  EXPECT_EQ(ReadAt<int32_t>(h, 8), kTVMFFIArray);
  EXPECT_EQ(ReadAt<const char*>(h, 24), h + 56);       // elements inline
  EXPECT_EQ(ReadAt<int64_t>(h, 32), 3);                 // size
  EXPECT_EQ(ReadAt<int64_t>(h, 40), 3);                 // capacity
  EXPECT_EQ(ReadAt<void*>(h, 48), nullptr);             // data_deleter
  const TVMFFIAny* elems = reinterpret_cast<const TVMFFIAny*>(h + 56);
  EXPECT_EQ(elems[1].type_index, kTVMFFIInt);
  EXPECT_EQ(elems[1].v_int64, 2);
  EXPECT_EQ(a->type_index(), kTVMFFIArray);
  EXPECT_EQ(a->GetTypeKey(), "ffi.Array");
}

TEST(Array, DefaultCapacityAndGrowth) {
  Array<int> a;
  EXPECT_EQ(a.size(), 0u);
  EXPECT_EQ(a.capacity(), 4u);
  std::vector<size_t> caps;
  for (int i = 0; i < 9; ++i) {
    a.push_back(i);
    caps.push_back(a.capacity());
  }
  EXPECT_EQ(caps, (std::vector<size_t>{4, 4, 4, 4, 8, 8, 8, 8, 16}));
  EXPECT_EQ(ToVector(a), (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7, 8}));
}

TEST(Array, Constructors) {
  std::vector<int64_t> v = {5, 6, 7};
  EXPECT_EQ(ToVector(Array<int64_t>(v)), v);
  EXPECT_EQ(ToVector(Array<int64_t>(v.begin() + 1, v.end())), (std::vector<int64_t>{6, 7}));
  EXPECT_EQ(ToVector(Array<int>(3, 9)), (std::vector<int>{9, 9, 9}));
  Array<String> s = {"a", "a-long-string-value"};
  EXPECT_EQ(s[0], "a");
  EXPECT_EQ(s[1], "a-long-string-value");
  Array<Any> mixed = {1, "two", 3.5, true};
  EXPECT_EQ(mixed.size(), 4u);
  EXPECT_EQ(mixed[1].cast<String>(), "two");
  EXPECT_EQ(mixed[3].type_index(), kTVMFFIBool);
}

TEST(Array, ElementOps) {
  Array<int> a = {1, 2, 3, 4};
  a.insert(a.begin() + 1, 10);
  EXPECT_EQ(ToVector(a), (std::vector<int>{1, 10, 2, 3, 4}));
  std::vector<int> more = {7, 8};
  a.insert(a.end(), more.begin(), more.end());
  EXPECT_EQ(ToVector(a), (std::vector<int>{1, 10, 2, 3, 4, 7, 8}));
  a.erase(a.begin());
  a.erase(a.begin() + 2, a.begin() + 4);
  EXPECT_EQ(ToVector(a), (std::vector<int>{10, 2, 7, 8}));
  a.Set(1, 20);
  a.pop_back();
  EXPECT_EQ(ToVector(a), (std::vector<int>{10, 20, 7}));
  EXPECT_EQ(a.front(), 10);
  EXPECT_EQ(a.back(), 7);
  EXPECT_EQ(std::vector<int>(a.rbegin(), a.rend()), (std::vector<int>{7, 20, 10}));
  a.resize(5);
  EXPECT_EQ(a.size(), 5u);
  EXPECT_EQ(Array<Any>(a)[4].type_index(), kTVMFFINone);
  a.resize(2);
  EXPECT_EQ(ToVector(Array<int>(a)), (std::vector<int>{10, 20}));
  a.clear();
  EXPECT_TRUE(a.empty());
}

TEST(Array, Errors) {
  Array<int> a = {1};
  EXPECT_EQ(ErrorKindOf([&] { a[1]; }), "IndexError");
  EXPECT_EQ(ErrorKindOf([&] { a[-1]; }), "IndexError");
  EXPECT_EQ(ErrorKindOf([&] { a.Set(3, 0); }), "IndexError");
  Array<int> empty;
  EXPECT_EQ(ErrorKindOf([&] { empty.pop_back(); }), "IndexError");
  EXPECT_EQ(ErrorKindOf([&] { empty.front(); }), "IndexError");
}

TEST(Array, CopyOnWrite) {
  Array<int> a = {1, 2, 3};
  const Object* full = a.get();
  a.push_back(4);  // unique but full: moves into a bigger object
  EXPECT_NE(a.get(), full);
  EXPECT_EQ(ToVector(a), (std::vector<int>{1, 2, 3, 4}));
  Array<int> b = {1, 2};
  b.reserve(8);
  const Object* b_obj = b.get();
  b.push_back(3);  // unique with room: in place
  EXPECT_EQ(b.get(), b_obj);
  Array<int> c = b;  // shared now
  c.Set(0, 100);
  EXPECT_NE(ObjOf(c), ObjOf(b));
  EXPECT_EQ(ToVector(b), (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(ToVector(c), (std::vector<int>{100, 2, 3}));
  Array<int> d = b;
  d.push_back(9);
  d.erase(d.begin());
  EXPECT_EQ(ToVector(b), (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(ToVector(d), (std::vector<int>{2, 3, 9}));
}

TEST(Array, PushBackOfOwnElement) {
  Array<Any> a = {Any(String("a-long-string-element"))};
  for (int i = 0; i < 10; ++i) a.push_back(a[0]);
  for (const Any& v : a) EXPECT_EQ(v.cast<String>(), "a-long-string-element");
}

TEST(Array, AnyConversions) {
  Array<int> a = {1, 2, 3};
  Any any = a;
  EXPECT_EQ(any.type_index(), kTVMFFIArray);
  // Strictly typed: the same object comes back.
  Array<int> back = any.cast<Array<int>>();
  EXPECT_EQ(ObjOf(back), ObjOf(a));
  Array<int64_t> back64 = any.cast<Array<int64_t>>();
  EXPECT_EQ(ObjOf(back64), ObjOf(a));
  Array<Any> as_any = any.cast<Array<Any>>();
  EXPECT_EQ(ObjOf(as_any), ObjOf(a));
  // Needs conversion (bool -> int): a new array.
  Array<Any> bools = {true, false};
  Array<int> converted = Any(bools).cast<Array<int>>();
  EXPECT_NE(ObjOf(converted), ObjOf(bools));
  EXPECT_EQ(ToVector(converted), (std::vector<int>{1, 0}));
  // Not convertible.
  Array<Any> strs = {1, "x"};
  EXPECT_FALSE(Any(strs).as<Array<int>>().has_value());
  EXPECT_EQ(ErrorKindOf([&] { Any(strs).cast<Array<int>>(); }), "TypeError");
  // A List converts into a new Array.
  List<int> list = {4, 5};
  Array<int> from_list = Any(list).cast<Array<int>>();
  EXPECT_NE(ObjOf(from_list), ObjOf(list));
  EXPECT_EQ(ToVector(from_list), (std::vector<int>{4, 5}));
  EXPECT_FALSE(Any(1).as<Array<int>>().has_value());
  EXPECT_EQ(TypeTraits<Array<int>>::TypeStr(), "Array<int>");
  EXPECT_EQ(TypeTraits<Array<Array<Any>>>::TypeStr(), "Array<Array<Any>>");
}

TEST(Array, Nested) {
  Array<Array<int>> nested = {Array<int>{1, 2}, Array<int>{3}};
  EXPECT_EQ(nested[0][1], 2);
  EXPECT_EQ(nested[1][0], 3);
  Any any = nested;
  auto back = any.cast<Array<Array<int64_t>>>();
  EXPECT_EQ(ObjOf(back), ObjOf(nested));
  Array<Array<Any>> strs = {Array<Any>{"s"}};
  EXPECT_FALSE(Any(strs).as<Array<Array<int>>>().has_value());
}

TEST(Array, RefcountsReturnToBaseline) {
  Array<Any> payload = {1, 2};
  EXPECT_EQ(payload.use_count(), 1);
  {
    Array<Any> holder;
    for (int i = 0; i < 20; ++i) holder.push_back(payload);
    EXPECT_EQ(payload.use_count(), 21);
    Array<Any> copy = holder;
    copy.Set(0, 5);  // COW copy takes references to the other 19
    EXPECT_EQ(payload.use_count(), 21 + 19);
    copy.erase(copy.begin() + 1, copy.end());
    EXPECT_EQ(payload.use_count(), 21);
    holder.insert(holder.begin(), payload);
    holder.pop_back();
    EXPECT_EQ(payload.use_count(), 21);
  }
  EXPECT_EQ(payload.use_count(), 1);
}

}  // namespace
