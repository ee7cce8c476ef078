/*
 * Build facts of libtvm_runtime_cuda (`runtime_cuda.BuildInfo()` returns JSON), merged by
 * tvm.support.libinfo(). CUDA_VERSION is the toolkit header this library was compiled
 * against; whether a driver is present is a run-time fact (runtime.cuda.DriverStatus).
 */
#include <cuda.h>
#include <tvm/ffi/function.h>

#include <string>

#include "../registry.h"

#ifndef TVM_GIT_REVISION
#define TVM_GIT_REVISION "unknown"
#endif
#ifndef TVM_STACK_VERSION
#error "TVM_STACK_VERSION is not defined (build through tvm_build_info)"
#endif

namespace tvm {
namespace runtime {
namespace cuda {

TVM_FFI_STATIC_INIT_BLOCK() {
  RegisterGlobal("runtime_cuda.BuildInfo", []() {
    std::string sanitizers;
#if defined(__SANITIZE_ADDRESS__)
    sanitizers = "address";
#endif
    std::string out = "{\"library\": \"tvm_runtime_cuda\", \"version\": \"" TVM_STACK_VERSION "\", ";
    out += "\"git_revision\": \"" TVM_GIT_REVISION "\", ";
#if defined(__GNUC__) && !defined(__clang__)
    out += "\"compiler\": \"gcc " __VERSION__ "\", ";
#else
    out += "\"compiler\": \"" __VERSION__ "\", ";
#endif
    out += "\"sanitizers\": \"" + sanitizers + "\", ";
    out += "\"CUDA_VERSION\": \"" + std::to_string(CUDA_VERSION / 1000) + "." +
           std::to_string(CUDA_VERSION % 1000 / 10) + "\", ";
    out += "\"USE_CUDA\": \"ON\"}";
    return ffi::String(out);
  });
}

}  // namespace cuda
}  // namespace runtime
}  // namespace tvm
