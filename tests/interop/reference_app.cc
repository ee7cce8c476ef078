/*
 * A C++ application compiled against apache-tvm-ffi's headers and linked to *our*
 * libtvm_ffi.so: it loads reference_module.so (also built with the reference headers) and
 * uses the out-of-line C++ API of modules, i.e. the symbols the reference headers expect
 * libtvm_ffi to export with their Itanium names: Module::LoadFromFile,
 * ModuleObj::GetFunction/ImplementsFunction/GetFunctionDoc/GetFunctionMetadata(name, bool),
 * ImportModule and ClearImports (virtual: called through our library module's vtable),
 * imports() (Array<Any> read inline at the reference's offset), Module::VisitContextSymbols.
 * The imported module is a ModuleObj subclass defined in reference_module.so, whose vtable
 * and typeinfo derive from those our library exports.
 */
#include <gtest/gtest.h>
#include <tvm/ffi/c_api.h>
#include <tvm/ffi/extra/c_env_api.h>
#include <tvm/ffi/extra/module.h>
#include <tvm/ffi/function.h>

#include <cstdlib>
#include <string>

namespace {
using namespace tvm::ffi;

std::string ModulePath() {
  return std::string(std::getenv("TEST_SRCDIR")) + "/" + std::getenv("TEST_WORKSPACE") +
         "/tests/interop/reference_module.so";
}

TEST(ReferenceHeaderApp, LoadsImportsAndLooksUpThroughOurLibrary) {
  Module lib = Module::LoadFromFile(ModulePath());
  EXPECT_STREQ(lib->kind(), "library");
  EXPECT_EQ(lib->imports().size(), 0u);
  Optional<Function> make = lib->GetFunction("make_custom", false);
  ASSERT_TRUE(make.has_value());
  Module custom = make.value()("app").cast<Module>();
  EXPECT_STREQ(custom->kind(), "interop.custom");

  lib->ImportModule(custom);
  ASSERT_EQ(lib->imports().size(), 1u);
  EXPECT_STREQ(lib->imports()[0].cast<Module>()->kind(), "interop.custom");
  EXPECT_TRUE(lib->imports()[0].cast<Module>().same_as(custom));

  EXPECT_FALSE(lib->GetFunction("greet", false).has_value());
  Optional<Function> greet = lib->GetFunction("greet", true);
  ASSERT_TRUE(greet.has_value());
  EXPECT_EQ(greet.value()("you").cast<String>(), "hello you from app");
  EXPECT_FALSE(lib->ImplementsFunction("greet", false));
  EXPECT_TRUE(lib->ImplementsFunction("greet", true));
  EXPECT_TRUE(lib->ImplementsFunction("add_int", false));
  EXPECT_FALSE(lib->GetFunctionDoc("greet", false).has_value());
  Optional<String> doc = lib->GetFunctionDoc("greet", true);
  ASSERT_TRUE(doc.has_value());
  EXPECT_EQ(doc.value(), "says hello (app)");
  EXPECT_FALSE(lib->GetFunctionMetadata("no_such_function", true).has_value());
  EXPECT_FALSE(lib->GetFunction("no_such_function", true).has_value());

  // Our ImportModule refuses cycles; through the C ABI the error arrives as an Error.
  Function import = Function::GetGlobalRequired("ffi.ModuleImportModule");
  try {
    import(custom, lib);
    ADD_FAILURE() << "cycle accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), "RuntimeError");
  }

  // A chain made inside the module (its own ImportModule call resolves to our library).
  Module chain = lib->GetFunction("make_custom_chain", false).value()("outer", "inner")
                     .cast<Module>();
  ASSERT_EQ(chain->imports().size(), 1u);
  EXPECT_FALSE(chain->GetFunction("tag_inner", false).has_value());
  EXPECT_EQ(chain->GetFunction("tag_inner", true).value()().cast<String>(), "inner");
  lib->ImportModule(chain);
  EXPECT_EQ(lib->GetFunction("tag_inner", true).value()().cast<String>(), "inner");

  lib->ClearImports();
  EXPECT_EQ(lib->imports().size(), 0u);
  EXPECT_FALSE(lib->GetFunction("greet", true).has_value());
}

TEST(ReferenceHeaderApp, VisitsContextSymbols) {
  static int marker = 0;
  ASSERT_EQ(TVMFFIEnvModRegisterContextSymbol("__interop_app_ctx", &marker), 0);
  int seen = 0;
  Module::VisitContextSymbols([&seen](String name, void* value) {
    if (name == "__interop_app_ctx" && value == &marker) ++seen;
  });
  EXPECT_EQ(seen, 1);
}

}  // namespace
