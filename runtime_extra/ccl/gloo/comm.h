/*
 * One Disco worker's gloo communicators: the world (rank = worker id) and, with
 * num_groups > 1, its group (rank = worker id % group size; TVM's `in_group`).
 *
 * Rendezvous goes through the Disco session itself, in two commands, instead of a store:
 *   1. Prepare(): every worker makes its TCP device and one pair per peer, and returns the
 *      pairs' addresses (a register the controller reads with DebugGetFromRemote);
 *   2. Connect(all): the controller broadcasts every worker's addresses; each worker connects
 *      its pairs, which is what gloo::rendezvous::Context::connectFullMesh does with a store.
 */
#ifndef TVM_RUNTIME_EXTRA_CCL_GLOO_COMM_H_
#define TVM_RUNTIME_EXTRA_CCL_GLOO_COMM_H_

#include <gloo/context.h>
#include <gloo/transport/device.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tvm {
namespace runtime {
namespace disco_gloo {

/*! \brief A gloo::Context whose pairs are connected from addresses given to it. */
class DiscoGlooContext : public gloo::Context {
 public:
  DiscoGlooContext(int rank, int size, std::chrono::milliseconds timeout);
  /*! \brief Creates a pair per peer on `device`; returns (peer, address bytes) per peer. */
  std::vector<std::pair<int, std::vector<char>>> CreatePairs(
      const std::shared_ptr<gloo::transport::Device>& device);
  /*! \brief Connects the pair to `peer` to the address that peer made for this rank. */
  void ConnectPair(int peer, const std::vector<char>& address);
};

class GlooComm {
 public:
  GlooComm(int worker_id, int num_workers, int num_groups, std::chrono::milliseconds timeout);

  /*! \brief Step 1: this worker's pair addresses, serialised (see comm.cc). */
  std::string Prepare(const std::string& hostname, const std::string& iface);
  /*! \brief Step 2: `all` is every worker's Prepare() output, in worker order. */
  void Connect(const std::vector<std::string>& all);

  const std::shared_ptr<DiscoGlooContext>& world() const { return world_; }
  /*! \brief The group's communicator (the world when num_groups == 1). */
  const std::shared_ptr<DiscoGlooContext>& group() const { return group_ ? group_ : world_; }
  const std::shared_ptr<DiscoGlooContext>& Get(bool in_group) const {
    return in_group ? group() : world();
  }

  const int worker_id;
  const int num_workers;
  const int num_groups;
  int group_size() const { return num_workers / num_groups; }
  std::chrono::milliseconds timeout() const { return timeout_; }
  bool connected() const { return connected_; }

  /*!
   * \brief After a failed op: closes every connection, so the peers' pending ops fail at once
   * instead of at their timeout, and remembers why; later ops say the communicator is broken.
   */
  void Break(const std::string& why);
  const std::string& broken() const { return broken_; }

 private:
  std::chrono::milliseconds timeout_;
  std::shared_ptr<gloo::transport::Device> device_;
  std::shared_ptr<DiscoGlooContext> world_;
  std::shared_ptr<DiscoGlooContext> group_;
  bool connected_ = false;
  std::string broken_;
};

/*!
 * \brief The communicator of the Disco worker running on this thread (a worker runs every
 * command on one thread). \throws RuntimeError when init_ccl("gloo") has not run here, or
 * when an earlier op failed (the communicator is broken then).
 */
GlooComm* ThisWorkerComm();
/*! \brief This thread's communicator, connected or not (nullptr when none). */
GlooComm* PendingComm();
/*! \brief Installs (or, with nullptr, removes) this thread's communicator. */
void SetThisWorkerComm(std::unique_ptr<GlooComm> comm);

}  // namespace disco_gloo
}  // namespace runtime
}  // namespace tvm
#endif  // TVM_RUNTIME_EXTRA_CCL_GLOO_COMM_H_
