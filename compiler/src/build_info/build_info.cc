/*
 * Build facts of libtvm_compiler as compiled (`compiler.BuildInfo()` returns JSON). LLVM is
 * not linked here: the Python driver adds the llvmlite/LLVM versions it actually imported.
 */
#include <tvm/ffi/function.h>

#include <string>

#include "bazel/build_facts.h"
#include "../support/registry.h"

namespace tvm {
namespace {

TVM_FFI_STATIC_INIT_BLOCK() {
  RegisterCompilerGlobal("compiler.BuildInfo", []() {
    std::string out = BuildFactsPrefix("tvm_compiler", /*with_sanitizers=*/false);
    out += "\"USE_LLVM\": \"ON\", \"LLVM_LINKAGE\": \"llvmlite (Python)\", ";
    out += "\"CODEGEN\": \"llvm\"}";
    return ffi::String(out);
  });
}

}  // namespace
}  // namespace tvm
