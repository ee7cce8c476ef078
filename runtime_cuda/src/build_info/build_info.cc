/*
 * Build facts of libtvm_runtime_cuda (`runtime_cuda.BuildInfo()` returns JSON), merged by
 * tvm.support.libinfo(). CUDA_VERSION is the toolkit header this library was compiled
 * against; whether a driver is present is a run-time fact (runtime.cuda.DriverStatus).
 */
#include <cuda.h>
#include <tvm/ffi/function.h>

#include <string>

#include "bazel/build_facts.h"
#include "../registry.h"

namespace tvm {
namespace runtime {
namespace cuda {

TVM_FFI_STATIC_INIT_BLOCK() {
  RegisterGlobal("runtime_cuda.BuildInfo", []() {
    std::string out = BuildFactsPrefix("tvm_runtime_cuda");
    out += "\"CUDA_VERSION\": \"" + std::to_string(CUDA_VERSION / 1000) + "." +
           std::to_string(CUDA_VERSION % 1000 / 10) + "\", ";
    out += "\"USE_CUDA\": \"ON\"}";
    return ffi::String(out);
  });
}

}  // namespace cuda
}  // namespace runtime
}  // namespace tvm
