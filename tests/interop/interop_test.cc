/*
 * Direction 1: a module compiled against apache-tvm-ffi's headers, linked to *our*
 * libtvm_ffi.so, loaded by our loader and called with every kind of value. The module's
 * inline header code reads and mutates objects our code made, and we read the ones it made.
 */
#include <gtest/gtest.h>
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/dict.h>
#include <tvm/ffi/container/map.h>
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/extra/module.h>

#include <cmath>
#include <cstdlib>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace {
using namespace tvm::ffi;

Module LoadReferenceModule() {
  std::string path = std::string(std::getenv("TEST_SRCDIR")) + "/" + std::getenv("TEST_WORKSPACE") +
                     "/tests/interop/reference_module.so";
  return Module::LoadFromFile(path);
}

Function Fn(const char* name) {
  static Module mod = LoadReferenceModule();
  std::optional<Function> f = mod.GetFunction(name);
  EXPECT_TRUE(f.has_value()) << name;
  return *f;
}

std::string KindOf(const std::function<void()>& call) {
  try {
    call();
  } catch (const Error& e) {
    return e.kind();
  }
  return "";
}

TEST(Interop, Scalars) {
  EXPECT_EQ(Fn("add_int")(int64_t{40}, int64_t{2}).cast<int64_t>(), 42);
  EXPECT_EQ(Fn("add_int")(std::numeric_limits<int64_t>::max(), int64_t{-1}).cast<int64_t>(),
            std::numeric_limits<int64_t>::max() - 1);
  EXPECT_DOUBLE_EQ(Fn("mul_float")(1.5, 4.0).cast<double>(), 6.0);
  EXPECT_TRUE(std::isnan(Fn("mul_float")(std::nan(""), 1.0).cast<double>()));
  EXPECT_EQ(Fn("not_bool")(true).cast<bool>(), false);
  EXPECT_EQ(Fn("not_bool")(true).type_index(), kTVMFFIBool);
  EXPECT_TRUE(Fn("is_none")(nullptr).cast<bool>());
  EXPECT_FALSE(Fn("is_none")(0).cast<bool>());
  EXPECT_TRUE(Fn("echo")(nullptr).is_none());
  EXPECT_EQ(Fn("echo")(DLDevice{kDLCUDA, 1}).cast<DLDevice>().device_id, 1);
}

TEST(Interop, BigIntegers) {
  // 2^63 + 2^63 - 1 ... built by our library, added by the module's inline BigInt code.
  int64_t words[2] = {std::numeric_limits<int64_t>::min(), 0};  // 2^63
  TVMFFIByteArray in{reinterpret_cast<const char*>(words), sizeof(words)};
  TVMFFIAny big;
  ASSERT_EQ(TVMFFIBigIntFromByteArray(&in, &big), 0);
  Any a = Any::FromOwnedRaw(big);
  ASSERT_EQ(a.type_index(), kTVMFFIBigInt);
  Any sum = Fn("bigint_add")(a, a);  // 2^64
  ASSERT_EQ(sum.type_index(), kTVMFFIBigInt);
  TVMFFIByteArray out = TVMFFIBigIntGetContentByteArray(sum.raw());
  ASSERT_EQ(out.size, 16u);
  const int64_t* w = reinterpret_cast<const int64_t*>(out.data);
  EXPECT_EQ(w[0], 0);
  EXPECT_EQ(w[1], 1);
  // A BigInt result that fits comes back as a plain int.
  Any back = Fn("bigint_add")(sum, int64_t{-1});
  EXPECT_EQ(back.type_index(), kTVMFFIBigInt);
  Any small = Fn("bigint_add")(int64_t{2}, int64_t{3});
  EXPECT_EQ(small.type_index(), kTVMFFIInt);
  EXPECT_EQ(small.cast<int64_t>(), 5);
  EXPECT_EQ(Fn("echo")(a).type_index(), kTVMFFIBigInt);
}

TEST(Interop, StringsAndBytesAroundTheInlineBoundary) {
  for (size_t n : {0, 1, 6, 7, 8, 9, 31, 1000}) {
    std::string s(n, 'x');
    String joined = Fn("concat")(String(s), String("y")).cast<String>();
    EXPECT_EQ(joined.size(), n + 1);
    EXPECT_EQ(std::string(joined), s + "y");
    EXPECT_EQ(Fn("str_len")(String(s)).cast<int64_t>(), static_cast<int64_t>(n));
    Any echoed = Fn("echo")(String(s));
    EXPECT_EQ(echoed.type_index(), n <= 7 ? kTVMFFISmallStr : kTVMFFIStr);
    EXPECT_EQ(echoed.cast<std::string>(), s);
  }
  std::string raw("\0a\0bcdefghij", 12);
  Bytes rev = Fn("reverse_bytes")(Bytes(raw)).cast<Bytes>();
  EXPECT_EQ(std::string(rev), std::string(raw.rbegin(), raw.rend()));
  EXPECT_EQ(Fn("concat")("raw c string", "!").cast<std::string>(), "raw c string!");
}

TEST(Interop, TensorsAreSharedNotCopied) {
  float data[6] = {1, 2, 3, 4, 5, 6};
  int64_t shape[2] = {2, 3};
  DLTensor t{data, {kDLCPU, 0}, 2, {kDLFloat, 32, 1}, shape, nullptr, 0};
  EXPECT_DOUBLE_EQ(Fn("tensor_sum")(&t).cast<double>(), 21.0);
  Fn("tensor_scale")(&t, 2.0);
  EXPECT_EQ(data[5], 12.0f);
  // A Tensor object (ours) passed where the module takes a TensorView.
  struct Alloc {
    void AllocData(DLTensor* t) { t->data = std::calloc(t->shape[0], sizeof(float)); }
    void FreeData(DLTensor* t) { std::free(t->data); }
  };
  Tensor owned = Tensor::FromNDAlloc(Alloc{}, {4}, DLDataType{kDLFloat, 32, 1}, DLDevice{kDLCPU, 0});
  static_cast<float*>(owned.data_ptr())[3] = 2.5f;
  EXPECT_DOUBLE_EQ(Fn("tensor_sum")(owned).cast<double>(), 2.5);
  EXPECT_EQ(Fn("echo")(owned).cast<Tensor>().data_ptr(), owned.data_ptr());
  EXPECT_EQ(owned.use_count(), 1);
}

TEST(Interop, ArraysBothWays) {
  Array<int64_t> a{1, 2, 3, 4, 5};
  EXPECT_EQ(Fn("array_sum")(a).cast<int64_t>(), 15);
  Array<String> made = Fn("array_of_strings")(int64_t{10}).cast<Array<String>>();
  ASSERT_EQ(made.size(), 10u);
  EXPECT_EQ(std::string(made[9]), "item-9-with-a-long-tail");
  Array<Any> mixed{Any(1), Any(String("two")), Any(3.0)};
  Array<Any> appended = Fn("array_append")(mixed, String("four")).cast<Array<Any>>();
  EXPECT_EQ(mixed.size(), 3u);  // copy-on-write left ours untouched
  ASSERT_EQ(appended.size(), 4u);
  EXPECT_EQ(appended[3].cast<std::string>(), "four");
  EXPECT_EQ(KindOf([&] { Fn("array_sum")(Array<Any>{Any(String("x"))}); }), "TypeError");
}

TEST(Interop, MapsBuiltByUsAreReadByTheirHashing) {
  for (int64_t n : {0, 1, 2, 3, 4, 5, 16, 100, 3000}) {
    Map<String, int64_t> m;
    for (int64_t i = 0; i < n; ++i) m.Set("key" + std::to_string(i), i * 7);
    for (int64_t i = 0; i < n; i += (n > 100 ? 37 : 1)) {
      EXPECT_EQ(Fn("map_get")(m, String("key" + std::to_string(i))).cast<int64_t>(), i * 7);
    }
    EXPECT_EQ(KindOf([&] { Fn("map_get")(m, String("absent")); }), "KeyError");
    EXPECT_EQ(Fn("map_size")(m).cast<int64_t>(), n);
  }
}

TEST(Interop, MapsBuiltByThemAreReadByOurHashing) {
  for (int64_t n : {0, 1, 3, 4, 5, 64, 2000}) {
    Map<String, int64_t> m = Fn("map_make")(n).cast<Map<String, int64_t>>();
    ASSERT_EQ(static_cast<int64_t>(m.size()), n);
    for (int64_t i = 0; i < n; ++i) {
      EXPECT_EQ(m.at("key" + std::to_string(i)), i * i);
    }
    int64_t expect_next = 0;  // iteration order is insertion order
    for (auto kv : m) {
      EXPECT_EQ(std::string(kv.first), "key" + std::to_string(expect_next));
      ++expect_next;
    }
  }
}

TEST(Interop, MixedKeysInsertEraseAcrossImplementations) {
  std::mt19937 rng(7);
  Map<Any, Any> m;
  std::vector<Any> keys;
  for (int i = 0; i < 400; ++i) {
    Any key = (i % 3 == 0) ? Any(int64_t{i}) : (i % 3 == 1) ? Any(String("k" + std::to_string(i)))
                                                           : Any(String("a longer key number " + std::to_string(i)));
    keys.push_back(key);
    // Alternate who inserts: the module (its inline code) or us.
    if (rng() % 2) {
      m = Fn("map_set")(m, key, int64_t{i}).cast<Map<Any, Any>>();
    } else {
      m.Set(key, int64_t{i});
    }
  }
  for (int i = 0; i < 400; i += 3) {
    if (rng() % 2) {
      m = Fn("map_erase")(m, keys[i]).cast<Map<Any, Any>>();
    } else {
      m.erase(keys[i]);
    }
  }
  for (int i = 0; i < 400; ++i) {
    bool present = i % 3 != 0;
    EXPECT_EQ(Fn("map_count")(m, keys[i]).cast<int64_t>(), present ? 1 : 0) << i;
    EXPECT_EQ(m.find(keys[i]) != m.end(), present) << i;
  }
  // int 1 and bool true are different keys on both sides.
  Map<Any, Any> b;
  b.Set(int64_t{1}, String("int"));
  EXPECT_EQ(Fn("map_count")(b, true).cast<int64_t>(), 0);
  EXPECT_EQ(Fn("map_count")(b, int64_t{1}).cast<int64_t>(), 1);
}

TEST(Interop, DictsMutatedInPlaceByTheirCode) {
  Dict<String, int64_t> d;
  for (int64_t i = 0; i < 50; ++i) {
    Fn("dict_set")(d, String("entry" + std::to_string(i)), i);  // shared, crosses small->dense
    ASSERT_EQ(static_cast<int64_t>(d.size()), i + 1);
  }
  for (int64_t i = 0; i < 50; ++i) EXPECT_EQ(d.at("entry" + std::to_string(i)), i);
}

TEST(Interop, CallbacksAndErrors) {
  Function twice = Function::FromTyped([](int64_t x) { return x * 2; });
  EXPECT_EQ(Fn("call_callback")(twice, int64_t{21}).cast<int64_t>(), 42);
  Function raising = Function::FromTyped([](int64_t) -> int64_t {
    TVM_FFI_THROW(IndexError) << "from our callback";
  });
  try {
    Fn("call_callback")(raising, int64_t{1});
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), "IndexError");
    EXPECT_NE(e.message().find("from our callback"), std::string::npos);
  }
  try {
    Fn("throw_value_error")(String("bad value"));
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), "ValueError");
    EXPECT_EQ(e.message(), "bad value");
    EXPECT_FALSE(e.backtrace().empty());
  }
  EXPECT_EQ(KindOf([] { Fn("throw_key_error")(String("k")); }), "KeyError");
  EXPECT_EQ(KindOf([] { Fn("throw_std")(); }), "InternalError");
  EXPECT_EQ(KindOf([] { Fn("add_int")(String("not an int"), int64_t{1}); }), "TypeError");
  EXPECT_EQ(KindOf([] { Fn("add_int")(int64_t{1}); }), "TypeError");
}

}  // namespace

namespace {

// A ModuleObj subclass compiled against the reference headers (its vtable derives from the
// ModuleObj vtable our library exports), used through our headers: virtual calls, our
// out-of-line GetFunction(name, query_imports), imports() as Array<Any> both ways.
TEST(Interop, ModuleKindFromReferenceHeaders) {
  Module custom = Fn("make_custom")("ref").cast<Module>();
  EXPECT_STREQ(custom->kind(), "interop.custom");
  EXPECT_EQ(custom->GetPropertyMask(), kModuleRunnable);
  EXPECT_EQ((*custom.GetFunction("greet"))("us").cast<std::string>(), "hello us from ref");
  EXPECT_FALSE(custom.GetFunction("missing").has_value());
  EXPECT_TRUE(custom->ImplementsFunction("greet"));
  EXPECT_EQ(std::string(custom->GetFunctionDoc("greet").value()), "says hello (ref)");
  EXPECT_EQ(std::string(custom->InspectSource("")), "source of ref");

  // Imports made by the module's own (inline + our out-of-line) code.
  Module chain = Fn("make_custom_chain")("outer", "inner").cast<Module>();
  ASSERT_EQ(chain->imports().size(), 1u);
  EXPECT_STREQ(chain->imports()[0].cast<Module>()->kind(), "interop.custom");
  EXPECT_FALSE(chain.GetFunction("tag_inner").has_value());
  EXPECT_EQ((*chain.GetFunction("tag_inner", true))().cast<std::string>(), "inner");

  // Our library module imported by the module's code; looked up from its side.
  Module lib = LoadReferenceModule();
  Fn("import_into")(custom, lib);
  EXPECT_EQ(Fn("import_kinds")(custom).cast<Array<String>>().size(), 1u);
  EXPECT_EQ(std::string(Fn("import_kinds")(custom).cast<Array<String>>()[0]), "library");
  EXPECT_TRUE(Fn("find_function")(custom, "add_int", false).is_none());
  Function add = Fn("find_function")(custom, "add_int", true).cast<Function>();
  EXPECT_EQ(add(int64_t{1}, int64_t{2}).cast<int64_t>(), 3);
  EXPECT_FALSE(Fn("implements_function")(custom, "add_int", false).cast<bool>());
  EXPECT_TRUE(Fn("implements_function")(custom, "add_int", true).cast<bool>());
  EXPECT_EQ(Fn("function_doc")(chain, "greet", true).cast<std::string>(), "says hello (outer)");
  EXPECT_TRUE(Fn("cycle_refused")(chain, custom).cast<bool>());
  EXPECT_EQ(Fn("clear_imports")(custom).cast<int64_t>(), 0);
  EXPECT_EQ(custom->imports().size(), 0u);
}

}  // namespace
