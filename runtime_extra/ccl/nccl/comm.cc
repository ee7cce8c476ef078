/*
 * NcclComm (comm.h).
 */
#include "comm.h"

#include <tvm/ffi/error.h>

#include <cstring>

#include "device.h"

namespace tvm {
namespace runtime {
namespace disco_nccl {
namespace {

// A worker runs every command on one thread, so the thread owns its communicator; a
// ThreadedSession's workers are threads of one process and each has its own.
thread_local std::unique_ptr<NcclComm> tls_comm;

}  // namespace

NcclComm::NcclComm(int worker_id, int num_workers, int num_groups, int device_id,
                   const std::string& unique_id)
    : worker_id(worker_id),
      num_workers(num_workers),
      num_groups(num_groups),
      device_id(device_id),
      unique_id(unique_id) {
  SetDevice(device_id);
  own_stream_ = CreateStream(device_id);
}

void NcclComm::InitRank() {
  const NcclApi& api = RequireNccl();
  if (unique_id.size() != kNcclUniqueIdBytes) {
    TVM_FFI_THROW(ValueError) << "nccl: the unique id has " << unique_id.size()
                              << " bytes, expected " << kNcclUniqueIdBytes;
  }
  ncclUniqueId id;
  std::memcpy(id.internal, unique_id.data(), kNcclUniqueIdBytes);
  SetDevice(device_id);  // NCCL binds the communicator to the current device
  CheckNccl(api.ncclCommInitRank(&world_, num_workers, id, worker_id), "ncclCommInitRank",
            nullptr);
  if (num_groups > 1) {
    CheckNccl(api.ncclCommSplit(world_, worker_id / group_size(), worker_id % group_size(),
                                &group_, nullptr),
              "ncclCommSplit", world_);
  }
}

void* NcclComm::stream() const { return StreamOr(device_id, own_stream_); }

NcclComm::~NcclComm() {
  // Never throws: a worker tearing down after a failure must still exit.
  try {
    if (world_ != nullptr || group_ != nullptr) {
      const NcclApi& api = RequireNccl();
      if (group_ != nullptr) api.ncclCommDestroy(group_);
      if (world_ != nullptr) api.ncclCommDestroy(world_);
    }
    if (own_stream_ != nullptr) FreeStream(device_id, own_stream_);
  } catch (...) {
  }
}

NcclComm* ThisWorkerComm() {
  if (tls_comm == nullptr || !tls_comm->initialised()) {
    TVM_FFI_THROW(RuntimeError) << "NCCL is not initialised on this worker: call "
                                   "session.init_ccl(\"nccl\", *device_ids) first";
  }
  return tls_comm.get();
}

NcclComm* PendingComm() { return tls_comm.get(); }

void SetThisWorkerComm(std::unique_ptr<NcclComm> comm) { tls_comm = std::move(comm); }

}  // namespace disco_nccl
}  // namespace runtime
}  // namespace tvm
