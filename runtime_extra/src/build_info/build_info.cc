/*
 * Build facts of libtvm_runtime_extra (`runtime_extra.BuildInfo()` returns JSON), merged by
 * tvm.support.libinfo(). Which collective engines are usable is a run-time fact: each one is
 * a plugin found at init_ccl (`runtime.disco.probe_ccl(name)`), never a build fact here.
 */
#include <tvm/ffi/function.h>

#include <string>

#include "bazel/build_facts.h"
#include "../registry.h"

namespace tvm {
namespace runtime {
namespace extra {

TVM_FFI_STATIC_INIT_BLOCK() {
  RegisterGlobal("runtime_extra.BuildInfo", []() {
    std::string out = BuildFactsPrefix("tvm_runtime_extra");
    out += "\"USE_DISCO\": \"ON\", \"DISCO_SESSIONS\": \"threaded,process\"}";
    return ffi::String(out);
  });
}

}  // namespace extra
}  // namespace runtime
}  // namespace tvm
