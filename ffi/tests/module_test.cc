// Modules: loading a Bazel-built .so, exported functions, import trees from
// __tvm_ffi__library_bin, context symbols, lookups through imports, system libraries, and
// every way a load can fail.
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/extra/c_env_api.h>
#include <tvm/ffi/extra/module.h>

#include <fstream>

#include "test_util.h"

namespace {
using namespace tvm::ffi;
using tvm_ffi_test::Runfile;
using tvm_ffi_test::TakeErrorKind;

/*! A module kind loaded from bytes, to be imported by test_module.so. */
class BlobModuleObj : public ModuleObj {
 public:
  explicit BlobModuleObj(std::string payload) : payload_(std::move(payload)) {}
  const char* kind() const override { return "test_blob"; }
  Optional<Function> GetFunction(const String& name) override {
    if (name != "blob_times_two") return std::nullopt;
    return Function::FromTyped([](int64_t x) { return x * 2; });
  }
  std::string payload_;
};

int64_t g_blob_loads = 0;
std::string g_blob_payload;

class ModuleTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    Function::SetGlobal("ffi.Module.load_from_bytes.test_blob", Function::FromTyped([](Bytes b) {
      ++g_blob_loads;
      g_blob_payload = std::string(b);
      return Module(make_object<BlobModuleObj>(std::string(b)));
    }), true);
    ASSERT_EQ(TVMFFIEnvModRegisterContextSymbol("__test_context_value", reinterpret_cast<void*>(0x1234)), 0);
  }
  static Module Load() { return Module::LoadFromFile(Runfile("ffi/tests/test_module.so")); }
};

TEST_F(ModuleTest, ImportTreeAndLibraryFunctions) {
  Module root = Load();
  EXPECT_EQ(g_blob_payload, "hello");
  // Module 0 of the blob is "_lib": the root is the library itself, importing the blob module.
  Module lib = root;
  ASSERT_EQ(lib->imports().size(), 1u);
  EXPECT_STREQ(lib->imports()[0].cast<Module>()->kind(), "test_blob");
  std::optional<Function> add_one = lib.GetFunction("add_one");
  ASSERT_TRUE(add_one.has_value());
  EXPECT_EQ((*add_one)(41).cast<int64_t>(), 42);
  EXPECT_FALSE(lib.GetFunction("blob_times_two").has_value());
  ASSERT_TRUE(lib.GetFunction("blob_times_two", /*query_imports=*/true).has_value());
  EXPECT_FALSE(lib.GetFunction("does_not_exist", true).has_value());
}

TEST_F(ModuleTest, ContextSymbolAndLookupFromImports) {
  Module lib = Load();
  EXPECT_EQ((*lib.GetFunction("get_context_value"))().cast<int64_t>(), 0x1234);
  Function call_imported = *lib.GetFunction("call_imported");
  EXPECT_EQ(call_imported("blob_times_two", 21).cast<int64_t>(), 42);
  Function::SetGlobal("test.module.global_fallback", Function::FromTyped([](int64_t x) { return x - 1; }), true);
  EXPECT_EQ(call_imported("test.module.global_fallback", 1).cast<int64_t>(), 0);
  EXPECT_THROW_KIND(call_imported("nowhere_to_be_found", 1), "RuntimeError");
}

TEST_F(ModuleTest, TensorArgumentAndErrors) {
  Module lib = Load();
  float data[4] = {1, 2, 3, 4.5f};
  int64_t shape[1] = {4};
  DLTensor t{data, {kDLCPU, 0}, 1, {kDLFloat, 32, 1}, shape, nullptr, 0};
  Function sum = *lib.GetFunction("sum_tensor");
  EXPECT_DOUBLE_EQ(sum(&t).cast<double>(), 10.5);
  EXPECT_THROW_KIND(sum(1), "TypeError");
  EXPECT_THROW_KIND((*lib.GetFunction("raise_value_error"))("bad"), "ValueError");
}

TEST_F(ModuleTest, DocAndMetadataThroughGlobals) {
  Module lib = Load();
  Function get_doc = Function::GetGlobalRequired("ffi.ModuleGetFunctionDoc");
  EXPECT_EQ(get_doc(lib, "add_one", false).cast<std::string>(), "Adds one.");
  EXPECT_TRUE(get_doc(lib, "sum_tensor", false).is_none());
  Function kind = Function::GetGlobalRequired("ffi.ModuleGetKind");
  EXPECT_EQ(kind(lib).cast<std::string>(), "library");
  Function implements = Function::GetGlobalRequired("ffi.ModuleImplementsFunction");
  EXPECT_TRUE(implements(lib, "add_one", false).cast<bool>());
  EXPECT_FALSE(implements(lib, "nope", true).cast<bool>());
}

TEST_F(ModuleTest, FunctionsKeepTheLibraryAlive) {
  std::optional<Function> f;
  {
    Module lib = Load();
    f = lib.GetFunction("add_one");
  }
  EXPECT_EQ((*f)(1).cast<int64_t>(), 2);
}

TEST_F(ModuleTest, LoadFailuresAreErrors) {
  EXPECT_THROW_KIND(Module::LoadFromFile("/nonexistent/dir/lib.so"), "RuntimeError");
  std::string tmp = std::string(std::getenv("TEST_TMPDIR")) + "/not_a_library.so";
  std::ofstream(tmp) << "this is plain text, not ELF";
  try {
    Module::LoadFromFile(tmp);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), "RuntimeError");
    EXPECT_NE(e.message().find("not_a_library.so"), std::string::npos) << e.message();
  }
  EXPECT_THROW_KIND(Module::LoadFromFile(std::string(std::getenv("TEST_TMPDIR")) + "/x.unknownfmt"),
                    "RuntimeError");
  EXPECT_THROW_KIND(Module::LoadFromFile(Runfile("ffi/tests/corrupt_module.so")), "ValueError");
}

TEST_F(ModuleTest, ImportCyclesAreRejected) {
  Module a(make_object<BlobModuleObj>("a"));
  Module b(make_object<BlobModuleObj>("b"));
  a->ImportModule(b);
  EXPECT_THROW_KIND(b->ImportModule(a), "RuntimeError");
  EXPECT_THROW_KIND(a->ImportModule(a), "RuntimeError");
}

extern "C" int SystemLibAddTwo(void*, const TVMFFIAny* args, int32_t, TVMFFIAny* result) {
  result->type_index = kTVMFFIInt;
  result->v_int64 = args[0].v_int64 + 2;
  return 0;
}

TEST(SystemLib, PrefixedAndPlainSymbols) {
  TVMFFIEnvModRegisterSystemLibSymbol("__tvm_ffi_testing.add_two", reinterpret_cast<void*>(SystemLibAddTwo));
  Function system_lib = Function::GetGlobalRequired("ffi.SystemLib");
  Module prefixed = system_lib("testing.").cast<Module>();
  Module again = system_lib("testing.").cast<Module>();
  EXPECT_TRUE(prefixed.same_as(again));  // cached per prefix
  std::optional<Function> f = prefixed.GetFunction("add_two");
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ((*f)(1).cast<int64_t>(), 3);
  Module plain = system_lib(nullptr).cast<Module>();
  EXPECT_TRUE(plain.GetFunction("testing.add_two").has_value());
  EXPECT_FALSE(plain.GetFunction("add_two").has_value());
}

TEST(ModuleGlobals, PinAndUnpin) {
  Module m(make_object<BlobModuleObj>("pinned"));
  Function add = Function::GetGlobalRequired("ffi.ModuleGlobalsAdd");
  Function remove = Function::GetGlobalRequired("ffi.ModuleGlobalsRemove");
  add(m);
  EXPECT_EQ(m.use_count(), 2);
  EXPECT_TRUE(remove(m).cast<bool>());
  EXPECT_FALSE(remove(m).cast<bool>());
  EXPECT_EQ(m.use_count(), 1);
}

}  // namespace
