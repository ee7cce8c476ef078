/*
 * One Disco worker's NCCL state: its GPU, its own stream, the world communicator
 * (rank = worker id) and, with num_groups > 1, its group's (ncclCommSplit: color = group,
 * key = id within the group; TVM's `in_group`). With one group the group communicator IS the
 * world one and is destroyed once (apache/tvm#17275 was a double free of exactly that).
 *
 * Set up in two commands so that a worker without a usable GPU fails before any rank blocks
 * in ncclCommInitRank (which waits for every rank):
 *   1. Prepare(device_ids, unique id): bind the GPU, make the stream, keep the id;
 *   2. InitRank(): ncclCommInitRank (+ ncclCommSplit).
 */
#ifndef TVM_RUNTIME_EXTRA_CCL_NCCL_COMM_H_
#define TVM_RUNTIME_EXTRA_CCL_NCCL_COMM_H_

#include <memory>
#include <string>

#include "nccl_api.h"

namespace tvm {
namespace runtime {
namespace disco_nccl {

class NcclComm {
 public:
  NcclComm(int worker_id, int num_workers, int num_groups, int device_id,
           const std::string& unique_id);
  ~NcclComm();
  NcclComm(const NcclComm&) = delete;
  NcclComm& operator=(const NcclComm&) = delete;

  /*! \brief Step 2: joins the world (and the group). Blocks until every rank has joined. */
  void InitRank();

  const int worker_id;
  const int num_workers;
  const int num_groups;
  const int device_id;
  const std::string unique_id;  // the 128 bytes every rank received from the controller
  int group_size() const { return num_workers / num_groups; }
  bool initialised() const { return world_ != nullptr; }

  ncclComm_t Get(bool in_group) const { return in_group && group_ ? group_ : world_; }
  /*! \brief This worker's rank and the size of the communicator `in_group` picks. */
  int Rank(bool in_group) const { return in_group ? worker_id % group_size() : worker_id; }
  int Size(bool in_group) const { return in_group ? group_size() : num_workers; }
  /*! \brief The env stream of this worker's GPU when set, else the worker's own stream. */
  void* stream() const;

 private:
  void* own_stream_ = nullptr;
  ncclComm_t world_ = nullptr;
  ncclComm_t group_ = nullptr;  // null with one group: Get() answers the world
};

/*! \brief This worker thread's communicator. \throws RuntimeError before init_ccl("nccl"). */
NcclComm* ThisWorkerComm();
/*! \brief This thread's communicator, initialised or not (nullptr when none). */
NcclComm* PendingComm();
void SetThisWorkerComm(std::unique_ptr<NcclComm> comm);

}  // namespace disco_nccl
}  // namespace runtime
}  // namespace tvm
#endif  // TVM_RUNTIME_EXTRA_CCL_NCCL_COMM_H_
