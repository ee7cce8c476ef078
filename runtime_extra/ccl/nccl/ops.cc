/*
 * runtime.disco.nccl.<op>: TVM's collectives with TVM's names, argument order and meaning
 * (shared/reference/disco.md §3), on NCCL. `in_group` picks the group's communicator, whose
 * "worker 0" is the group leader (worker_id % group_size == 0); otherwise the world's.
 * Point-to-point ops use the world (worker ids are global). Ops are queued on the stream
 * (the env stream of the worker's GPU, or its own); `sync_worker` waits for it, and the
 * worker runs it at every SyncWorker command.
 *
 * Ops that only move data send bytes (ncclUint8), so every dtype travels; allreduce maps the
 * dtype (dtype.h) and refuses what NCCL cannot reduce.
 */
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/optional.h>

#include <string>

#include "comm.h"
#include "device.h"
#include "dtype.h"
#include "nccl_api.h"

namespace tvm {
namespace runtime {
namespace disco_nccl {
namespace {

using OptTensor = ffi::Optional<ffi::Tensor>;

struct View {
  void* data = nullptr;
  size_t bytes = 0;
  int64_t numel = 0;
  DLDataType dtype{};
};

/*! \throws ValueError when None; TypeError when not a contiguous tensor on this worker's GPU. */
View Check(const NcclComm& comm, const OptTensor& t, const char* op, const char* arg) {
  if (!t.has_value() || !t.value().defined()) {
    TVM_FFI_THROW(ValueError) << "nccl " << op << ": buffer `" << arg << "` must not be None";
  }
  const ffi::Tensor& x = t.value();
  if (x->device.device_type != kDLCUDA || x->device.device_id != comm.device_id) {
    TVM_FFI_THROW(TypeError) << "nccl " << op << ": `" << arg << "` must be on cuda:"
                             << comm.device_id << " (worker " << comm.worker_id
                             << "'s GPU), got device (" << static_cast<int>(x->device.device_type)
                             << ", " << x->device.device_id << ")";
  }
  if (!x.IsContiguous()) {
    TVM_FFI_THROW(TypeError) << "nccl " << op << ": `" << arg << "` must be contiguous";
  }
  View v;
  v.data = static_cast<char*>(x->data) + x->byte_offset;
  v.numel = x.numel();
  v.dtype = x->dtype;
  v.bytes = ffi::details::DataBytes(x->dtype, v.numel);
  return v;
}

void CheckSameType(const View& a, const View& b, const char* op) {
  if (a.dtype.code != b.dtype.code || a.dtype.bits != b.dtype.bits ||
      a.dtype.lanes != b.dtype.lanes) {
    TVM_FFI_THROW(TypeError) << "nccl " << op << ": `send` and `recv` must have the same dtype";
  }
}

/*! \brief ncclGroupStart/End around `body`, ending the group even when `body` throws. */
template <typename F>
void Grouped(const NcclApi& api, ncclComm_t comm, F body) {
  CheckNccl(api.ncclGroupStart(), "ncclGroupStart", comm);
  try {
    body();
  } catch (...) {
    api.ncclGroupEnd();
    throw;
  }
  CheckNccl(api.ncclGroupEnd(), "ncclGroupEnd", comm);
}

void AllReduce(OptTensor send, int64_t kind, bool in_group, OptTensor recv) {
  NcclComm* c = ThisWorkerComm();  // first: "not initialised" is the error before init_ccl
  const NcclApi& api = RequireNccl();
  View s = Check(*c, send, "allreduce", "send"), r = Check(*c, recv, "allreduce", "recv");
  CheckSameType(s, r, "allreduce");
  int type = NcclReduceType(r.dtype);
  if (type < 0) {
    TVM_FFI_THROW(TypeError) << "nccl allreduce: NCCL cannot reduce this dtype (float16, "
                                "bfloat16, float32, float64, int8, int32, int64, uint8, uint32, "
                                "uint64 are reducible; float8 is refused, as in TVM)";
  }
  int op = NcclReduceOp(kind);
  if (s.numel != r.numel) {
    TVM_FFI_THROW(ValueError) << "nccl allreduce: `send` has " << s.numel << " elements, `recv` "
                              << r.numel;
  }
  CheckNccl(api.ncclAllReduce(s.data, r.data, r.numel, type, op, c->Get(in_group), c->stream()),
            "ncclAllReduce", c->Get(in_group));
}

void AllGather(OptTensor send, bool in_group, OptTensor recv) {
  NcclComm* c = ThisWorkerComm();  // first: "not initialised" is the error before init_ccl
  const NcclApi& api = RequireNccl();
  View s = Check(*c, send, "allgather", "send"), r = Check(*c, recv, "allgather", "recv");
  CheckSameType(s, r, "allgather");
  if (r.numel != s.numel * c->Size(in_group)) {
    TVM_FFI_THROW(ValueError) << "nccl allgather: `recv` must have " << c->Size(in_group)
                              << " x " << s.numel << " elements, got " << r.numel;
  }
  CheckNccl(api.ncclAllGather(s.data, r.data, s.bytes, kNcclUint8, c->Get(in_group), c->stream()),
            "ncclAllGather", c->Get(in_group));
}

void BroadcastFromWorker0(OptTensor send, bool in_group, OptTensor recv) {
  NcclComm* c = ThisWorkerComm();  // first: "not initialised" is the error before init_ccl
  const NcclApi& api = RequireNccl();
  View r = Check(*c, recv, "broadcast_from_worker0", "recv");
  const void* src = r.data;
  if (c->Rank(in_group) == 0) {
    View s = Check(*c, send, "broadcast_from_worker0", "send");
    CheckSameType(s, r, "broadcast_from_worker0");
    if (s.numel != r.numel) {
      TVM_FFI_THROW(ValueError) << "nccl broadcast_from_worker0: `send` has " << s.numel
                                << " elements, `recv` " << r.numel;
    }
    src = s.data;
  }
  CheckNccl(api.ncclBroadcast(src, r.data, r.bytes, kNcclUint8, 0, c->Get(in_group), c->stream()),
            "ncclBroadcast", c->Get(in_group));
}

void ScatterFromWorker0(OptTensor send, bool in_group, OptTensor recv) {
  NcclComm* c = ThisWorkerComm();  // first: "not initialised" is the error before init_ccl
  const NcclApi& api = RequireNccl();
  View r = Check(*c, recv, "scatter_from_worker0", "recv");
  ncclComm_t comm = c->Get(in_group);
  int size = c->Size(in_group);
  View s;
  if (c->Rank(in_group) == 0) {
    s = Check(*c, send, "scatter_from_worker0", "send");
    CheckSameType(s, r, "scatter_from_worker0");
    if (s.numel != r.numel * size) {
      TVM_FFI_THROW(ValueError) << "nccl scatter_from_worker0: `send` must have " << size
                                << " shards of `recv`'s " << r.numel << " elements, got "
                                << s.numel;
    }
  }
  // Equal shards by grouped send/recv, as TVM (NCCL has no scatter).
  Grouped(api, comm, [&] {
    if (c->Rank(in_group) == 0) {
      for (int peer = 0; peer < size; ++peer) {
        const char* shard = static_cast<const char*>(s.data) + peer * r.bytes;
        CheckNccl(api.ncclSend(shard, r.bytes, kNcclUint8, peer, comm, c->stream()), "ncclSend",
                  comm);
      }
    }
    CheckNccl(api.ncclRecv(r.data, r.bytes, kNcclUint8, 0, comm, c->stream()), "ncclRecv", comm);
  });
}

void GatherToWorker0(OptTensor send, bool in_group, OptTensor recv) {
  NcclComm* c = ThisWorkerComm();  // first: "not initialised" is the error before init_ccl
  const NcclApi& api = RequireNccl();
  View s = Check(*c, send, "gather_to_worker0", "send");
  ncclComm_t comm = c->Get(in_group);
  int size = c->Size(in_group);
  View r;
  if (c->Rank(in_group) == 0) {
    r = Check(*c, recv, "gather_to_worker0", "recv");
    CheckSameType(s, r, "gather_to_worker0");
    if (r.numel != s.numel * size) {
      TVM_FFI_THROW(ValueError) << "nccl gather_to_worker0: `recv` must have " << size
                                << " shards of `send`'s " << s.numel << " elements, got "
                                << r.numel;
    }
  }
  Grouped(api, comm, [&] {
    if (c->Rank(in_group) == 0) {
      for (int peer = 0; peer < size; ++peer) {
        char* shard = static_cast<char*>(r.data) + peer * s.bytes;
        CheckNccl(api.ncclRecv(shard, s.bytes, kNcclUint8, peer, comm, c->stream()), "ncclRecv",
                  comm);
      }
    }
    CheckNccl(api.ncclSend(s.data, s.bytes, kNcclUint8, 0, comm, c->stream()), "ncclSend", comm);
  });
}

void CheckPeer(const NcclComm& c, int64_t peer, const char* op) {
  if (peer < 0 || peer >= c.num_workers) {
    TVM_FFI_THROW(IndexError) << "nccl " << op << ": worker " << peer << " out of range for "
                              << c.num_workers << " workers";
  }
  if (peer == c.worker_id) {
    TVM_FFI_THROW(ValueError) << "nccl " << op << ": worker " << peer << " cannot address itself";
  }
}

void SendTo(OptTensor buf, int64_t peer, const char* op) {
  NcclComm* c = ThisWorkerComm();  // first: "not initialised" is the error before init_ccl
  const NcclApi& api = RequireNccl();
  CheckPeer(*c, peer, op);
  View b = Check(*c, buf, op, "buffer");
  ncclComm_t world = c->Get(false);
  Grouped(api, world, [&] {
    CheckNccl(api.ncclSend(b.data, b.bytes, kNcclUint8, static_cast<int>(peer), world, c->stream()),
              "ncclSend", world);
  });
}

void RecvFrom(OptTensor buf, int64_t peer, const char* op) {
  NcclComm* c = ThisWorkerComm();  // first: "not initialised" is the error before init_ccl
  const NcclApi& api = RequireNccl();
  CheckPeer(*c, peer, op);
  View b = Check(*c, buf, op, "buffer");
  ncclComm_t world = c->Get(false);
  Grouped(api, world, [&] {
    CheckNccl(api.ncclRecv(b.data, b.bytes, kNcclUint8, static_cast<int>(peer), world, c->stream()),
              "ncclRecv", world);
  });
}

void SendToNextGroup(OptTensor buf) {
  NcclComm* c = ThisWorkerComm();
  int64_t peer = c->worker_id + c->group_size();
  if (peer >= c->num_workers) {
    TVM_FFI_THROW(ValueError) << "nccl send_to_next_group: worker " << c->worker_id
                              << " is in the last group";
  }
  SendTo(buf, peer, "send_to_next_group");
}

void RecvFromPrevGroup(OptTensor buf) {
  NcclComm* c = ThisWorkerComm();
  int64_t peer = c->worker_id - c->group_size();
  if (peer < 0) {
    TVM_FFI_THROW(ValueError) << "nccl recv_from_prev_group: worker " << c->worker_id
                              << " is in the first group";
  }
  RecvFrom(buf, peer, "recv_from_prev_group");
}

void SyncWorker() {
  NcclComm* c = PendingComm();
  if (c == nullptr) return;  // nothing was ever queued by this plugin here
  SyncStream(c->device_id, c->stream());
}

template <typename F>
void Register(const char* op, F f) {
  std::string name = std::string("runtime.disco.nccl.") + op;
  ffi::Function::SetGlobal(name, ffi::Function::FromTyped(std::move(f), name));
}

}  // namespace

TVM_FFI_STATIC_INIT_BLOCK() {
  Register("allreduce", AllReduce);
  Register("allgather", AllGather);
  Register("broadcast_from_worker0", BroadcastFromWorker0);
  Register("scatter_from_worker0", ScatterFromWorker0);
  Register("gather_to_worker0", GatherToWorker0);
  Register("recv_from_worker0", [](OptTensor buf) { RecvFrom(buf, 0, "recv_from_worker0"); });
  Register("send_to_next_group", SendToNextGroup);
  Register("recv_from_prev_group", RecvFromPrevGroup);
  Register("send_to_worker", [](OptTensor buf, int64_t receiver) {
    SendTo(buf, receiver, "send_to_worker");
  });
  Register("recv_from_worker", [](OptTensor buf, int64_t sender) {
    RecvFrom(buf, sender, "recv_from_worker");
  });
  Register("sync_worker", SyncWorker);
}

}  // namespace disco_nccl
}  // namespace runtime
}  // namespace tvm
