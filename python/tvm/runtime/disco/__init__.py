"""Disco: one program on N workers (SPMD), driven by a controller (docs/disco.md).

    import tvm
    sess = tvm.runtime.disco.ThreadedSession(num_workers=2)      # or ProcessSession(2),
                                                                 # or SocketSession(...)
    f = sess.get_global_func("runtime.disco.worker_rank")
    ranks = f()                                                  # a DRef: a value per worker
    sess.sync_worker_0()
    ranks.debug_get_from_remote(1)                               # 1

The sessions live in libtvm_runtime_extra, which `import tvm` loads when it is shipped; this
package is importable either way and its constructors say so when the library is absent.
Errors of the workers come back typed: DiscoWorkerError (a worker raised; `.worker_id`,
`.kind`), DiscoWorkerLostError (a worker died), DiscoTimeoutError (no answer in time).
"""

from .errors import (DiscoError, DiscoNotAvailableError, DiscoProtocolError, DiscoTimeoutError,
                     DiscoWorkerError, DiscoWorkerLostError)
from .session import (REDUCE_OPS, DModule, DPackedFunc, DRef, ProcessSession, Session,
                      ThreadedSession, available)
from ..nvidia_libs import LibraryNotAvailableError  # init_ccl("nccl") without CUDA or NCCL
from . import process_pool  # noqa: F401  (registers runtime.disco.create_process_pool)
from .socket_session import SocketSession

__all__ = ["DModule", "DPackedFunc", "DRef", "DiscoError", "DiscoNotAvailableError",
           "DiscoProtocolError", "DiscoTimeoutError", "DiscoWorkerError", "DiscoWorkerLostError",
           "LibraryNotAvailableError", "ProcessSession", "REDUCE_OPS", "Session",
           "SocketSession", "ThreadedSession", "available"]
