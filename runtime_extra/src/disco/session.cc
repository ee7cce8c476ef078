#include "session.h"

#include <tvm/ffi/string.h>

#include <algorithm>
#include <chrono>
#include <sstream>

namespace tvm {
namespace runtime {
namespace disco {

namespace {
// How long one look at the awaited worker lasts before the others are checked again.
constexpr int kSliceMs = 20;
// How long a worker error waits for the other workers to report theirs (see RaiseErrors).
constexpr int64_t kErrorFlushMs = 2000;
// Kills a worker may lag before they are sent on their own (bounds the log, and how long a
// dropped tensor can stay alive on a worker that only the others' commands pass by).
constexpr size_t kMaxKillLag = 64;
}  // namespace

void CheckSessionShape(int num_workers, int num_groups) {
  DISCO_CHECK(num_workers >= 1 && num_workers <= 4096, ValueError)
      << "num_workers must be in [1, 4096], got " << num_workers;
  DISCO_CHECK(num_groups >= 1 && num_workers % num_groups == 0, ValueError)
      << "num_workers (" << num_workers << ") must be a positive multiple of num_groups ("
      << num_groups << ")";
}

DRefObj::~DRefObj() {
  if (const ffi::Object* s = session.get()) {
    const_cast<BcastSessionObj*>(static_cast<const BcastSessionObj*>(s))->DeallocReg(reg_id);
  }
}

int64_t DRefRegOf(const ffi::Any& value) {
  if (auto ref = value.as<DRef>()) return (*ref)->reg_id;
  return -1;
}

BcastSessionObj::BcastSessionObj(int num_workers, int num_groups)
    : num_workers_(num_workers), num_groups_(num_groups) {
  CheckSessionShape(num_workers, num_groups);
}

// Subclasses shut down in their own destructors: ReleaseWorkers is theirs, and a virtual
// call from this destructor would no longer reach it.
BcastSessionObj::~BcastSessionObj() = default;

void BcastSessionObj::SetChannels(std::vector<std::shared_ptr<ControllerChannel>> channels) {
  channels_ = std::move(channels);
  outstanding_.assign(channels_.size(), 0);
  kills_sent_.assign(channels_.size(), 0);
}

std::string BcastSessionObj::DescribeWorker(int worker_id) const {
  return "worker " + std::to_string(worker_id);
}

void BcastSessionObj::SetTimeout(double seconds) {
  DISCO_CHECK(seconds > 0 && seconds <= 1e6, ValueError)
      << "a Disco timeout must be in (0, 1e6] seconds, got " << seconds;
  timeout_s_ = seconds;
}

void BcastSessionObj::CheckUsable() {
  DISCO_CHECK(!shut_down_, RuntimeError) << "the Disco session is shut down";
  if (!broken_.empty()) {
    throw ffi::Error(broken_kind_, "the Disco session is unusable: " + broken_, "");
  }
}

void BcastSessionObj::Break(const std::string& kind, const std::string& why) {
  broken_kind_ = kind;
  broken_ = why;
  throw ffi::Error(kind, why, "");
}

void BcastSessionObj::CheckWorkerId(int worker_id) const {
  DISCO_CHECK(worker_id >= 0 && worker_id < num_workers_, IndexError)
      << "worker id " << worker_id << " out of range for " << num_workers_ << " workers";
}

void BcastSessionObj::CheckOwn(const DRef& ref) const {
  DISCO_CHECK(ref->session.get() == this, ValueError) << "the DRef belongs to another session";
}

int64_t BcastSessionObj::AllocReg() {
  std::lock_guard<std::mutex> lock(reg_mu_);
  if (!free_regs_.empty()) {
    int64_t reg = free_regs_.back();
    free_regs_.pop_back();
    return reg;
  }
  return next_reg_++;
}

DRef BcastSessionObj::AllocDRef() {
  return DRef(ffi::make_object<DRefObj>(AllocReg(), ffi::ObjectRef(ffi::details::ObjectUnsafe::PtrFromUnowned<ffi::Object>(this))));
}

void BcastSessionObj::DeallocReg(int64_t reg) {
  std::lock_guard<std::mutex> lock(reg_mu_);
  if (!shut_down_) pending_kills_.push_back(reg);
}

void BcastSessionObj::FlushKills() {
  std::vector<int64_t> kills;
  {
    std::lock_guard<std::mutex> lock(reg_mu_);
    kills.swap(pending_kills_);
  }
  for (int64_t reg : kills) {
    // Each worker gets the kill ahead of its next command, in order, so a register reused by
    // a later command is dropped on that worker before it is written again.
    kill_log_.push_back(EncodeMessage(Action::kKillReg, reg, nullptr, 0, DRefRegOf, false));
    std::lock_guard<std::mutex> lock(reg_mu_);
    free_regs_.push_back(reg);
  }
  if (kill_log_.size() > kMaxKillLag) SendAllKills();
}

void BcastSessionObj::SendWithKills(int worker_id, const std::string& frame, Action action) {
  bool ok;
  size_t sent = kills_sent_[worker_id];
  if (sent == kill_log_.size()) {
    ok = channels_[worker_id]->SendCommand(frame, TimeoutMs());
  } else {
    std::vector<const std::string*> frames;
    frames.reserve(kill_log_.size() - sent + 1);
    for (size_t k = sent; k < kill_log_.size(); ++k) frames.push_back(&kill_log_[k]);
    frames.push_back(&frame);
    ok = channels_[worker_id]->SendCommands(frames, TimeoutMs());
    kills_sent_[worker_id] = kill_log_.size();
  }
  if (!ok) {
    Break("DiscoWorkerLostError", DescribeWorker(worker_id) + " is gone or stopped reading commands (" +
                                      ActionName(action) + ")");
  }
}

void BcastSessionObj::SendAllKills() {
  for (int i = 0; i < num_workers_; ++i) {
    size_t sent = kills_sent_[i];
    if (sent == kill_log_.size()) continue;
    std::vector<const std::string*> frames;
    for (size_t k = sent; k < kill_log_.size(); ++k) frames.push_back(&kill_log_[k]);
    kills_sent_[i] = kill_log_.size();
    if (!channels_[i]->SendCommands(frames, TimeoutMs())) {
      Break("DiscoWorkerLostError", DescribeWorker(i) + " is gone or stopped reading commands (" +
                                        ActionName(Action::kKillReg) + ")");
    }
  }
  kill_log_.clear();
  std::fill(kills_sent_.begin(), kills_sent_.end(), 0);
}

void BcastSessionObj::Broadcast(Action action, int64_t reg, const ffi::AnyView* args, int num_args) {
  std::string frame = EncodeMessage(action, reg, args, static_cast<size_t>(num_args), DRefRegOf, false);
  for (int i = 0; i < num_workers_; ++i) SendWithKills(i, frame, action);
  kill_log_.clear();  // every worker has been sent every kill
  std::fill(kills_sent_.begin(), kills_sent_.end(), 0);
}

void BcastSessionObj::SendTo(int worker_id, Action action, int64_t reg, const ffi::AnyView* args,
                             int num_args) {
  std::string frame = EncodeMessage(action, reg, args, static_cast<size_t>(num_args), DRefRegOf, true);
  SendWithKills(worker_id, frame, action);
  ++outstanding_[worker_id];  // every command sent to one worker gets one reply (or an error)
}

std::string BcastSessionObj::FormatWorkerError(const Message& msg) {
  // args = (worker_id, kind, message, action); Python's DiscoWorkerError parses this form.
  int64_t worker = msg.args.size() > 0 ? msg.args[0].cast<int64_t>() : -1;
  std::string kind = msg.args.size() > 1 ? std::string(msg.args[1].cast<ffi::String>()) : "RuntimeError";
  std::string text = msg.args.size() > 2 ? std::string(msg.args[2].cast<ffi::String>()) : "";
  std::string action = msg.args.size() > 3 ? std::string(msg.args[3].cast<ffi::String>()) : "?";
  std::ostringstream os;
  os << "worker " << worker << " raised " << kind << " in " << action << ": " << text;
  return os.str();
}

bool BcastSessionObj::Absorb(int worker_id, const std::string& frame, int awaited,
                             std::vector<std::string>* errors, Message* out) {
  Message msg = DecodeMessage(frame);
  if (msg.action == Action::kError) {
    errors->push_back(FormatWorkerError(msg));
    // An error from sync/debug stands in for that command's reply.
    std::string action = msg.args.size() > 3 ? std::string(msg.args[3].cast<ffi::String>()) : "";
    bool replaces = action == ActionName(Action::kSyncWorker) ||
                    action == ActionName(Action::kDebugGetFromRemote) ||
                    action == ActionName(Action::kDebugSetRegister);
    if (replaces && outstanding_[worker_id] > 0) --outstanding_[worker_id];
    return false;
  }
  if (outstanding_[worker_id] <= 0) {
    Break("DiscoProtocolError", DescribeWorker(worker_id) + " sent an unexpected " +
                                    ActionName(msg.action) + " reply");
  }
  --outstanding_[worker_id];
  if (worker_id != awaited || outstanding_[worker_id] > 0) return false;  // an older reply
  *out = std::move(msg);
  return true;
}

void BcastSessionObj::RaiseErrors(std::vector<std::string> errors) {
  // One mistake made on every worker should be one exception, whichever worker's error came
  // first: ask every worker for a sync reply and collect until each has answered (frames of
  // one worker arrive in order, so its errors of earlier commands come before that reply).
  // The wait is short and bounded: a worker stuck in a collective its failed peer never
  // joined keeps its reply owed (dropped when it comes) and its later errors raise later.
  std::string frame;
  Message unused;
  std::string sync = EncodeMessage(Action::kSyncWorker, 0, nullptr, 0, DRefRegOf, true);
  std::vector<bool> asked(num_workers_, false);
  for (int j = 0; j < num_workers_; ++j) {
    if (channels_[j]->SendCommand(sync, kSliceMs)) {
      asked[j] = true;
      ++outstanding_[j];
    }
  }
  auto deadline = std::chrono::steady_clock::now() +
                  std::chrono::milliseconds(std::min<int64_t>(TimeoutMs(), kErrorFlushMs));
  for (int j = 0; j < num_workers_; ++j) {
    for (;;) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                      deadline - std::chrono::steady_clock::now()).count();
      bool waiting = asked[j] && outstanding_[j] > 0 && left > 0;
      RecvStatus st = channels_[j]->RecvReply(&frame, waiting ? static_cast<int>(left) : 0);
      if (st != RecvStatus::kFrame) break;
      Absorb(j, frame, -1, &errors, &unused);
    }
  }
  std::string text = errors.front();
  if (errors.size() > 1) {
    text += "\n(" + std::to_string(errors.size() - 1) + " more worker error" +
            (errors.size() > 2 ? "s" : "") + ":";
    for (size_t i = 1; i < errors.size() && i < 4; ++i) text += "\n  " + errors[i];
    if (errors.size() > 4) text += "\n  ...";
    text += ")";
  }
  throw ffi::Error("DiscoWorkerError", text, "");
}

Message BcastSessionObj::WaitReply(int worker_id, Action expected) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(TimeoutMs());
  std::string frame;
  std::vector<std::string> errors;
  Message reply;
  for (;;) {
    // Any other worker's error (or death) ends this wait too.
    for (int j = 0; j < num_workers_; ++j) {
      if (j == worker_id) continue;
      RecvStatus st;
      while ((st = channels_[j]->RecvReply(&frame, 0)) == RecvStatus::kFrame) {
        Absorb(j, frame, worker_id, &errors, &reply);
      }
      if (st == RecvStatus::kClosed) {
        Break("DiscoWorkerLostError", DescribeWorker(j) + " exited or was killed (its link closed)");
      }
    }
    if (!errors.empty()) RaiseErrors(std::move(errors));
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                    deadline - std::chrono::steady_clock::now()).count();
    if (left <= 0) {
      std::ostringstream os;
      os << DescribeWorker(worker_id) << " did not answer " << ActionName(expected) << " within "
         << timeout_s_ << " s (session timeout; set it with Session.set_timeout)";
      Break("DiscoTimeoutError", os.str());
    }
    RecvStatus st = channels_[worker_id]->RecvReply(&frame, static_cast<int>(std::min<int64_t>(left, kSliceMs)));
    if (st == RecvStatus::kTimeout) continue;
    if (st == RecvStatus::kClosed) {
      Break("DiscoWorkerLostError", DescribeWorker(worker_id) + " exited or was killed (its link closed) "
                                    "while the controller waited for " + ActionName(expected));
    }
    if (Absorb(worker_id, frame, worker_id, &errors, &reply)) {
      if (reply.action != expected) {
        Break("DiscoProtocolError", DescribeWorker(worker_id) + " replied " +
                                        ActionName(reply.action) + " to " + ActionName(expected));
      }
      if (!errors.empty()) RaiseErrors(std::move(errors));
      return reply;
    }
    if (!errors.empty()) RaiseErrors(std::move(errors));
  }
}

DRef BcastSessionObj::GetGlobalFunc(const std::string& name) {
  std::lock_guard<std::recursive_mutex> lock(call_mu_);
  CheckUsable();
  FlushKills();
  DRef ref = AllocDRef();
  ffi::AnyView arg(name);
  Broadcast(Action::kGetGlobalFunc, ref->reg_id, &arg, 1);
  return ref;
}

DRef BcastSessionObj::CallPacked(const ffi::AnyView* args, int num_args) {
  std::lock_guard<std::recursive_mutex> lock(call_mu_);
  CheckUsable();
  DISCO_CHECK(num_args >= 1, TypeError) << "call_packed needs a function DRef";
  std::optional<DRef> func = ffi::Any(args[0]).as<DRef>();
  DISCO_CHECK(func.has_value(), TypeError)
      << "call_packed: the function must be a DRef (session.get_global_func), got "
      << ffi::Any(args[0]).GetTypeKey();
  CheckOwn(*func);
  for (int i = 1; i < num_args; ++i) {
    if (auto ref = ffi::Any(args[i]).as<DRef>()) CheckOwn(*ref);
  }
  FlushKills();
  DRef ret = AllocDRef();
  Broadcast(Action::kCallPacked, ret->reg_id, args, num_args);
  return ret;
}

void BcastSessionObj::CopyFromWorker0(ffi::Tensor host, const DRef& remote) {
  std::lock_guard<std::recursive_mutex> lock(call_mu_);
  CheckUsable();
  CheckOwn(remote);
  DISCO_CHECK(host.defined(), ValueError) << "copy_from_worker_0: no host tensor";
  FlushKills();
  worker_zero_data_->Push(host);
  Broadcast(Action::kCopyFromWorker0, remote->reg_id, nullptr, 0);
}

void BcastSessionObj::CopyToWorker0(ffi::Tensor host, const DRef& remote) {
  std::lock_guard<std::recursive_mutex> lock(call_mu_);
  CheckUsable();
  CheckOwn(remote);
  DISCO_CHECK(host.defined(), ValueError) << "copy_to_worker_0: no host tensor";
  FlushKills();
  worker_zero_data_->Push(host);
  Broadcast(Action::kCopyToWorker0, remote->reg_id, nullptr, 0);
}

void BcastSessionObj::SyncWorker(int worker_id) {
  std::lock_guard<std::recursive_mutex> lock(call_mu_);
  CheckUsable();
  CheckWorkerId(worker_id);
  FlushKills();
  SendTo(worker_id, Action::kSyncWorker, worker_id, nullptr, 0);
  WaitReply(worker_id, Action::kSyncWorker);
}

ffi::Any BcastSessionObj::DebugGetFromRemote(int64_t reg, int worker_id) {
  std::lock_guard<std::recursive_mutex> lock(call_mu_);
  CheckUsable();
  CheckWorkerId(worker_id);
  FlushKills();
  SendTo(worker_id, Action::kDebugGetFromRemote, reg, nullptr, 0);
  Message msg = WaitReply(worker_id, Action::kDebugGetFromRemote);
  DISCO_CHECK(msg.args.size() == 1, ValueError) << "malformed debug_get_from_remote reply";
  return msg.args[0];
}

void BcastSessionObj::DebugSetRegister(int64_t reg, ffi::AnyView value, int worker_id) {
  std::lock_guard<std::recursive_mutex> lock(call_mu_);
  CheckUsable();
  CheckWorkerId(worker_id);
  FlushKills();
  SendTo(worker_id, Action::kDebugSetRegister, reg, &value, 1);
  WaitReply(worker_id, Action::kDebugSetRegister);
}

void BcastSessionObj::Shutdown() {
  std::lock_guard<std::recursive_mutex> lock(call_mu_);
  {
    std::lock_guard<std::mutex> rlock(reg_mu_);
    if (shut_down_) return;
    shut_down_ = true;
    pending_kills_.clear();
  }
  if (channels_.empty()) return;  // construction failed before any worker existed
  std::string frame = EncodeMessage(Action::kShutDown, 0, nullptr, 0, nullptr, false);
  for (auto& ch : channels_) {
    // Best effort and bounded: a dead or stuck worker is released below regardless.
    ch->SendCommand(frame, std::min(TimeoutMs(), 1000));
    ch->CloseCommands();
  }
  ReleaseWorkers(std::min(TimeoutMs(), 10000));
}

}  // namespace disco
}  // namespace runtime
}  // namespace tvm
