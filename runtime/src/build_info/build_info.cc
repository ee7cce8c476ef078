/*
 * Build facts of libtvm_runtime as compiled (`runtime.BuildInfo()` returns JSON), merged by
 * tvm.support.libinfo() with those of the other loaded libraries.
 */
#include <tvm/ffi/function.h>

#include <string>

#include "../support/registry.h"

#ifndef TVM_GIT_REVISION
#define TVM_GIT_REVISION "unknown"
#endif
#ifndef TVM_STACK_VERSION  // written once, in bazel/version.bzl; passed by tvm_build_info
#error "TVM_STACK_VERSION is not defined (build through tvm_build_info)"
#endif

namespace tvm {
namespace runtime {

TVM_FFI_STATIC_INIT_BLOCK() {
  RegisterRuntimeGlobal("runtime.BuildInfo", []() {
    std::string sanitizers;
#if defined(__SANITIZE_ADDRESS__)
    sanitizers = "address";
#endif
    std::string out = "{\"library\": \"tvm_runtime\", \"version\": \"" TVM_STACK_VERSION "\", ";
    out += "\"git_revision\": \"" TVM_GIT_REVISION "\", ";
#if defined(__GNUC__) && !defined(__clang__)
    out += "\"compiler\": \"gcc " __VERSION__ "\", ";
#else
    out += "\"compiler\": \"" __VERSION__ "\", ";
#endif
    out += "\"sanitizers\": \"" + sanitizers + "\", ";
    out += "\"USE_RPC\": \"ON\", \"USE_THREADS\": \"ON\", \"USE_LLVM\": \"OFF\", \"USE_CUDA\": \"OFF\"}";
    return ffi::String(out);
  });
}

}  // namespace runtime
}  // namespace tvm
