/*
 * Build facts of libtvm_runtime_extra (`runtime_extra.BuildInfo()` returns JSON), merged by
 * tvm.support.libinfo(): which plugins and contrib libraries this build made (USE_GLOO,
 * USE_NCCL: the Disco plugins next to this library; USE_CUBLAS: tvm.contrib.cublas.* in it;
 * defines from //runtime_extra:build_flags). Whether each is usable is a run-time fact
 * (`runtime.disco.probe_ccl(name)`, `tvm.contrib.cublas.probe()`), never a build fact here.
 * Also `runtime.disco.compiled_ccl` (TVM's name), which is a build fact too.
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
    out += "\"USE_DISCO\": \"ON\", \"DISCO_SESSIONS\": \"threaded,process,socket\", ";
#ifdef TVM_EXTRA_GLOO_PLUGIN
    out += "\"USE_GLOO\": \"ON\", ";
#else
    out += "\"USE_GLOO\": \"OFF\", ";
#endif
#ifdef TVM_EXTRA_NCCL_PLUGIN
    out += "\"USE_NCCL\": \"ON\", ";
#else
    out += "\"USE_NCCL\": \"OFF\", ";
#endif
#ifdef TVM_EXTRA_CUBLAS
    out += "\"USE_CUBLAS\": \"ON\"}";
#else
    out += "\"USE_CUBLAS\": \"OFF\"}";
#endif
    return ffi::String(out);
  });
  // TVM's name for "the collective library this build was compiled with" (mlc-llm passes it
  // to init_ccl): NCCL where its plugin is built, else gloo, else "" (none). A build fact;
  // whether it can run here is runtime.disco.probe_ccl's answer.
  RegisterGlobal("runtime.disco.compiled_ccl", []() {
#if defined(TVM_EXTRA_NCCL_PLUGIN)
    return ffi::String("nccl");
#elif defined(TVM_EXTRA_GLOO_PLUGIN)
    return ffi::String("gloo");
#else
    return ffi::String("");
#endif
  });
}

}  // namespace extra
}  // namespace runtime
}  // namespace tvm
