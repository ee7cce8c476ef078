/*
 * init_ccl("gloo"): the controller half (`runtime.disco.gloo.init_ccl`, run in the
 * controller's process) and the worker half (`runtime.disco.gloo._prepare`, `_connect`).
 *
 * The controller reaches the session only through the registry (libtvm_runtime_extra exports
 * no C++ symbol): it runs `_prepare` on every worker, reads each worker's pair addresses back
 * with DebugGetFromRemote, and broadcasts all of them to `_connect` (comm.h). Ranks are
 * Disco's worker ids, so a ThreadedSession, a ProcessSession and remote nodes all rendezvous
 * the same way. Each worker's TCP device listens on TVM_DISCO_HOST (set for the workers of a
 * SocketSession's nodes) or 127.0.0.1, or on the interface named by
 * GLOO_SOCKET_IFNAME in the worker's environment (torch.distributed's variable).
 */
#include <gloo/common/error.h>
#include <tvm/ffi/container/shape.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/string.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "comm.h"

namespace tvm {
namespace runtime {
namespace disco_gloo {

namespace {

ffi::Function Global(const char* name) { return ffi::Function::GetGlobalRequired(name); }

int64_t WorkerInt(const char* name) { return Global(name)().cast<int64_t>(); }

/*! \brief Worker side, step 1: make this worker's communicators; return its pair addresses. */
ffi::Bytes Prepare(int64_t timeout_ms) {
  if (timeout_ms <= 0) {
    TVM_FFI_THROW(ValueError) << "gloo: timeout must be positive, got " << timeout_ms << " ms";
  }
  int worker_id = static_cast<int>(WorkerInt("runtime.disco.worker_rank"));
  GlooComm* old = PendingComm();
  if (old != nullptr && old->connected() && old->broken().empty()) {
    TVM_FFI_THROW(ValueError) << "gloo is already initialised on worker " << worker_id;
  }
  auto comm = std::make_unique<GlooComm>(worker_id,
                                         static_cast<int>(WorkerInt("runtime.disco.world_size")),
                                         static_cast<int>(WorkerInt("runtime.disco.num_groups")),
                                         std::chrono::milliseconds(timeout_ms));
  // Where peers reach this worker: an interface by name (torch.distributed's variable), else
  // the address the session gave this process (a SocketSession node sets TVM_DISCO_HOST to
  // the address it reaches the controller from), else loopback.
  const char* iface = std::getenv("GLOO_SOCKET_IFNAME");
  const char* host = std::getenv("TVM_DISCO_HOST");
  std::string out;
  try {
    out = comm->Prepare(host && *host ? host : "127.0.0.1", iface ? iface : "");
  } catch (const gloo::Exception& e) {
    TVM_FFI_THROW(RuntimeError) << "gloo: worker " << worker_id
                                << " cannot create its TCP device: " << e.what();
  }
  SetThisWorkerComm(std::move(comm));
  return ffi::Bytes(out);
}

/*! \brief Worker side, step 2: `all` is u32 length + bytes of every worker's Prepare output. */
void Connect(const ffi::Bytes& all) {
  GlooComm* comm = PendingComm();
  if (comm == nullptr) {
    TVM_FFI_THROW(RuntimeError) << "gloo: _connect before _prepare on this worker";
  }
  std::vector<std::string> blobs;
  size_t pos = 0;
  while (pos < all.size()) {
    uint32_t len;
    if (pos + 4 > all.size()) TVM_FFI_THROW(ValueError) << "gloo: truncated rendezvous data";
    std::memcpy(&len, all.data() + pos, 4);
    pos += 4;
    if (pos + len > all.size()) TVM_FFI_THROW(ValueError) << "gloo: truncated rendezvous data";
    blobs.emplace_back(all.data() + pos, len);
    pos += len;
  }
  try {
    comm->Connect(blobs);
  } catch (const gloo::Exception& e) {
    TVM_FFI_THROW(RuntimeError) << "gloo: worker " << comm->worker_id
                                << " cannot connect to its peers: " << e.what();
  }
}

/*! \brief Controller side: TVM's `runtime.disco.<ccl>.init_ccl(session, device_ids)`. */
void InitCCL(ffi::ObjectRef session, ffi::Shape device_ids) {
  if (!device_ids.empty()) {
    TVM_FFI_THROW(ValueError) << "gloo works on CPU tensors: init_ccl(\"gloo\") takes no device ids, got "
                              << device_ids.size();
  }
  double timeout_s = Global("runtime.disco.SessionGetTimeout")(session).cast<double>();
  int64_t n = Global("runtime.disco.SessionGetNumWorkers")(session).cast<int64_t>();
  ffi::Function get_func = Global("runtime.disco.SessionGetGlobalFunc");
  ffi::Function call = Global("runtime.disco.SessionCallPacked");
  ffi::Function get_remote = Global("runtime.disco.DRefDebugGetFromRemote");

  ffi::ObjectRef prepare = get_func(session, "runtime.disco.gloo._prepare").cast<ffi::ObjectRef>();
  ffi::ObjectRef addrs =
      call(session, 0, 0, prepare, static_cast<int64_t>(timeout_s * 1000)).cast<ffi::ObjectRef>();
  std::string all;
  for (int64_t i = 0; i < n; ++i) {
    ffi::Bytes b = get_remote(addrs, i).cast<ffi::Bytes>();
    uint32_t len = static_cast<uint32_t>(b.size());
    all.append(reinterpret_cast<const char*>(&len), 4);
    all.append(b.data(), b.size());
  }
  ffi::ObjectRef connect = get_func(session, "runtime.disco.gloo._connect").cast<ffi::ObjectRef>();
  call(session, 0, 0, connect, ffi::Bytes(all));
  // The seam (SessionInitCCL) then binds "gloo" on every worker and syncs them all, so a
  // failed connection anywhere is raised by init_ccl.
}

template <typename F>
void Register(const char* name, F f) {
  ffi::Function::SetGlobal(name, ffi::Function::FromTyped(std::move(f), name));
}

}  // namespace

TVM_FFI_STATIC_INIT_BLOCK() {
  Register("runtime.disco.gloo.init_ccl", InitCCL);
  Register("runtime.disco.gloo._prepare", Prepare);
  Register("runtime.disco.gloo._connect", Connect);
}

}  // namespace disco_gloo
}  // namespace runtime
}  // namespace tvm
