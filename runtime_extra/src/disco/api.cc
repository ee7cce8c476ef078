/*
 * The controller's registry API (TVM's names). A C++ application or Python drives a session
 * only through these globals. Ownership: a Session or DRef returned is a new reference owned
 * by the caller; dropping the last reference to a session shuts it down (bounded), dropping a
 * DRef frees its register on every worker. Errors: bad arguments raise TypeError/ValueError/
 * IndexError; a worker's exception raises DiscoWorkerError ("worker <i> raised <Kind> in
 * <command>: <message>"); a dead worker DiscoWorkerLostError; an unanswered wait
 * DiscoTimeoutError; after either of the last two every call raises the same kind again.
 */
#include <tvm/ffi/container/shape.h>
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/string.h>

#include "../registry.h"
#include "session.h"
#include "session_kinds.h"

namespace tvm {
namespace runtime {
namespace disco {

namespace {

BcastSessionObj* Mut(const Session& s) { return const_cast<BcastSessionObj*>(s.get()); }

int CheckedInt(int64_t v, const char* what) {
  DISCO_CHECK(v >= 0 && v <= (int64_t{1} << 30), ValueError) << what << " out of range: " << v;
  return static_cast<int>(v);
}

}  // namespace

TVM_FFI_STATIC_INIT_BLOCK() {
  using extra::RegisterGlobal;
  using extra::RegisterPacked;
  // Type indices at load time, so Python can bind its classes right after `import tvm`.
  DRefObj::RuntimeTypeIndex();
  BcastSessionObj::RuntimeTypeIndex();

  RegisterGlobal("runtime.disco.SessionThreaded", [](int64_t num_workers, int64_t num_groups) {
    return MakeThreadedSession(CheckedInt(num_workers, "num_workers"), CheckedInt(num_groups, "num_groups"));
  });
  RegisterGlobal("runtime.disco.SessionProcess",
                 [](int64_t num_workers, int64_t num_groups, const ffi::String& pool_creator,
                    const ffi::String& entrypoint) {
                   return MakeProcessSession(CheckedInt(num_workers, "num_workers"),
                                             CheckedInt(num_groups, "num_groups"), pool_creator,
                                             entrypoint);
                 });
  RegisterGlobal("runtime.disco.SessionProcessFromPool",
                 [](int64_t num_workers, int64_t num_groups, ffi::Function pool) {
                   return MakeProcessSessionFromPool(CheckedInt(num_workers, "num_workers"),
                                                     CheckedInt(num_groups, "num_groups"),
                                                     std::move(pool));
                 });
  RegisterGlobal("runtime.disco.SessionGetNumWorkers",
                 [](const Session& s) { return int64_t{s->num_workers()}; });
  RegisterGlobal("runtime.disco.SessionGetNumGroups",
                 [](const Session& s) { return int64_t{s->num_groups()}; });
  RegisterGlobal("runtime.disco.SessionGetTimeout", [](const Session& s) { return s->timeout_s(); });
  RegisterGlobal("runtime.disco.SessionSetTimeout",
                 [](const Session& s, double seconds) { Mut(s)->SetTimeout(seconds); });
  RegisterGlobal("runtime.disco.SessionGetGlobalFunc",
                 [](const Session& s, const ffi::String& name) { return Mut(s)->GetGlobalFunc(name); });
  RegisterGlobal("runtime.disco.SessionCopyFromWorker0",
                 [](const Session& s, ffi::Tensor host, const DRef& remote) {
                   Mut(s)->CopyFromWorker0(std::move(host), remote);
                 });
  RegisterGlobal("runtime.disco.SessionCopyToWorker0",
                 [](const Session& s, ffi::Tensor host, const DRef& remote) {
                   Mut(s)->CopyToWorker0(std::move(host), remote);
                 });
  RegisterGlobal("runtime.disco.SessionSyncWorker", [](const Session& s, int64_t worker_id) {
    DISCO_CHECK(worker_id >= 0 && worker_id < s->num_workers(), IndexError)
        << "worker id " << worker_id << " out of range for " << s->num_workers() << " workers";
    Mut(s)->SyncWorker(static_cast<int>(worker_id));
  });
  // TVM's form: (session, action placeholder, register placeholder, func DRef, args...).
  RegisterPacked("runtime.disco.SessionCallPacked", [](ffi::PackedArgs args, ffi::Any* rv) {
    DISCO_CHECK(args.size() >= 4, TypeError)
        << "runtime.disco.SessionCallPacked(session, 0, 0, func, *args)";
    Session s = args[0].cast<Session>();
    *rv = Mut(s)->CallPacked(args.data() + 3, args.size() - 3);
  });
  RegisterGlobal("runtime.disco.SessionShutdown", [](const Session& s) { Mut(s)->Shutdown(); });
  RegisterGlobal("runtime.disco.DRefDebugGetFromRemote", [](const DRef& ref, int64_t worker_id) {
    DISCO_CHECK(worker_id >= 0 && worker_id < (1 << 20), IndexError) << "bad worker id " << worker_id;
    auto* s = const_cast<BcastSessionObj*>(static_cast<const BcastSessionObj*>(ref->session.get()));
    return s->DebugGetFromRemote(ref->reg_id, static_cast<int>(worker_id));
  });
  RegisterPacked("runtime.disco.DRefDebugCopyFrom", [](ffi::PackedArgs args, ffi::Any*) {
    DISCO_CHECK(args.size() == 3, TypeError) << "runtime.disco.DRefDebugCopyFrom(dref, worker_id, value)";
    DRef ref = args[0].cast<DRef>();
    int64_t worker_id = args[1].cast<int64_t>();
    DISCO_CHECK(worker_id >= 0 && worker_id < (1 << 20), IndexError) << "bad worker id " << worker_id;
    auto* s = const_cast<BcastSessionObj*>(static_cast<const BcastSessionObj*>(ref->session.get()));
    s->DebugSetRegister(ref->reg_id, args[2], static_cast<int>(worker_id));
  });
  RegisterGlobal("runtime.disco.DRefGetRegId", [](const DRef& ref) { return ref->reg_id; });
}

}  // namespace disco
}  // namespace runtime
}  // namespace tvm
