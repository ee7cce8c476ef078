// A loadable module built by Bazel for module_test.cc: exported typed functions, metadata,
// a context symbol, an import tree in __tvm_ffi__library_bin, and lookups through imports.
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/extra/c_env_api.h>
#include <tvm/ffi/function.h>

namespace ffi = tvm::ffi;

extern "C" {
// Filled by the loader (TVMFFIEnvModRegisterContextSymbol in the test).
TVM_FFI_DLL_EXPORT void* __test_context_value = nullptr;
// Filled by the loader with this library's module.
TVM_FFI_DLL_EXPORT void* __tvm_ffi__library_ctx = nullptr;

#define U64(x) (char)((x)&0xFF), 0, 0, 0, 0, 0, 0, 0
// Import tree: module 0 is this library ("_lib"), importing module 1 of kind "test_blob"
// whose payload is "hello" (loaded by the test's `ffi.Module.load_from_bytes.test_blob`).
// `extern` gives the const array external linkage so the loader can find it.
TVM_FFI_DLL_EXPORT extern const char __tvm_ffi__library_bin[] = {
    U64(90),
    U64(3), U64(0), U64(1), U64(1),  // indptr
    U64(1), U64(1),                  // child indices
    U64(4), '_', 'l', 'i', 'b',
    U64(9), 't', 'e', 's', 't', '_', 'b', 'l', 'o', 'b',
    U64(5), 'h', 'e', 'l', 'l', 'o'};
}

int64_t AddOne(int64_t x) { return x + 1; }
TVM_FFI_DLL_EXPORT_TYPED_FUNC(add_one, AddOne);

TVM_FFI_DLL_EXPORT_TYPED_FUNC(sum_tensor, [](ffi::TensorView t) {
  double total = 0;
  const float* data = static_cast<const float*>(t.data_ptr());
  for (int64_t i = 0; i < t.numel(); ++i) total += data[i];
  return total;
});

TVM_FFI_DLL_EXPORT_TYPED_FUNC(get_context_value, []() {
  return reinterpret_cast<int64_t>(__test_context_value);
});

// Calls `name` found through this library's imports (or the global registry).
TVM_FFI_DLL_EXPORT_TYPED_FUNC(call_imported, [](ffi::String name, int64_t x) {
  TVMFFIObjectHandle f = nullptr;
  TVM_FFI_CHECK_SAFE_CALL(TVMFFIEnvModLookupFromImports(__tvm_ffi__library_ctx, name.c_str(), &f));
  // The handle is borrowed from the module's cache.
  ffi::Function fn(ffi::details::ObjectUnsafe::PtrFromUnowned<ffi::FunctionObj>(
      ffi::details::ObjectUnsafe::FromHandle(f)));
  return fn(x);
});

TVM_FFI_DLL_EXPORT_TYPED_FUNC(raise_value_error, [](ffi::String msg) {
  TVM_FFI_THROW(ValueError) << msg;
});

// Documentation and metadata symbols of add_one.
extern "C" TVM_FFI_DLL_EXPORT int __tvm_ffi__doc_add_one(void*, const TVMFFIAny*, int32_t,
                                                         TVMFFIAny* result) {
  TVMFFIByteArray doc{"Adds one.", 9};
  return TVMFFIStringFromByteArray(&doc, result);
}
