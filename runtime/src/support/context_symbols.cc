/*
 * The context symbols libtvm_runtime offers to libraries loaded after it.
 *
 * Host code compiled with dynamic lookup (apache-tvm 0.27 does so for modules with device code;
 * system libraries do too) calls the FFI and backend entry points through weak data symbols
 * `__TVMFFIFunctionCall`, `__TVMBackendParallelLaunch`, ... that the loader fills in
 * (TVMFFIEnvModRegisterContextSymbol). Unfilled, the first call jumps to address 0. apache-tvm's
 * libtvm_runtime registers the same eight names; our own compiler calls the functions directly,
 * so only foreign libraries need this (tests/interop/test_cuda_blob_apache_tvm.py).
 */
#include <tvm/ffi/base_details.h>
#include <tvm/ffi/c_api.h>
#include <tvm/ffi/extra/c_env_api.h>
#include <tvm/runtime/c_backend_api.h>

namespace {

void Add(const char* name, void* symbol) {
  // Cannot fail for a non-null name; nothing to report from a static initializer anyway.
  (void)TVMFFIEnvModRegisterContextSymbol(name, symbol);
}

}  // namespace

TVM_FFI_STATIC_INIT_BLOCK() {
  Add("__TVMFFIFunctionCall", reinterpret_cast<void*>(&TVMFFIFunctionCall));
  Add("__TVMFFIErrorSetRaisedFromCStr", reinterpret_cast<void*>(&TVMFFIErrorSetRaisedFromCStr));
  Add("__TVMFFIEnvModLookupFromImports", reinterpret_cast<void*>(&TVMFFIEnvModLookupFromImports));
  Add("__TVMFFIHandleInitOnce", reinterpret_cast<void*>(&TVMFFIHandleInitOnce));
  Add("__TVMBackendAllocWorkspace", reinterpret_cast<void*>(&TVMBackendAllocWorkspace));
  Add("__TVMBackendFreeWorkspace", reinterpret_cast<void*>(&TVMBackendFreeWorkspace));
  Add("__TVMBackendParallelLaunch", reinterpret_cast<void*>(&TVMBackendParallelLaunch));
  Add("__TVMBackendParallelBarrier", reinterpret_cast<void*>(&TVMBackendParallelBarrier));
}
