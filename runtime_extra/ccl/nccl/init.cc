/*
 * init_ccl("nccl", *device_ids), as TVM: the controller makes the ncclUniqueId in its own
 * process and sends it, with the device ids, to every worker through the session (an
 * ordinary call_packed with the 128 bytes as ffi::Bytes); each worker then joins with
 * ncclCommInitRank(world = num_workers, rank = worker id) and, with num_groups > 1, splits
 * its group off (comm.h).
 *
 * What TVM does not: before anything blocks, the controller checks that this process has a
 * CUDA driver, enough GPUs and libnccl.so.2, and says which is missing (a typed
 * LibraryNotAvailableError, never a crash or a hang); every worker checks the same while
 * binding its GPU (`_prepare`), and all of them answer before any enters ncclCommInitRank.
 */
#include <tvm/ffi/container/shape.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/string.h>

#include <algorithm>
#include <set>
#include <string>

#include "comm.h"
#include "device.h"
#include "dtype.h"
#include "nccl_api.h"

namespace tvm {
namespace runtime {
namespace disco_nccl {
namespace {

ffi::Function Global(const char* name) { return ffi::Function::GetGlobalRequired(name); }

int64_t WorkerInt(const char* name) { return Global(name)().cast<int64_t>(); }

/*!
 * \brief "" when this process can run NCCL on devices 0..max_device_id, else every reason
 * (`with_nccl` false: the CUDA part only).
 */
std::string UnavailableReason(int max_device_id, bool with_nccl = true) {
  std::string cuda = CudaUnavailableReason(max_device_id);
  std::string nccl = with_nccl ? NcclUnavailableReason() : std::string();
  std::string why;
  if (!cuda.empty()) why += "CUDA: " + cuda;
  if (!nccl.empty()) why += std::string(why.empty() ? "" : "; ") + "NCCL: " + nccl;
  return why;
}

void RequireUsable(int max_device_id, const char* where, bool with_nccl = true) {
  std::string why = UnavailableReason(max_device_id, with_nccl);
  if (!why.empty()) {
    TVM_FFI_THROW(LibraryNotAvailableError)
        << "init_ccl(\"nccl\") cannot run " << where << ": " << why
        << ". NCCL needs a CUDA driver, one GPU per worker and libnccl.so.2";
  }
}

/*!
 * \brief Worker, step 1: bind this worker's GPU, make its stream, keep the unique id.
 * `require_nccl`: also fail here when libnccl.so.2 does not load in this worker's process, so
 * that no other rank is left waiting in ncclCommInitRank (false only for the host tests).
 */
void Prepare(const ffi::Shape& device_ids, const ffi::Bytes& unique_id, bool require_nccl) {
  int worker_id = static_cast<int>(WorkerInt("runtime.disco.worker_rank"));
  int num_workers = static_cast<int>(WorkerInt("runtime.disco.world_size"));
  NcclComm* old = PendingComm();
  if (old != nullptr && old->initialised()) {
    TVM_FFI_THROW(ValueError) << "NCCL is already initialised on worker " << worker_id;
  }
  if (static_cast<int>(device_ids.size()) != num_workers) {
    TVM_FFI_THROW(ValueError) << "nccl: " << device_ids.size() << " device ids for "
                              << num_workers << " workers";
  }
  int device_id = static_cast<int>(device_ids[worker_id]);
  RequireUsable(device_id, ("on worker " + std::to_string(worker_id)).c_str(), require_nccl);
  auto comm = std::make_unique<NcclComm>(worker_id, num_workers,
                                         static_cast<int>(WorkerInt("runtime.disco.num_groups")),
                                         device_id, std::string(unique_id.data(), unique_id.size()));
  // The worker's tensors (sess.empty, load_vm_module) now live on its GPU, as in TVM.
  Global("runtime.disco._set_default_device")(DLDevice{kDLCUDA, device_id});
  SetThisWorkerComm(std::move(comm));
}

/*! \brief Worker, step 2: join the communicators (blocks until every rank has joined). */
void InitRank() {
  NcclComm* comm = PendingComm();
  if (comm == nullptr) TVM_FFI_THROW(RuntimeError) << "nccl: _init_rank before _prepare";
  comm->InitRank();
}

/*! \brief Controller: `_prepare` on every worker, then wait for all of them (errors raise). */
void Distribute(const ffi::ObjectRef& session, const ffi::Shape& device_ids,
                const ffi::Bytes& unique_id, bool require_nccl) {
  ffi::Function get_func = Global("runtime.disco.SessionGetGlobalFunc");
  ffi::Function call = Global("runtime.disco.SessionCallPacked");
  ffi::Function sync = Global("runtime.disco.SessionSyncWorker");
  int64_t n = Global("runtime.disco.SessionGetNumWorkers")(session).cast<int64_t>();
  ffi::ObjectRef prepare = get_func(session, "runtime.disco.nccl._prepare").cast<ffi::ObjectRef>();
  call(session, 0, 0, prepare, device_ids, unique_id, require_nccl);
  for (int64_t i = 0; i < n; ++i) sync(session, i);
}

/*! \brief Controller: TVM's `runtime.disco.nccl.init_ccl(session, device_ids)`. */
void InitCCL(const ffi::ObjectRef& session, const ffi::Shape& device_ids) {
  int64_t n = Global("runtime.disco.SessionGetNumWorkers")(session).cast<int64_t>();
  if (static_cast<int64_t>(device_ids.size()) != n) {
    TVM_FFI_THROW(ValueError) << "init_ccl(\"nccl\", *device_ids) needs one CUDA device id per "
                                 "worker ("
                              << n << " workers), got " << device_ids.size();
  }
  std::set<int64_t> seen;
  for (int64_t d : device_ids) {
    if (d < 0) TVM_FFI_THROW(ValueError) << "init_ccl(\"nccl\"): device id " << d << " < 0";
    if (!seen.insert(d).second) {
      TVM_FFI_THROW(ValueError) << "init_ccl(\"nccl\"): device " << d
                                << " given twice; NCCL needs a distinct GPU per worker";
    }
  }
  RequireUsable(static_cast<int>(*std::max_element(device_ids.begin(), device_ids.end())),
                "in this process");
  const NcclApi& api = RequireNccl();
  ncclUniqueId id;
  CheckNccl(api.ncclGetUniqueId(&id), "ncclGetUniqueId", nullptr);
  Distribute(session, device_ids, ffi::Bytes(id.internal, kNcclUniqueIdBytes), true);
  ffi::ObjectRef init_rank =
      Global("runtime.disco.SessionGetGlobalFunc")(session, "runtime.disco.nccl._init_rank")
          .cast<ffi::ObjectRef>();
  Global("runtime.disco.SessionCallPacked")(session, 0, 0, init_rank);
  // The seam (SessionInitCCL) binds "nccl" on every worker and syncs them all next, so a
  // failed ncclCommInitRank anywhere is raised by init_ccl.
}

template <typename F>
void Register(const char* name, F f) {
  ffi::Function::SetGlobal(name, ffi::Function::FromTyped(std::move(f), name));
}

}  // namespace

TVM_FFI_STATIC_INIT_BLOCK() {
  Register("runtime.disco.nccl.init_ccl", InitCCL);
  Register("runtime.disco.nccl._prepare", Prepare);
  Register("runtime.disco.nccl._init_rank", InitRank);
  // For tvm.support.libinfo() (through runtime.disco.probe_ccl): "" or why not usable here.
  Register("runtime.disco.nccl.probe", []() { return ffi::String(UnavailableReason(0)); });
  // Host-side pieces, for tests that run without a GPU or NCCL.
  Register("runtime.disco.nccl._distribute_unique_id",
           [](const ffi::ObjectRef& session, const ffi::Shape& device_ids,
              const ffi::Bytes& unique_id) { Distribute(session, device_ids, unique_id, false); });
  Register("runtime.disco.nccl._worker_unique_id", []() {
    NcclComm* c = PendingComm();
    if (c == nullptr) TVM_FFI_THROW(RuntimeError) << "nccl: no unique id on this worker";
    return ffi::Bytes(c->unique_id);
  });
  Register("runtime.disco.nccl._worker_device_id", []() {
    NcclComm* c = PendingComm();
    if (c == nullptr) TVM_FFI_THROW(RuntimeError) << "nccl: no device on this worker";
    return int64_t{c->device_id};
  });
  Register("runtime.disco.nccl._reset_worker", []() { SetThisWorkerComm(nullptr); });
  Register("runtime.disco.nccl._nccl_dtype",
           [](DLDataType t) { return int64_t{NcclReduceType(t)}; });
  Register("runtime.disco.nccl._nccl_op", [](int64_t kind) { return int64_t{NcclReduceOp(kind)}; });
}

}  // namespace disco_nccl
}  // namespace runtime
}  // namespace tvm
