// dtype strings: every code, aliases, lanes, scalable vectors, round trips, bad input.
#include <tvm/ffi/any.h>

#include "test_util.h"

namespace {
using namespace tvm::ffi;
using tvm_ffi_test::TakeErrorKind;

DLDataType Parse(const std::string& s) {
  TVMFFIByteArray in{s.data(), s.size()};
  DLDataType out{};
  EXPECT_EQ(TVMFFIDataTypeFromString(&in, &out), 0) << s;
  return out;
}
std::string Print(DLDataType t) {
  TVMFFIAny out;
  EXPECT_EQ(TVMFFIDataTypeToString(&t, &out), 0);
  return std::string(String::FromOwnedValue(out));
}
bool Same(DLDataType a, DLDataType b) {
  return a.code == b.code && a.bits == b.bits && a.lanes == b.lanes;
}

TEST(DType, Parse) {
  EXPECT_TRUE(Same(Parse("int32"), DLDataType{kDLInt, 32, 1}));
  EXPECT_TRUE(Same(Parse("uint8"), DLDataType{kDLUInt, 8, 1}));
  EXPECT_TRUE(Same(Parse("float16"), DLDataType{kDLFloat, 16, 1}));
  EXPECT_TRUE(Same(Parse("float32x4"), DLDataType{kDLFloat, 32, 4}));
  EXPECT_TRUE(Same(Parse("bfloat16"), DLDataType{kDLBfloat, 16, 1}));
  EXPECT_TRUE(Same(Parse("bfloat"), DLDataType{kDLBfloat, 16, 1}));
  EXPECT_TRUE(Same(Parse("bool"), DLDataType{kDLBool, 8, 1}));
  EXPECT_TRUE(Same(Parse("handle"), DLDataType{kDLOpaqueHandle, 64, 1}));
  EXPECT_TRUE(Same(Parse(""), DLDataType{kDLOpaqueHandle, 0, 0}));
  EXPECT_TRUE(Same(Parse("void"), DLDataType{kDLOpaqueHandle, 0, 0}));
  EXPECT_TRUE(Same(Parse("float"), DLDataType{kDLFloat, 32, 1}));
  EXPECT_TRUE(Same(Parse("i8"), DLDataType{kDLInt, 8, 1}));
  EXPECT_TRUE(Same(Parse("u16"), DLDataType{kDLUInt, 16, 1}));
  EXPECT_TRUE(Same(Parse("f64"), DLDataType{kDLFloat, 64, 1}));
  EXPECT_TRUE(Same(Parse("bf16"), DLDataType{kDLBfloat, 16, 1}));
  EXPECT_TRUE(Same(Parse("float8_e4m3fn"), DLDataType{kDLFloat8_e4m3fn, 8, 1}));
  EXPECT_TRUE(Same(Parse("fp8_e5m2"), DLDataType{kDLFloat8_e5m2, 8, 1}));
  EXPECT_TRUE(Same(Parse("f4_e2m1fn"), DLDataType{kDLFloat4_e2m1fn, 4, 1}));
  EXPECT_TRUE(Same(Parse("float4_e2m1fn_x2"), DLDataType{kDLFloat4_e2m1fn, 4, 2}));
  EXPECT_TRUE(Same(Parse("float6_e3m2fn"), DLDataType{kDLFloat6_e3m2fn, 6, 1}));
  DLDataType sv = Parse("int8xvscalex4");
  EXPECT_EQ(static_cast<int16_t>(sv.lanes), -4);
}

TEST(DType, PrintRoundTripsForEveryCode) {
  const char* names[] = {"int8", "int16", "int32", "int64", "uint1", "uint8", "uint32",
                         "float16", "float32", "float64", "bfloat16", "bool", "bool1",
                         "handle", "float8_e3m4", "float8_e4m3", "float8_e4m3b11fnuz",
                         "float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz",
                         "float8_e8m0fnu", "float6_e2m3fn", "float6_e3m2fn", "float4_e2m1fn",
                         "float32x4", "int8x16", "uint8x32767", "float16xvscalex8", ""};
  for (const char* name : names) {
    EXPECT_EQ(Print(Parse(name)), name);
  }
}

TEST(DType, UnknownIsValueError) {
  for (const char* bad : {"floatx", "int0", "int256", "xyz", "float32x0", "float32x40000",
                          "int8xvscalex0", "custom[foo]"}) {
    std::string s(bad);
    TVMFFIByteArray in{s.data(), s.size()};
    DLDataType out{};
    EXPECT_EQ(TVMFFIDataTypeFromString(&in, &out), -1) << bad;
    EXPECT_EQ(TakeErrorKind(), "ValueError") << bad;
  }
  DLDataType complex{kDLComplex, 64, 1};
  TVMFFIAny out;
  EXPECT_EQ(TVMFFIDataTypeToString(&complex, &out), -1);
  EXPECT_EQ(TakeErrorKind(), "ValueError");
}

TEST(DType, NotNulTerminatedInput) {
  const char buf[] = "float32garbage";
  TVMFFIByteArray in{buf, 7};
  DLDataType out{};
  ASSERT_EQ(TVMFFIDataTypeFromString(&in, &out), 0);
  EXPECT_TRUE(Same(out, DLDataType{kDLFloat, 32, 1}));
}

TEST(DType, AnyConvertsStringToDataType) {
  Any s = String("int64");
  std::optional<DLDataType> t = s.as<DLDataType>();
  ASSERT_TRUE(t.has_value());
  EXPECT_TRUE(Same(*t, DLDataType{kDLInt, 64, 1}));
  Any bad = String("nonsense");
  EXPECT_FALSE(bad.as<DLDataType>().has_value());
  EXPECT_EQ(TakeErrorKind(), "");  // a failed conversion leaves no stale error behind
}

}  // namespace
