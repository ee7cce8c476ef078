/*
 * Build facts of libtvm_compiler as compiled (`compiler.BuildInfo()` returns JSON). LLVM is
 * not linked here: the Python driver adds the llvmlite/LLVM versions it actually imported.
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
namespace {

TVM_FFI_STATIC_INIT_BLOCK() {
  RegisterCompilerGlobal("compiler.BuildInfo", []() {
    std::string out = "{\"library\": \"tvm_compiler\", \"version\": \"" TVM_STACK_VERSION "\", ";
    out += "\"git_revision\": \"" TVM_GIT_REVISION "\", ";
#if defined(__GNUC__) && !defined(__clang__)
    out += "\"compiler\": \"gcc " __VERSION__ "\", ";
#else
    out += "\"compiler\": \"" __VERSION__ "\", ";
#endif
    out += "\"USE_LLVM\": \"ON\", \"LLVM_LINKAGE\": \"llvmlite (Python)\", ";
    out += "\"CODEGEN\": \"llvm\"}";
    return ffi::String(out);
  });
}

}  // namespace
}  // namespace tvm
