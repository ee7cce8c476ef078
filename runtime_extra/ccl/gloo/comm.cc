/*
 * GlooComm: two-step rendezvous over the Disco session (comm.h).
 *
 * Prepare() output, per pair: u8 context (0 world, 1 group) | u32 peer rank in that context |
 * u32 length | the pair's address bytes. Connect() finds, in each peer's output, the address
 * that peer made for this worker.
 */
#include "comm.h"

#include <gloo/transport/address.h>
#include <gloo/transport/context.h>
#include <gloo/transport/pair.h>
#include <gloo/transport/tcp/device.h>
#include <tvm/ffi/error.h>

#include <cstring>

namespace tvm {
namespace runtime {
namespace disco_gloo {

DiscoGlooContext::DiscoGlooContext(int rank, int size, std::chrono::milliseconds timeout)
    : gloo::Context(rank, size) {
  setTimeout(timeout);
}

std::vector<std::pair<int, std::vector<char>>> DiscoGlooContext::CreatePairs(
    const std::shared_ptr<gloo::transport::Device>& device) {
  device_ = device;
  transportContext_ = device->createContext(rank, size);
  transportContext_->setTimeout(getTimeout());
  std::vector<std::pair<int, std::vector<char>>> out;
  for (int peer = 0; peer < size; ++peer) {
    if (peer == rank) continue;
    auto& pair = transportContext_->createPair(peer);
    out.emplace_back(peer, pair->address().bytes());
  }
  return out;
}

void DiscoGlooContext::ConnectPair(int peer, const std::vector<char>& address) {
  transportContext_->getPair(peer)->connect(address);
}

namespace {

constexpr uint8_t kWorld = 0;
constexpr uint8_t kGroup = 1;

void PutU32(std::string* out, uint32_t v) { out->append(reinterpret_cast<const char*>(&v), 4); }

uint32_t GetU32(const std::string& in, size_t* pos) {
  TVM_FFI_ICHECK(*pos + 4 <= in.size()) << "gloo rendezvous: truncated address record";
  uint32_t v;
  std::memcpy(&v, in.data() + *pos, 4);
  *pos += 4;
  return v;
}

void Append(std::string* out, uint8_t ctx, const std::vector<std::pair<int, std::vector<char>>>& pairs) {
  for (const auto& [peer, addr] : pairs) {
    out->push_back(static_cast<char>(ctx));
    PutU32(out, static_cast<uint32_t>(peer));
    PutU32(out, static_cast<uint32_t>(addr.size()));
    out->append(addr.data(), addr.size());
  }
}

/*! \brief The address worker `owner` (output `blob`) made in context `ctx` for peer `peer`. */
std::vector<char> Find(const std::string& blob, int owner, uint8_t ctx, int peer) {
  size_t pos = 0;
  while (pos < blob.size()) {
    uint8_t c = static_cast<uint8_t>(blob[pos++]);
    uint32_t p = GetU32(blob, &pos);
    uint32_t len = GetU32(blob, &pos);
    TVM_FFI_ICHECK(pos + len <= blob.size()) << "gloo rendezvous: truncated address";
    if (c == ctx && static_cast<int>(p) == peer) {
      return std::vector<char>(blob.data() + pos, blob.data() + pos + len);
    }
    pos += len;
  }
  TVM_FFI_THROW(RuntimeError) << "gloo rendezvous: worker " << owner << " sent no address for peer "
                              << peer << (ctx == kGroup ? " in its group" : "");
}

thread_local std::unique_ptr<GlooComm> tls_comm;

}  // namespace

GlooComm::GlooComm(int worker_id, int num_workers, int num_groups,
                   std::chrono::milliseconds timeout)
    : worker_id(worker_id), num_workers(num_workers), num_groups(num_groups), timeout_(timeout) {}

std::string GlooComm::Prepare(const std::string& hostname, const std::string& iface) {
  gloo::transport::tcp::attr attr;
  if (!iface.empty()) {
    attr.iface = iface;
  } else {
    attr.hostname = hostname;
  }
  device_ = gloo::transport::tcp::CreateDevice(attr);
  world_ = std::make_shared<DiscoGlooContext>(worker_id, num_workers, timeout_);
  std::string out;
  Append(&out, kWorld, world_->CreatePairs(device_));
  if (num_groups > 1) {
    group_ = std::make_shared<DiscoGlooContext>(worker_id % group_size(), group_size(), timeout_);
    Append(&out, kGroup, group_->CreatePairs(device_));
  }
  return out;
}

void GlooComm::Connect(const std::vector<std::string>& all) {
  TVM_FFI_ICHECK_EQ(static_cast<int>(all.size()), num_workers) << "gloo rendezvous: address count";
  for (int peer = 0; peer < num_workers; ++peer) {
    if (peer == worker_id) continue;
    world_->ConnectPair(peer, Find(all[peer], peer, kWorld, worker_id));
  }
  if (group_) {
    int base = worker_id - worker_id % group_size();
    for (int local = 0; local < group_size(); ++local) {
      if (local == group_->rank) continue;
      group_->ConnectPair(local, Find(all[base + local], base + local, kGroup, group_->rank));
    }
  }
  connected_ = true;
}

void GlooComm::Break(const std::string& why) {
  if (!broken_.empty()) return;
  broken_ = why;
  for (auto* ctx : {world_.get(), group_.get()}) {
    if (ctx == nullptr) continue;
    try {
      ctx->closeConnections();
    } catch (const std::exception&) {
      // Closing is best effort: the communicator is unusable either way.
    }
  }
}

GlooComm* ThisWorkerComm() {
  if (tls_comm == nullptr || !tls_comm->connected()) {
    TVM_FFI_THROW(RuntimeError) << "gloo is not initialised on this worker: call "
                                   "session.init_ccl(\"gloo\") first";
  }
  if (!tls_comm->broken().empty()) {
    TVM_FFI_THROW(RuntimeError) << "the gloo communicator of worker " << tls_comm->worker_id
                                << " is broken since an earlier op failed (" << tls_comm->broken()
                                << "); start a new session";
  }
  return tls_comm.get();
}

void SetThisWorkerComm(std::unique_ptr<GlooComm> comm) { tls_comm = std::move(comm); }

GlooComm* PendingComm() { return tls_comm.get(); }

}  // namespace disco_gloo
}  // namespace runtime
}  // namespace tvm
