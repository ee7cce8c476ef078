/*
 * Build facts of libtvm_runtime as compiled (`runtime.BuildInfo()` returns JSON), merged by
 * tvm.support.libinfo() with those of the other loaded libraries.
 */
#include <tvm/ffi/function.h>

#include <string>

#include "bazel/build_facts.h"
#include "../support/registry.h"

namespace tvm {
namespace runtime {

TVM_FFI_STATIC_INIT_BLOCK() {
  RegisterRuntimeGlobal("runtime.BuildInfo", []() {
    std::string out = BuildFactsPrefix("tvm_runtime");
    out += "\"USE_RPC\": \"ON\", \"USE_THREADS\": \"ON\", \"USE_LLVM\": \"OFF\", \"USE_CUDA\": \"OFF\"}";
    return ffi::String(out);
  });
}

}  // namespace runtime
}  // namespace tvm
