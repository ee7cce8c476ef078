#include <gtest/gtest.h>
#include <tvm/ffi/container/shape.h>

#include <vector>

#include "ffi/tests/containers/container_test_util.h"

namespace {

using namespace tvm::ffi;
using tvm::ffi::testing::ErrorKindOf;
using tvm::ffi::testing::Handle;
using tvm::ffi::testing::ReadAt;

TEST(Shape, LayoutMatchesAbi) {
  Shape s = {2, 3, 4};
  const char* h = Handle(s);
  EXPECT_EQ(ReadAt<int32_t>(h, 8), kTVMFFIShape);
  const int64_t* data = ReadAt<const int64_t*>(h, 24);
  EXPECT_EQ(reinterpret_cast<const char*>(data), h + 40);  // inline after the cell
  EXPECT_EQ(ReadAt<uint64_t>(h, 32), 3u);
  EXPECT_EQ(data[2], 4);
  EXPECT_EQ(TVMFFIShapeGetCellPtr(const_cast<char*>(h))->size, 3u);
  EXPECT_EQ(s->GetTypeKey(), "ffi.Shape");
}

TEST(Shape, Basics) {
  Shape empty;
  EXPECT_EQ(empty.size(), 0u);
  EXPECT_EQ(empty.Product(), 1);
  std::vector<int64_t> v = {5, 6};
  Shape s(v);
  EXPECT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0], 5);
  EXPECT_EQ(s.at(1), 6);
  EXPECT_EQ(s.Product(), 30);
  EXPECT_EQ(s->Product(), 30);
  EXPECT_EQ(std::vector<int64_t>(s.begin(), s.end()), v);
  EXPECT_EQ(ErrorKindOf([&] { s.at(2); }), "IndexError");
  EXPECT_TRUE(Shape({5, 6}) == s);
  EXPECT_TRUE(Shape({5}) != s);
  std::vector<int> ints = {1, 2, 3};
  EXPECT_EQ(Shape(ints.begin(), ints.end()).Product(), 6);
  EXPECT_EQ(Shape({0, 7}).Product(), 0);
}

TEST(Shape, AnyConversions) {
  Shape s = {1, 2};
  Any any = s;
  EXPECT_EQ(any.type_index(), kTVMFFIShape);
  EXPECT_EQ(any.cast<Shape>().get(), s.get());
  Shape from_array = Any(Array<int>{3, 4}).cast<Shape>();
  EXPECT_EQ(from_array, Shape({3, 4}));
  EXPECT_FALSE(Any(Array<Any>{1, "x"}).as<Shape>().has_value());
  EXPECT_FALSE(Any(1).as<Shape>().has_value());
  int64_t before = s.use_count();
  { Any copy = s; EXPECT_EQ(s.use_count(), before + 1); }
  EXPECT_EQ(s.use_count(), before);
}

}  // namespace
