/*
 * The collective-library seam. A CCL is a plugin that registers `runtime.disco.<ccl>.<op>`
 * (TVM's names and argument order). Nothing here knows any engine:
 *
 *  - `runtime.disco.SessionInitCCL(session, ccl, device_ids)` (controller) finds the plugin
 *    (registered already, or `libtvm_disco_<ccl>.so` next to this library, dlopen'ed),
 *    has every worker load it too (`runtime.disco.load_ccl_plugin`), calls its
 *    `runtime.disco.<ccl>.init_ccl(session, device_ids)` (which sets up the
 *    engine on every worker, e.g. a rendezvous through the session), then binds the CCL on
 *    every worker and syncs them all, so a failure anywhere is raised here.
 *  - the generic worker-side ops (`runtime.disco.allreduce`, ...) forward to the bound CCL.
 *
 * A missing plugin is an error that names what to install, never a crash at load: the
 * library loads on machines without gloo, NCCL or CUDA.
 */
#include <dlfcn.h>
#include <unistd.h>

#include <tvm/ffi/container/shape.h>
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/string.h>

#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "../registry.h"
#include "session.h"
#include "worker.h"

namespace tvm {
namespace runtime {
namespace disco {

namespace {

/*! \brief What a user installs for each known CCL (error messages only). */
std::string InstallHint(const std::string& ccl) {
  if (ccl == "gloo") {
    return "the gloo plugin needs Debian's libgloo-dev at build time and libgloo0 at run time "
           "(apt-get install libgloo-dev)";
  }
  if (ccl == "nccl" || ccl == "rccl") {
    return "NCCL needs a CUDA build, a GPU per worker and libnccl.so.2 (pip install "
           "nvidia-nccl-cu13, or the system package)";
  }
  return "a plugin registers runtime.disco." + ccl + ".init_ccl and the collective ops";
}

std::string ThisLibraryDir() {
  Dl_info info;
  if (::dladdr(reinterpret_cast<void*>(&InstallHint), &info) == 0 || info.dli_fname == nullptr) {
    return "";
  }
  std::string path = info.dli_fname;
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

bool ValidName(const std::string& ccl) {
  if (ccl.empty() || ccl.size() > 32) return false;
  for (char c : ccl) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  }
  return true;
}

/*!
 * \brief Makes `runtime.disco.<ccl>.init_ccl` available in this process: already registered,
 * or registered by loading the plugin library. \throws ValueError naming what to install.
 */
void LoadPlugin(const std::string& ccl) {
  DISCO_CHECK(ValidName(ccl), ValueError)
      << "a collective library name is lowercase letters, digits and '_', got '" << ccl << "'";
  std::string probe = "runtime.disco." + ccl + ".init_ccl";
  if (ffi::Function::GetGlobal(probe).has_value()) return;
  static std::mutex mu;
  static std::map<std::string, std::string> failures;  // dlopen once per name and process
  std::lock_guard<std::mutex> lock(mu);
  auto it = failures.find(ccl);
  if (it == failures.end()) {
    // Next to this library (a wheel, python/tvm/lib), else where Bazel builds it (a source
    // checkout running bazel-bin/runtime_extra/libtvm_runtime_extra.so directly).
    std::string file = "libtvm_disco_" + ccl + ".so";
    std::string path = ThisLibraryDir() + "/" + file;
    if (::access(path.c_str(), F_OK) != 0) {
      std::string built = ThisLibraryDir() + "/ccl/" + ccl + "/" + file;
      if (::access(built.c_str(), F_OK) == 0) path = built;
    }
    std::string why;
    // RTLD_LOCAL: the plugin registers by name; its engine's symbols stay private to it.
    if (::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL) == nullptr) {
      const char* err = ::dlerror();
      why = err ? err : "dlopen failed";
    }
    it = failures.emplace(ccl, why).first;
  }
  if (ffi::Function::GetGlobal(probe).has_value()) return;
  TVM_FFI_THROW(ValueError) << "collective library '" << ccl << "' is not available: " << probe
                            << " is not registered and its plugin did not load ("
                            << it->second << "); " << InstallHint(ccl);
}

ffi::Function CCLOp(const char* op) {
  DiscoWorker* w = DiscoWorker::ThreadLocal();
  DISCO_CHECK(!w->ccl.empty(), RuntimeError)
      << "runtime.disco." << op << " on worker " << w->worker_id
      << ": no collective library is initialised; call session.init_ccl(...) first";
  std::string name = "runtime.disco." + w->ccl + "." + op;
  std::optional<ffi::Function> f = ffi::Function::GetGlobal(name);
  DISCO_CHECK(f.has_value(), RuntimeError)
      << "the collective library '" << w->ccl << "' has no " << op << " (" << name << ")";
  return *f;
}

/*! \brief TVM passes small integers to the generic ops as a 1-element Shape. */
int64_t IntegerFromShape(const ffi::Shape& s, const char* what) {
  DISCO_CHECK(s.size() == 1, ValueError) << what << " must be a 1-element Shape, got " << s.size();
  return s[0];
}

void Forward(const char* op, ffi::PackedArgs args, ffi::Any* rv) {
  CCLOp(op).CallPacked(args.data(), args.size(), rv);
}

void InitCCL(const Session& session, const std::string& ccl, const ffi::Shape& device_ids) {
  LoadPlugin(ccl);
  auto* s = const_cast<BcastSessionObj*>(session.get());
  // Every worker process loads the plugin before the plugin's own init_ccl talks to it.
  DRef load = s->GetGlobalFunc("runtime.disco.load_ccl_plugin");
  ffi::AnyView load_args[2] = {ffi::AnyView(load), ffi::AnyView(ccl)};
  s->CallPacked(load_args, 2);
  ffi::Function init = ffi::Function::GetGlobalRequired("runtime.disco." + ccl + ".init_ccl");
  init(session, device_ids);
  DRef bind = s->GetGlobalFunc("runtime.disco._bind_ccl");
  ffi::AnyView args[2] = {ffi::AnyView(bind), ffi::AnyView(ccl)};
  s->CallPacked(args, 2);
  for (int i = 0; i < s->num_workers(); ++i) s->SyncWorker(i);
}

}  // namespace

TVM_FFI_STATIC_INIT_BLOCK() {
  using extra::RegisterGlobal;
  using extra::RegisterPacked;
  RegisterGlobal("runtime.disco.SessionInitCCL", InitCCL);
  // Worker side: load the plugin in this process too, then route the generic ops to it.
  RegisterGlobal("runtime.disco._bind_ccl", [](const ffi::String& ccl) {
    DiscoWorker* w = DiscoWorker::ThreadLocal();
    LoadPlugin(ccl);
    DISCO_CHECK(w->ccl.empty() || w->ccl == std::string(ccl), ValueError)
        << "worker " << w->worker_id << " already uses collective library '" << w->ccl << "'";
    w->ccl = ccl;
  });
  RegisterGlobal("runtime.disco.load_ccl_plugin", [](const ffi::String& ccl) { LoadPlugin(ccl); });
  // For tvm.support.libinfo(): "" when the CCL is usable in this process, else why not. A
  // plugin whose engine needs more than itself (NCCL: a driver, GPUs, libnccl.so.2) says so
  // through its own `runtime.disco.<ccl>.probe`.
  RegisterGlobal("runtime.disco.probe_ccl", [](const ffi::String& ccl) -> ffi::String {
    try {
      LoadPlugin(ccl);
      std::optional<ffi::Function> probe =
          ffi::Function::GetGlobal("runtime.disco." + std::string(ccl) + ".probe");
      return probe.has_value() ? (*probe)().cast<ffi::String>() : ffi::String("");
    } catch (const ffi::Error& e) {
      return ffi::String(e.message());
    }
  });
  RegisterPacked("runtime.disco.allreduce", [](ffi::PackedArgs args, ffi::Any* rv) {
    // (send, Shape([kind]), in_group, recv) -> <ccl>.allreduce(send, int kind, in_group, recv)
    DISCO_CHECK(args.size() == 4, TypeError) << "runtime.disco.allreduce(send, kind, in_group, recv)";
    int64_t kind = IntegerFromShape(args[1].cast<ffi::Shape>(), "the reduce kind");
    DISCO_CHECK(kind >= 0 && kind <= 4, ValueError)
        << "reduce kind must be 0..4 (sum, prod, min, max, avg), got " << kind;
    ffi::AnyView fwd[4] = {args[0], ffi::AnyView(kind), args[2], args[3]};
    CCLOp("allreduce").CallPacked(fwd, 4, rv);
  });
  static const char* kOps[] = {"allgather",          "broadcast_from_worker0", "scatter_from_worker0",
                               "gather_to_worker0",  "recv_from_worker0",      "send_to_next_group",
                               "recv_from_prev_group", "send_to_worker",       "recv_from_worker"};
  for (const char* op : kOps) {
    RegisterPacked((std::string("runtime.disco.") + op).c_str(),
                   [op](ffi::PackedArgs args, ffi::Any* rv) { Forward(op, args, rv); });
  }
}

}  // namespace disco
}  // namespace runtime
}  // namespace tvm
