// Functions: creation from C and C++, typed argument checking, the global registry.
#include <tvm/ffi/function.h>

#include <atomic>
#include <thread>
#include <vector>

#include "test_util.h"

namespace {
using namespace tvm::ffi;
using tvm_ffi_test::Bytes;
using tvm_ffi_test::TakeErrorKind;

int AddOneRaw(void* handle, const TVMFFIAny* args, int32_t num_args, TVMFFIAny* result) {
  (void)handle;
  if (num_args != 1 || args[0].type_index != kTVMFFIInt) {
    TVMFFIErrorSetRaisedFromCStr("TypeError", "add_one expects one int");
    return -1;
  }
  result->type_index = kTVMFFIInt;
  result->v_int64 = args[0].v_int64 + 1;
  return 0;
}

TEST(Function, CreateWithoutSelfPassesFunctionHandle) {
  static void* seen = nullptr;
  TVMFFIObjectHandle f = nullptr;
  ASSERT_EQ(TVMFFIFunctionCreate(nullptr, [](void* h, const TVMFFIAny*, int32_t, TVMFFIAny* r) {
    seen = h;
    r->type_index = kTVMFFINone;
    return 0;
  }, nullptr, &f), 0);
  TVMFFIAny result{};
  ASSERT_EQ(TVMFFIFunctionCall(f, nullptr, 0, &result), 0);
  EXPECT_EQ(seen, f);
  EXPECT_EQ(TVMFFIFunctionGetCellPtr(f)->cpp_call, nullptr);
  TVMFFIObjectDecRef(f);
}

TEST(Function, CreateWithSelfAndDeleter) {
  static int deleted = 0;
  int context = 10;
  TVMFFIObjectHandle f = nullptr;
  ASSERT_EQ(TVMFFIFunctionCreate(&context, [](void* self, const TVMFFIAny* args, int32_t, TVMFFIAny* r) {
    r->type_index = kTVMFFIInt;
    r->v_int64 = *static_cast<int*>(self) + args[0].v_int64;
    return 0;
  }, [](void* self) { deleted = *static_cast<int*>(self); }, &f), 0);
  Function fn(details::ObjectUnsafe::PtrFromOwnedHandle<FunctionObj>(f));
  EXPECT_EQ(fn(5).cast<int>(), 15);
  fn = Function();
  EXPECT_EQ(deleted, 10);
}

TEST(Function, CallErrorsAndBadInput) {
  Function f = Function::FromExternC(nullptr, AddOneRaw, nullptr);
  EXPECT_EQ(f(41).cast<int64_t>(), 42);
  EXPECT_THROW_KIND(f("x"), "TypeError");
  TVMFFIAny result{};
  EXPECT_EQ(TVMFFIFunctionCall(nullptr, nullptr, 0, &result), -1);
  EXPECT_EQ(TakeErrorKind(), "ValueError");
  String not_a_function("this is a long string, a heap object");
  EXPECT_EQ(TVMFFIFunctionCall(const_cast<TVMFFIAny*>(not_a_function.raw())->v_obj, nullptr, 0, &result), -1);
  EXPECT_EQ(TakeErrorKind(), "TypeError");
  EXPECT_EQ(TVMFFIFunctionCreate(nullptr, nullptr, nullptr, nullptr), -1);
  EXPECT_EQ(TakeErrorKind(), "ValueError");
}

TEST(Function, TypedArgumentErrorsNameTheArgument) {
  Function f = Function::FromTyped([](int64_t a, String b, double c) {
    return String(std::to_string(a) + std::string(b) + std::to_string(static_cast<int>(c)));
  }, "concat");
  EXPECT_EQ(f(1, "x", 2.0).cast<std::string>(), "1x2");
  EXPECT_EQ(f(1, "x", 2).cast<std::string>(), "1x2");  // int converts to float
  try {
    f(1, 2, 3.0);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), "TypeError");
    EXPECT_NE(e.message().find("argument #1"), std::string::npos) << e.message();
    EXPECT_NE(e.message().find("concat(int, str, float) -> str"), std::string::npos) << e.message();
    EXPECT_NE(e.message().find("Expected `str` but got `int`"), std::string::npos) << e.message();
  }
  try {
    f(1);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), "TypeError");
    EXPECT_NE(e.message().find("Expected 3 but got 1 arguments"), std::string::npos) << e.message();
  }
  Function narrow = Function::FromTyped([](int32_t x) { return x; }, "narrow");
  EXPECT_THROW_KIND(narrow(int64_t{1} << 40), "TypeError");  // out of range, not truncated
}

TEST(Function, PackedAndCallbacks) {
  Function sum = Function::FromPacked([](PackedArgs args, Any* rv) {
    int64_t total = 0;
    for (int32_t i = 0; i < args.size(); ++i) total += args[i].cast<int64_t>();
    *rv = total;
  });
  EXPECT_EQ(sum().cast<int64_t>(), 0);
  EXPECT_EQ(sum(1, 2, 3, 4).cast<int64_t>(), 10);
  Function apply = Function::FromTyped([](Function f, int64_t x) { return f(x, x); });
  EXPECT_EQ(apply(sum, 21).cast<int64_t>(), 42);
  TypedFunction<int64_t(int64_t, int64_t)> typed = sum;
  EXPECT_EQ(typed(2, 3), 5);
  Function returns_none = Function::FromTyped([]() {});
  EXPECT_TRUE(returns_none().is_none());
}

TEST(Function, ManyThreadsCallOneFunction) {
  std::atomic<int64_t> total{0};
  Function f = Function::FromTyped([&total](int64_t x) {
    total += x;
    return x * 2;
  });
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&f] {
      for (int i = 0; i < 5000; ++i) {
        Function copy = f;
        EXPECT_EQ(copy(int64_t{3}).cast<int64_t>(), 6);
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(total.load(), 4 * 5000 * 3);
  EXPECT_EQ(f.use_count(), 1);
}

TEST(Registry, AddOverrideRemoveList) {
  Function one = Function::FromTyped([]() { return 1; });
  Function two = Function::FromTyped([]() { return 2; });
  const std::string name = "test.registry.value";
  Function::SetGlobal(name, one);
  EXPECT_EQ(Function::GetGlobalRequired(name)().cast<int>(), 1);
  EXPECT_THROW_KIND(Function::SetGlobal(name, two), "RuntimeError");
  Function::SetGlobal(name, two, /*allow_override=*/true);
  EXPECT_EQ(Function::GetGlobalRequired(name)().cast<int>(), 2);
  EXPECT_EQ(one.use_count(), 1);  // the registry released the overridden function

  Function lister = Function::GetGlobalRequired("ffi.FunctionListGlobalNamesFunctor")().cast<Function>();
  int64_t count = lister(int64_t{-1}).cast<int64_t>();
  bool found = false;
  for (int64_t i = 0; i < count; ++i) found |= lister(i).cast<std::string>() == name;
  EXPECT_TRUE(found);

  Function remove = Function::GetGlobalRequired("ffi.FunctionRemoveGlobal");
  EXPECT_TRUE(remove(name).cast<bool>());
  EXPECT_FALSE(remove(name).cast<bool>());
  EXPECT_FALSE(Function::GetGlobal(name).has_value());
  EXPECT_THROW_KIND(Function::GetGlobalRequired(name), "ValueError");
  TVMFFIByteArray key = Bytes(name);
  TVMFFIObjectHandle out = reinterpret_cast<TVMFFIObjectHandle>(0x1);
  EXPECT_EQ(TVMFFIFunctionGetGlobal(&key, &out), 0);  // absent: not an error
  EXPECT_EQ(out, nullptr);
}

TEST(Registry, MethodInfoKeepsDocAndMetadata) {
  Function f = Function::FromTyped([](int64_t x) { return x; });
  TVMFFIMethodInfo info{};
  info.name = Bytes("test.registry.documented");
  info.doc = Bytes("returns x");
  info.metadata = Bytes("{\"type_schema\": \"int\"}");
  TypeTraits<Function>::CopyToAnyView(f, &info.method);
  ASSERT_EQ(TVMFFIFunctionSetGlobalFromMethodInfo(&info, 0), 0);
  EXPECT_EQ(TVMFFIFunctionSetGlobalFromMethodInfo(&info, 0), -1);
  EXPECT_EQ(TakeErrorKind(), "RuntimeError");
  Function meta = Function::GetGlobalRequired("ffi.GetGlobalFuncMetadata");
  EXPECT_EQ(meta("test.registry.documented").cast<std::string>(), "{\"type_schema\": \"int\"}");
  EXPECT_THROW_KIND(meta("test.registry.missing"), "RuntimeError");
  TVMFFIObjectHandle not_function = nullptr;
  TVMFFIByteArray name = Bytes("test.registry.bad");
  EXPECT_EQ(TVMFFIFunctionSetGlobal(&name, not_function, 0), -1);
  EXPECT_EQ(TakeErrorKind(), "ValueError");
}

TEST(AnyView, ToOwnedConvertsBorrowedKinds) {
  TVMFFIAny view{};
  view.type_index = kTVMFFIRawStr;
  view.v_c_str = "a raw C string longer than seven";
  TVMFFIAny owned{};
  ASSERT_EQ(TVMFFIAnyViewToOwnedAny(&view, &owned), 0);
  EXPECT_EQ(owned.type_index, kTVMFFIStr);
  Any a = Any::FromOwnedRaw(owned);
  EXPECT_EQ(a.cast<std::string>(), "a raw C string longer than seven");

  std::string bytes("xy");
  TVMFFIByteArray arr{bytes.data(), bytes.size()};
  view.type_index = kTVMFFIByteArrayPtr;
  view.v_ptr = &arr;
  ASSERT_EQ(TVMFFIAnyViewToOwnedAny(&view, &owned), 0);
  EXPECT_EQ(owned.type_index, kTVMFFISmallBytes);

  // RValueRef: the object is moved out of the slot exactly once.
  Function f = Function::FromTyped([]() { return 1; });
  TVMFFIObject* slot = details::ObjectUnsafe::GetHeader(f.get());
  details::ObjectUnsafe::IncRef(f.get());
  view.type_index = kTVMFFIObjectRValueRef;
  view.v_ptr = &slot;
  ASSERT_EQ(TVMFFIAnyViewToOwnedAny(&view, &owned), 0);
  EXPECT_EQ(slot, nullptr);
  EXPECT_EQ(owned.type_index, kTVMFFIFunction);
  Any moved = Any::FromOwnedRaw(owned);
  EXPECT_EQ(f.use_count(), 2);
  EXPECT_EQ(TVMFFIAnyViewToOwnedAny(&view, &owned), -1);
  EXPECT_EQ(TakeErrorKind(), "RuntimeError");
}

TEST(Any, ValueKindsAndConversions) {
  Any none;
  EXPECT_TRUE(none.is_none());
  EXPECT_EQ(Any(true).type_index(), kTVMFFIBool);
  EXPECT_EQ(Any(1).type_index(), kTVMFFIInt);
  EXPECT_EQ(Any(1.5).type_index(), kTVMFFIFloat);
  EXPECT_EQ(Any(DLDevice{kDLCUDA, 3}).cast<DLDevice>().device_id, 3);
  EXPECT_FALSE(Any(1) == Any(true));  // int 1 and bool true are different values
  EXPECT_EQ(Any(1).cast<bool>(), true);
  EXPECT_THROW_KIND(Any(1.5).cast<int>(), "TypeError");
  EXPECT_FALSE(Any("str").as<int>().has_value());
  std::optional<int64_t> opt = Any().cast<std::optional<int64_t>>();
  EXPECT_FALSE(opt.has_value());
  EXPECT_EQ(Any(7).cast<std::optional<int64_t>>().value(), 7);
  int x = 0;
  Any ptr = static_cast<void*>(&x);
  EXPECT_EQ(ptr.cast<void*>(), &x);
}

}  // namespace
