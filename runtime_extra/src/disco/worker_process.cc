/*
 * The body of a worker process: `runtime.disco.WorkerProcess`, called by
 * `python -m tvm.exec.disco_worker` (or any program that embeds the runtime).
 *
 * Workers never outlive their controller: the kernel kills this process when the parent dies
 * (PR_SET_PDEATHSIG), and a closed link (EOF) ends the loop when the parent closes it. The
 * parent-death signal is armed before the parent is checked, so a parent that died during
 * start-up is caught too.
 */
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <tvm/ffi/function.h>

#include "../registry.h"
#include "fd_channel.h"
#include "session.h"
#include "worker.h"

namespace tvm {
namespace runtime {
namespace disco {

namespace {

void WorkerProcess(ffi::PackedArgs args, ffi::Any*) {
  DISCO_CHECK(args.size() >= 5 && args.size() <= 7, TypeError)
      << "runtime.disco.WorkerProcess(worker_id, num_workers, num_groups, read_fd, write_fd"
         "[, parent_pid[, local_worker_id]]) takes 5 to 7 arguments, got "
      << args.size();
  int worker_id = static_cast<int>(args[0].cast<int64_t>());
  int num_workers = static_cast<int>(args[1].cast<int64_t>());
  int num_groups = static_cast<int>(args[2].cast<int64_t>());
  int read_fd = static_cast<int>(args[3].cast<int64_t>());
  int write_fd = static_cast<int>(args[4].cast<int64_t>());
  int64_t parent = args.size() >= 6 ? args[5].cast<int64_t>() : 0;
  int64_t local_id = args.size() == 7 ? args[6].cast<int64_t>() : worker_id;
  CheckSessionShape(num_workers, num_groups);
  DISCO_CHECK(worker_id >= 1 && worker_id < num_workers, ValueError)
      << "a worker process has id 1.." << num_workers - 1 << ", got " << worker_id;
  DISCO_CHECK(read_fd >= 0 && write_fd >= 0, ValueError) << "bad file descriptors";
  DISCO_CHECK(local_id >= 0 && local_id <= worker_id, ValueError)
      << "local_worker_id must be in 0.." << worker_id << ", got " << local_id;
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (parent > 0 && ::getppid() != parent) return;  // the controller is already gone
  FdWorkerChannel channel(read_fd, write_fd);
  DiscoWorker worker(worker_id, num_workers, num_groups, &channel, nullptr);
  worker.local_worker_id = static_cast<int>(local_id);
  worker.MainLoop();
}

}  // namespace

TVM_FFI_STATIC_INIT_BLOCK() { extra::RegisterPacked("runtime.disco.WorkerProcess", WorkerProcess); }

}  // namespace disco
}  // namespace runtime
}  // namespace tvm
