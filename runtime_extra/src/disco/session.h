/*
 * The controller's side: DRef (a register id on every worker) and BcastSessionObj, the base
 * of every session kind. A command is encoded once and sent to every worker; only sync and
 * the debug commands wait for a reply.
 *
 * Bounded waits: every wait has a deadline (timeout_s, settable). While it waits for one
 * worker it also looks at every other worker's link, so an error frame or a dead worker
 * anywhere ends the wait. A worker that is gone, or a wait that ran out, leaves the session
 * broken: later calls fail at once with the first reason, and shutdown reaps what is left.
 * A worker's exception (an error frame) does not break the session: it is raised once, as
 * DiscoWorkerError, and the workers go on.
 */
#ifndef TVM_RUNTIME_EXTRA_SRC_DISCO_SESSION_H_
#define TVM_RUNTIME_EXTRA_SRC_DISCO_SESSION_H_

#include <tvm/ffi/any.h>
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/object.h>

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "channel.h"
#include "message.h"
#include "worker.h"

namespace tvm {
namespace runtime {
namespace disco {

class BcastSessionObj;

/*! \brief Register `reg_id` on every worker of `session`; destroying it frees the register. */
class DRefObj : public ffi::Object {
 public:
  DRefObj(int64_t reg_id, ffi::ObjectRef session) : reg_id(reg_id), session(std::move(session)) {}
  ~DRefObj();
  const int64_t reg_id;
  /*! \brief Keeps the session (and its workers) alive while a DRef exists. */
  const ffi::ObjectRef session;

  static constexpr bool _type_final = true;
  static constexpr int32_t _type_child_slots = 0;
  static constexpr bool _type_child_slots_can_overflow = false;
  TVM_FFI_DECLARE_OBJECT_INFO("runtime.disco.DRef", DRefObj, ffi::Object);
};

class DRef : public ffi::ObjectRef {
 public:
  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NOTNULLABLE(DRef, ffi::ObjectRef, DRefObj);
};

class BcastSessionObj : public ffi::Object {
 public:
  virtual ~BcastSessionObj();

  int num_workers() const { return num_workers_; }
  int num_groups() const { return num_groups_; }
  double timeout_s() const { return timeout_s_; }
  /*! \throws ValueError unless 0 < seconds <= 1e6. */
  void SetTimeout(double seconds);

  /*! \brief A DRef to `name` looked up on every worker (a missing name errors at the next wait). */
  DRef GetGlobalFunc(const std::string& name);
  /*! \brief Calls the function in DRef `args[0]` with `args[1:]` on every worker. */
  DRef CallPacked(const ffi::AnyView* args, int num_args);
  /*! \brief Worker 0 copies its tensor `remote` into `host` (wait with SyncWorker(0)). */
  void CopyFromWorker0(ffi::Tensor host, const DRef& remote);
  /*! \brief Worker 0 copies `host` into its tensor `remote`. */
  void CopyToWorker0(ffi::Tensor host, const DRef& remote);
  /*! \brief Waits until worker `worker_id` has run every command sent so far. */
  void SyncWorker(int worker_id);
  /*! \brief The value of register `reg` on worker `worker_id` (tensors come back as host copies). */
  ffi::Any DebugGetFromRemote(int64_t reg, int worker_id);
  /*! \brief Sets register `reg` on worker `worker_id` to `value` (tensors travel by value). */
  void DebugSetRegister(int64_t reg, ffi::AnyView value, int worker_id);
  /*! \brief Stops every worker (bounded by timeout_s) and releases them. Idempotent. */
  void Shutdown();
  /*! \brief A DRef of a fresh register (no command sent). */
  DRef AllocDRef();

  /*! \brief From ~DRefObj, on any thread: the kill is sent before the next command. */
  void DeallocReg(int64_t reg);

  static constexpr int32_t _type_child_slots = 4;
  TVM_FFI_DECLARE_OBJECT_INFO("runtime.disco.Session", BcastSessionObj, ffi::Object);

 protected:
  BcastSessionObj(int num_workers, int num_groups);
  /*! \brief Subclasses call this once their links exist (index = worker id). */
  void SetChannels(std::vector<std::shared_ptr<ControllerChannel>> channels);
  /*! \brief Host tensors for worker 0 (always a thread of this process). */
  std::shared_ptr<HostQueue> worker_zero_data() const { return worker_zero_data_; }
  /*!
   * \brief Waits at most `timeout_ms` for the workers to end after their links closed, then
   * releases them (joins or abandons threads, reaps processes). Called once, by Shutdown.
   */
  virtual void ReleaseWorkers(int timeout_ms) = 0;
  /*! \brief "worker 3 (process 1234)": how errors name a worker. */
  virtual std::string DescribeWorker(int worker_id) const;

 private:
  void Broadcast(Action action, int64_t reg, const ffi::AnyView* args, int num_args);
  void SendTo(int worker_id, Action action, int64_t reg, const ffi::AnyView* args, int num_args);
  Message WaitReply(int worker_id, Action expected);
  void FlushKills();
  /*!
   * \brief `frame` to worker `worker_id`, after the kills it has not been sent yet, as one
   * hand-off where the link allows.
   */
  void SendWithKills(int worker_id, const std::string& frame, Action action);
  /*! \brief Sends every worker the kills it lags; the log is then empty. */
  void SendAllKills();
  void CheckUsable();
  [[noreturn]] void Break(const std::string& kind, const std::string& why);
  static std::string FormatWorkerError(const Message& msg);
  /*!
   * \brief Takes one frame of `worker_id`: an error joins `errors`, a reply settles one that
   * worker owes. True (and `*out`) only for the reply of `awaited` that is owed last.
   */
  bool Absorb(int worker_id, const std::string& frame, int awaited, std::vector<std::string>* errors,
              Message* out);
  [[noreturn]] void RaiseErrors(std::vector<std::string> errors);
  int64_t AllocReg();
  int TimeoutMs() const { return static_cast<int>(timeout_s_ * 1000); }
  void CheckWorkerId(int worker_id) const;
  void CheckOwn(const DRef& ref) const;

  const int num_workers_;
  const int num_groups_;
  double timeout_s_ = 60.0;
  std::vector<std::shared_ptr<ControllerChannel>> channels_;
  // Replies each worker still owes (a wait that an error ended leaves its reply in flight).
  std::vector<int> outstanding_;
  std::shared_ptr<HostQueue> worker_zero_data_ = std::make_shared<HostQueue>();
  // One controller call at a time (DRef kills do not take it: they may come from any thread,
  // e.g. a garbage collector running on a worker thread while the controller waits).
  std::recursive_mutex call_mu_;
  std::mutex reg_mu_;
  int64_t next_reg_ = 1;
  std::vector<int64_t> free_regs_;
  std::vector<int64_t> pending_kills_;
  // Encoded kills of dropped DRefs (controller thread only). Worker i has been sent the first
  // kills_sent_[i]; the rest go ahead of its next command. A command for every worker sends
  // them all; one for a single worker (sync, debug) sends that worker's only, so a
  // call_packed + sync_worker_0 loop wakes the other workers once per iteration, not twice.
  std::vector<std::string> kill_log_;
  std::vector<size_t> kills_sent_;
  bool shut_down_ = false;
  std::string broken_kind_;
  std::string broken_;
};

class Session : public ffi::ObjectRef {
 public:
  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NOTNULLABLE(Session, ffi::ObjectRef, BcastSessionObj);
};

/*! \brief `worker_id, num_workers, num_groups` are consistent (num_workers % num_groups == 0). */
void CheckSessionShape(int num_workers, int num_groups);

}  // namespace disco
}  // namespace runtime
}  // namespace tvm
#endif  // TVM_RUNTIME_EXTRA_SRC_DISCO_SESSION_H_
