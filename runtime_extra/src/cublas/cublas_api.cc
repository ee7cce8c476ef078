/*
 * Loading libcublas.so.13 (cublas_api.h). Its probe costs ~0.2 s and ~200 MB of mappings
 * (libcublasLt comes with it), so it runs at the first cuBLAS call or libinfo(), never at load.
 */
#include "cublas_api.h"

#include <tvm/ffi/container/map.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/string.h>

#include <mutex>
#include <optional>

#include "runtime_extra/nvlib/nvlib.h"

namespace tvm {
namespace runtime {
namespace cublas {
namespace {

struct State {
  CublasApi api;
  std::string reason;  // why libcublas is unusable ("" when loaded)
};

const State& Library() {
  static State state;
  static std::once_flag once;
  std::call_once(once, [] {
    nvlib::OpenedLibrary lib =
        nvlib::OpenNvidiaLibrary("TVM_CUBLAS_LIBRARY", "cublas", "libcublas.so.13");
    if (lib.handle == nullptr) {
      state.reason = "cannot load libcublas.so.13 (" + lib.error +
                     "); pip install nvidia-cublas, or install the CUDA 13 toolkit's cuBLAS, or "
                     "set TVM_CUBLAS_LIBRARY to the file";
      return;
    }
    state.api.path = lib.path;
#define TVM_CUBLAS_RESOLVE(name, type)                                  \
  state.api.name = nvlib::Symbol<Id<type>>(lib.handle, #name);          \
  if (state.api.name == nullptr) {                                      \
    state.reason = lib.path + " lacks " #name " (not cuBLAS 13?)";      \
    return;                                                             \
  }
    TVM_CUBLAS_FUNCS(TVM_CUBLAS_RESOLVE)
#undef TVM_CUBLAS_RESOLVE
    state.api.cublasGetVersion_v2(nullptr, &state.api.version);
  });
  return state;
}

/*! \brief "" when the CUDA backend is loaded and has a driver, else why not. */
std::string CudaReason() {
  std::optional<ffi::Function> status = ffi::Function::GetGlobal("runtime.cuda.DriverStatus");
  if (!status.has_value()) {
    return "the CUDA backend (libtvm_runtime_cuda.so) is not loaded in this process";
  }
  auto s = (*status)().cast<ffi::Map<ffi::String, ffi::Any>>();
  if (!s["available"].cast<bool>()) {
    return "no usable CUDA driver: " + std::string(s["reason"].cast<ffi::String>());
  }
  return "";
}

}  // namespace

std::string CublasUnavailableReason() {
  std::string why = CudaReason();
  const std::string& lib = Library().reason;
  if (!why.empty()) why = "CUDA: " + why;
  if (!lib.empty()) why += std::string(why.empty() ? "" : "; ") + "cuBLAS: " + lib;
  return why;
}

const CublasApi& RequireCublas(const char* what) {
  std::string why = CublasUnavailableReason();
  if (!why.empty()) {
    TVM_FFI_THROW(LibraryNotAvailableError)
        << what << " cannot run: " << why
        << ". cuBLAS needs a CUDA GPU with its driver and libcublas.so.13";
  }
  return Library().api;
}

void CheckCublas(cublasStatus_t s, const char* call) {
  if (s == kCublasSuccess) return;
  const char* what = Library().api.cublasGetStatusString
                         ? Library().api.cublasGetStatusString(s)
                         : nullptr;
  TVM_FFI_THROW(RuntimeError) << "cuBLAS " << call << " failed: " << (what ? what : "error")
                              << " (cublasStatus_t " << s << ")";
}

}  // namespace cublas
}  // namespace runtime
}  // namespace tvm
