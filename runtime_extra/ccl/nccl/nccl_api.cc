/*
 * Loading libnccl.so.2 (nccl_api.h). NCCL bundles cudart statically and NEEDs no libcuda, so
 * it loads without a driver; its first call that touches a GPU then fails, which is why the
 * plugin checks the driver itself first (device.h).
 */
#include "nccl_api.h"

#include <tvm/ffi/error.h>

#include <mutex>

#include "runtime_extra/nvlib/nvlib.h"

namespace tvm {
namespace runtime {
namespace disco_nccl {
namespace {

struct State {
  NcclApi api;
  std::string reason;
};

const State& GetState() {
  static State state;
  static std::once_flag once;
  std::call_once(once, [] {
    nvlib::OpenedLibrary lib =
        nvlib::OpenNvidiaLibrary("TVM_NCCL_LIBRARY", "nccl", "libnccl.so.2");
    if (lib.handle == nullptr) {
      state.reason = "cannot load libnccl.so.2 (" + lib.error +
                     "); pip install nvidia-nccl-cu13, or install the system's libnccl2, or set "
                     "TVM_NCCL_LIBRARY to the file";
      return;
    }
    state.api.path = lib.path;
#define TVM_NCCL_RESOLVE(name, type)                                   \
  state.api.name = nvlib::Symbol<Id<type>>(lib.handle, #name);           \
  if (state.api.name == nullptr) {                                     \
    state.reason = lib.path + " lacks " #name " (NCCL older than 2.18?)"; \
    return;                                                            \
  }
    TVM_NCCL_FUNCS(TVM_NCCL_RESOLVE)
#undef TVM_NCCL_RESOLVE
    if (state.api.ncclGetVersion(&state.api.version) != ncclSuccess) {
      state.reason = lib.path + ": ncclGetVersion failed";
    }
  });
  return state;
}

}  // namespace

const std::string& NcclUnavailableReason() { return GetState().reason; }

const NcclApi& RequireNccl() {
  const State& s = GetState();
  if (!s.reason.empty()) {
    TVM_FFI_THROW(LibraryNotAvailableError) << "NCCL is not available: " << s.reason;
  }
  return s.api;
}

void CheckNccl(ncclResult_t r, const char* call, ncclComm_t comm) {
  if (r == ncclSuccess) return;
  const NcclApi& api = RequireNccl();
  const char* what = api.ncclGetErrorString(r);
  const char* last = api.ncclGetLastError(comm);
  TVM_FFI_THROW(RuntimeError) << "NCCL " << call << " failed: " << (what ? what : "error")
                              << " (ncclResult_t " << r << ")"
                              << (last && last[0] ? std::string(": ") + last : std::string());
}

}  // namespace disco_nccl
}  // namespace runtime
}  // namespace tvm
