/*
 * runtime.disco.gloo.<op>: TVM's collectives with TVM's names, argument order and meaning
 * (shared/reference/disco.md §3), on gloo. `in_group` picks the group's communicator, whose
 * "worker 0" is the group leader (worker_id % group_size == 0); otherwise the world's.
 * Point-to-point ops always use the world (worker ids are global). Every op blocks until its
 * data has moved (CPU: there is no stream to synchronise).
 */
#include <gloo/allgather.h>
#include <gloo/barrier.h>
#include <gloo/broadcast.h>
#include <gloo/common/error.h>
#include <gloo/gather.h>
#include <gloo/scatter.h>
#include <gloo/transport/unbound_buffer.h>
#include <gloo/types.h>
#include <tvm/ffi/function.h>

#include <cstring>
#include <vector>

#include "comm.h"
#include "reduce.h"
#include "tensor_view.h"

namespace tvm {
namespace runtime {
namespace disco_gloo {

namespace {

using OptTensor = ffi::Optional<ffi::Tensor>;

/*!
 * \brief Runs `body` (a gloo call), turning gloo's exceptions into RuntimeError. A failed op
 * leaves the communicator broken (GlooComm::Break): gloo cannot resynchronise its peers.
 */
template <typename F>
void Guard(const char* op, F body) {
  try {
    body();
  } catch (const gloo::Exception& e) {
    GlooComm* comm = PendingComm();
    std::string why = std::string(op) + ": " + e.what();
    if (comm != nullptr) comm->Break(why);  // peers waiting on this worker fail now too
    TVM_FFI_THROW(RuntimeError) << "gloo " << op << " failed on worker "
                                << (comm ? comm->worker_id : -1) << ": " << e.what();
  }
}

void CheckSame(const TensorView& a, const TensorView& b, const char* op) {
  if (!SameType(a.dtype, b.dtype)) {
    TVM_FFI_THROW(TypeError) << "gloo " << op << ": `send` and `recv` must have the same dtype";
  }
}

void AllReduce(OptTensor send, int64_t kind, bool in_group, OptTensor recv) {
  GlooComm* comm = ThisWorkerComm();
  TensorView s = View(send, "allreduce", "send"), r = View(recv, "allreduce", "recv");
  CheckSame(s, r, "allreduce");
  if (!ReducibleType(r.dtype)) {
    TVM_FFI_THROW(TypeError) << "gloo allreduce: unsupported dtype (float16, bfloat16, float32, "
                                "float64, int8-int64 and uint8-uint64 are)";
  }
  if (kind < 0 || kind > 4) {
    TVM_FFI_THROW(ValueError) << "gloo allreduce: reduce kind must be 0..4 (sum, prod, min, max, "
                                 "avg), got " << kind;
  }
  if (s.numel != r.numel) {
    TVM_FFI_THROW(ValueError) << "gloo allreduce: `send` has " << s.numel << " elements, `recv` "
                              << r.numel;
  }
  // The ring reads `send` and writes `recv` (no copy of one into the other first) unless the
  // two overlap without being the same buffer: then in place on a copy.
  const void* in = s.data;
  bool overlap = r.data != s.data && r.data < s.data + s.bytes && s.data < r.data + r.bytes;
  if (overlap) {
    std::memmove(r.data, s.data, r.bytes);
    in = r.data;
  }
  Guard("allreduce", [&] {
    Allreduce(comm->Get(in_group), r.dtype, in, r.data, r.numel, static_cast<int>(kind),
              comm->timeout());
  });
}

void AllGather(OptTensor send, bool in_group, OptTensor recv) {
  GlooComm* comm = ThisWorkerComm();
  const auto& ctx = comm->Get(in_group);
  TensorView s = View(send, "allgather", "send"), r = View(recv, "allgather", "recv");
  CheckSame(s, r, "allgather");
  if (r.numel != s.numel * ctx->size) {
    TVM_FFI_THROW(ValueError) << "gloo allgather: `recv` must have " << ctx->size << " x "
                              << s.numel << " elements, got " << r.numel;
  }
  if (s.bytes == 0) return;
  Guard("allgather", [&] {
    gloo::AllgatherOptions opts(ctx);
    opts.setInput(s.data, s.bytes);
    opts.setOutput(r.data, r.bytes);
    opts.setTimeout(comm->timeout());
    gloo::allgather(opts);
  });
}

void BroadcastFromWorker0(OptTensor send, bool in_group, OptTensor recv) {
  GlooComm* comm = ThisWorkerComm();
  const auto& ctx = comm->Get(in_group);
  TensorView r = View(recv, "broadcast_from_worker0", "recv");
  if (ctx->rank == 0) {
    TensorView s = View(send, "broadcast_from_worker0", "send");
    CheckSame(s, r, "broadcast_from_worker0");
    if (s.numel != r.numel) {
      TVM_FFI_THROW(ValueError) << "gloo broadcast_from_worker0: `send` has " << s.numel
                                << " elements, `recv` " << r.numel;
    }
    if (r.data != s.data) std::memmove(r.data, s.data, r.bytes);
  }
  if (r.bytes == 0) return;
  Guard("broadcast_from_worker0", [&] {
    gloo::BroadcastOptions opts(ctx);
    opts.setOutput(r.data, r.bytes);
    opts.setRoot(0);
    opts.setTimeout(comm->timeout());
    gloo::broadcast(opts);
  });
}

void ScatterFromWorker0(OptTensor send, bool in_group, OptTensor recv) {
  GlooComm* comm = ThisWorkerComm();
  const auto& ctx = comm->Get(in_group);
  TensorView r = View(recv, "scatter_from_worker0", "recv");
  std::vector<uint8_t*> shards;
  if (ctx->rank == 0) {
    TensorView s = View(send, "scatter_from_worker0", "send");
    CheckSame(s, r, "scatter_from_worker0");
    if (s.numel != r.numel * ctx->size) {
      TVM_FFI_THROW(ValueError) << "gloo scatter_from_worker0: `send` must have " << ctx->size
                                << " shards of `recv`'s " << r.numel << " elements, got "
                                << s.numel;
    }
    for (int i = 0; i < ctx->size; ++i) shards.push_back(s.data + i * r.bytes);
  }
  if (r.bytes == 0) return;
  Guard("scatter_from_worker0", [&] {
    gloo::ScatterOptions opts(ctx);
    if (ctx->rank == 0) opts.setInputs(shards, r.bytes);
    opts.setOutput(r.data, r.bytes);
    opts.setRoot(0);
    opts.setTimeout(comm->timeout());
    gloo::scatter(opts);
  });
}

void GatherToWorker0(OptTensor send, bool in_group, OptTensor recv) {
  GlooComm* comm = ThisWorkerComm();
  const auto& ctx = comm->Get(in_group);
  TensorView s = View(send, "gather_to_worker0", "send");
  TensorView r;
  if (ctx->rank == 0) {
    r = View(recv, "gather_to_worker0", "recv");
    CheckSame(s, r, "gather_to_worker0");
    if (r.numel != s.numel * ctx->size) {
      TVM_FFI_THROW(ValueError) << "gloo gather_to_worker0: `recv` must have " << ctx->size
                                << " shards of `send`'s " << s.numel << " elements, got "
                                << r.numel;
    }
  }
  if (s.bytes == 0) return;
  Guard("gather_to_worker0", [&] {
    gloo::GatherOptions opts(ctx);
    opts.setInput(s.data, s.bytes);
    if (ctx->rank == 0) opts.setOutput(r.data, r.bytes);
    opts.setRoot(0);
    opts.setTimeout(comm->timeout());
    gloo::gather(opts);
  });
}

// Point to point: one slot for all of them; gloo keeps the order per (peer, slot).
const uint64_t kP2PSlot = gloo::Slot::build(0x7d, 0);

void CheckPeer(GlooComm* comm, int64_t peer, const char* op) {
  if (peer < 0 || peer >= comm->num_workers) {
    TVM_FFI_THROW(IndexError) << "gloo " << op << ": worker " << peer << " out of range for "
                              << comm->num_workers << " workers";
  }
  if (peer == comm->worker_id) {
    TVM_FFI_THROW(ValueError) << "gloo " << op << ": worker " << peer << " cannot address itself";
  }
}

void SendTo(OptTensor buf, int64_t peer, const char* op) {
  GlooComm* comm = ThisWorkerComm();
  CheckPeer(comm, peer, op);
  TensorView b = View(buf, op, "buffer");
  if (b.bytes == 0) return;
  Guard(op, [&] {
    auto ub = comm->world()->createUnboundBuffer(b.data, b.bytes);
    ub->send(static_cast<int>(peer), kP2PSlot);
    ub->waitSend(comm->timeout());
  });
}

void RecvFrom(OptTensor buf, int64_t peer, const char* op) {
  GlooComm* comm = ThisWorkerComm();
  CheckPeer(comm, peer, op);
  TensorView b = View(buf, op, "buffer");
  if (b.bytes == 0) return;
  Guard(op, [&] {
    auto ub = comm->world()->createUnboundBuffer(b.data, b.bytes);
    ub->recv(static_cast<int>(peer), kP2PSlot);
    ub->waitRecv(comm->timeout());
  });
}

void SendToNextGroup(OptTensor buf) {
  GlooComm* comm = ThisWorkerComm();
  int64_t peer = comm->worker_id + comm->group_size();
  if (peer >= comm->num_workers) {
    TVM_FFI_THROW(ValueError) << "gloo send_to_next_group: worker " << comm->worker_id
                              << " is in the last group";
  }
  SendTo(buf, peer, "send_to_next_group");
}

void RecvFromPrevGroup(OptTensor buf) {
  GlooComm* comm = ThisWorkerComm();
  int64_t peer = comm->worker_id - comm->group_size();
  if (peer < 0) {
    TVM_FFI_THROW(ValueError) << "gloo recv_from_prev_group: worker " << comm->worker_id
                              << " is in the first group";
  }
  RecvFrom(buf, peer, "recv_from_prev_group");
}

void Barrier(bool in_group) {
  GlooComm* comm = ThisWorkerComm();
  Guard("barrier", [&] {
    gloo::BarrierOptions opts(comm->Get(in_group));
    opts.setTimeout(comm->timeout());
    gloo::barrier(opts);
  });
}

template <typename F>
void Register(const char* op, F f) {
  std::string name = std::string("runtime.disco.gloo.") + op;
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
  Register("barrier", Barrier);
  Register("sync_worker", []() {});  // CPU: every op above has finished when it returns
}

}  // namespace disco_gloo
}  // namespace runtime
}  // namespace tvm
