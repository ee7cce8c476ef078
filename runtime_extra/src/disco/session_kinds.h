/*
 * Constructors of the session kinds (each kind's class stays in its own .cc file).
 */
#ifndef TVM_RUNTIME_EXTRA_SRC_DISCO_SESSION_KINDS_H_
#define TVM_RUNTIME_EXTRA_SRC_DISCO_SESSION_KINDS_H_

#include <tvm/ffi/function.h>

#include <string>

#include "session.h"

namespace tvm {
namespace runtime {
namespace disco {

/*! \throws ValueError on a bad shape (num_workers % num_groups != 0, ...). */
Session MakeThreadedSession(int num_workers, int num_groups);

/*!
 * \brief Worker 0 is a thread here; workers 1..n-1 are processes started by the global
 * `pool_creator`(num_workers, num_groups, entrypoint) -> f, where f(i) starts worker i and
 * returns Shape([read_fd, write_fd(, pid)]) (the controller's ends, now owned by the session)
 * and f(0) reaps every worker. Python registers `runtime.disco.create_process_pool`.
 * \throws ValueError when the pool creator is not registered; whatever the pool raises.
 */
Session MakeProcessSession(int num_workers, int num_groups, const std::string& pool_creator,
                           const std::string& entrypoint);

/*!
 * \brief The same session with the pool given directly: f(i >= 1) returns worker i's link
 * (any connected stream socket or pipe pair: a local process, or a remote node's worker
 * already authenticated by Python's SocketSession), f(0) releases all of them.
 */
Session MakeProcessSessionFromPool(int num_workers, int num_groups, ffi::Function pool);

}  // namespace disco
}  // namespace runtime
}  // namespace tvm
#endif  // TVM_RUNTIME_EXTRA_SRC_DISCO_SESSION_KINDS_H_
