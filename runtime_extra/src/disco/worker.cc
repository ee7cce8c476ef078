#include "worker.h"

#include <tvm/ffi/container/shape.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/string.h>

namespace tvm {
namespace runtime {
namespace disco {

namespace {
thread_local DiscoWorker* current_worker = nullptr;
// Registers grow on demand up to this many (a corrupt id must not allocate gigabytes).
constexpr int64_t kMaxRegisters = int64_t{1} << 24;

/*! \brief The tensor in `v`, or nullopt (also for None: Tensor is nullable). */
std::optional<ffi::Tensor> AsTensor(const ffi::Any& v) {
  if (v.type_index() != kTVMFFITensor) return std::nullopt;
  return v.cast<ffi::Tensor>();
}

struct ScopedCurrent {
  explicit ScopedCurrent(DiscoWorker* w) { current_worker = w; }
  ~ScopedCurrent() { current_worker = nullptr; }
};
}  // namespace

ffi::Tensor HostQueue::Pop() {
  std::lock_guard<std::mutex> lock(mu_);
  DISCO_CHECK(!items_.empty(), InternalError) << "worker 0 found no host tensor to copy";
  ffi::Tensor t = std::move(items_.front());
  items_.pop_front();
  return t;
}

DiscoWorker* DiscoWorker::ThreadLocal() {
  DISCO_CHECK(current_worker != nullptr, RuntimeError)
      << "The current thread is not a DiscoWorker thread: runtime.disco worker functions run "
         "only inside a session's workers (call them through session.get_global_func)";
  return current_worker;
}

ffi::Any& DiscoWorker::Register(int64_t reg) {
  DISCO_CHECK(reg > 0 && reg < kMaxRegisters, ValueError) << "bad Disco register " << reg;
  if (static_cast<size_t>(reg) >= registers_.size()) registers_.resize(static_cast<size_t>(reg) + 1);
  return registers_[static_cast<size_t>(reg)];
}

void DiscoWorker::ReplyError(Action action, const std::string& kind, const std::string& message) {
  ffi::AnyView args[4] = {ffi::AnyView(int64_t{worker_id}), ffi::AnyView(kind),
                          ffi::AnyView(message), ffi::AnyView(ActionName(action))};
  // Strings only: encoding cannot fail.
  channel_->SendReply(EncodeMessage(Action::kError, 0, args, 4, nullptr, false));
}

void DiscoWorker::Run(Message* msg) {
  switch (msg->action) {
    case Action::kKillReg:
      if (msg->reg > 0 && static_cast<size_t>(msg->reg) < registers_.size()) {
        registers_[static_cast<size_t>(msg->reg)] = ffi::Any();
      }
      return;
    case Action::kGetGlobalFunc: {
      DISCO_CHECK(msg->args.size() == 1, ValueError) << "get_global_func takes a name";
      std::string name = msg->args[0].cast<ffi::String>();
      std::optional<ffi::Function> f = ffi::Function::GetGlobal(name);
      DISCO_CHECK(f.has_value(), ValueError) << "no global function " << name << " on worker " << worker_id;
      if (msg->reg != 0) Register(msg->reg) = *f;
      return;
    }
    case Action::kCallPacked: {
      DISCO_CHECK(!msg->args.empty(), ValueError) << "call_packed needs a function";
      for (const auto& [index, reg] : msg->reg_args) msg->args[index] = Register(reg);
      // Function and Tensor are nullable: as<>() of None gives a null one, so test the type.
      std::optional<ffi::Function> f;
      if (msg->args[0].type_index() == kTVMFFIFunction) f = msg->args[0].cast<ffi::Function>();
      DISCO_CHECK(f.has_value(), TypeError)
          << "call_packed: the callee is a " << msg->args[0].GetTypeKey() << ", not a function";
      std::vector<ffi::AnyView> views(msg->args.begin() + 1, msg->args.end());
      ffi::Any rv;
      f->CallPacked(views.data(), static_cast<int32_t>(views.size()), &rv);
      Register(msg->reg) = std::move(rv);
      return;
    }
    case Action::kSyncWorker: {
      if (!ccl.empty()) {
        if (auto sync = ffi::Function::GetGlobal("runtime.disco." + ccl + ".sync_worker")) (*sync)();
      }
      channel_->SendReply(EncodeMessage(Action::kSyncWorker, worker_id, nullptr, 0, nullptr, false));
      return;
    }
    case Action::kCopyFromWorker0:
    case Action::kCopyToWorker0: {
      if (worker_id != 0) return;
      DISCO_CHECK(worker_zero_data_ != nullptr, InternalError) << "worker 0 has no host queue";
      ffi::Tensor host = worker_zero_data_->Pop();
      ffi::Any& value = Register(msg->reg);
      std::optional<ffi::Tensor> remote = AsTensor(value);
      DISCO_CHECK(remote.has_value(), TypeError)
          << ActionName(msg->action) << ": register holds a " << value.GetTypeKey() << ", not a Tensor";
      DISCO_CHECK(remote->ndim() == host.ndim() && remote->numel() == host.numel() &&
                        remote->dtype().code == host.dtype().code &&
                        remote->dtype().bits == host.dtype().bits,
                    ValueError)
          << ActionName(msg->action) << ": the host tensor and worker 0's tensor differ in shape "
          << "or dtype";
      for (int i = 0; i < host.ndim(); ++i) {
        DISCO_CHECK(remote->shape()[i] == host.shape()[i], ValueError)
            << ActionName(msg->action) << ": shapes differ at axis " << i << " (host "
            << host.shape()[i] << ", worker 0 " << remote->shape()[i] << ")";
      }
      static const ffi::Function copy = ffi::Function::GetGlobalRequired("runtime.TensorCopyFromTo");
      if (msg->action == Action::kCopyToWorker0) {
        copy(host, *remote);
      } else {
        copy(*remote, host);
      }
      return;
    }
    case Action::kDebugGetFromRemote: {
      ffi::AnyView value = Register(msg->reg);
      channel_->SendReply(
          EncodeMessage(Action::kDebugGetFromRemote, msg->reg, &value, 1, nullptr, true));
      return;
    }
    case Action::kDebugSetRegister: {
      DISCO_CHECK(msg->args.size() == 1, ValueError) << "debug_set_register takes a value";
      ffi::Any& slot = Register(msg->reg);
      std::optional<ffi::Tensor> dst = AsTensor(slot);
      std::optional<ffi::Tensor> src = AsTensor(msg->args[0]);
      if (dst.has_value() && src.has_value()) {
        // Into the tensor already there (it may live on a device), as TVM's debug_copy_from.
        DISCO_CHECK(dst->numel() == src->numel() && dst->dtype().bits == src->dtype().bits &&
                          dst->dtype().code == src->dtype().code,
                      ValueError)
            << "debug_copy_from: the value's shape or dtype differs from worker " << worker_id
            << "'s tensor";
        static const ffi::Function copy = ffi::Function::GetGlobalRequired("runtime.TensorCopyFromTo");
        copy(*src, *dst);
      } else {
        slot = msg->args[0];
      }
      channel_->SendReply(EncodeMessage(Action::kDebugSetRegister, msg->reg, nullptr, 0, nullptr, false));
      return;
    }
    case Action::kShutDown:
    case Action::kError:
      return;
  }
}

void DiscoWorker::MainLoop() {
  ScopedCurrent scope(this);
  std::string frame;
  while (channel_->RecvCommand(&frame)) {
    Action action = Action::kShutDown;
    try {
      Message msg = DecodeMessage(frame);
      action = msg.action;
      if (action == Action::kShutDown) break;
      Run(&msg);
    } catch (const ffi::Error& e) {
      ReplyError(action, e.kind(), e.message());
    } catch (const std::exception& e) {
      ReplyError(action, "RuntimeError", e.what());
    }
  }
  // Drop register values on this thread (tensors, modules) before the thread ends.
  registers_.clear();
}

}  // namespace disco
}  // namespace runtime
}  // namespace tvm
