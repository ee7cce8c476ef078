"""The process pool behind ProcessSession (`runtime.disco.create_process_pool`).

Worker i (1..n-1) is `python -m <entrypoint> i n groups fd fd parent_pid`, linked to the
controller by one socketpair (both fd arguments name the child's end: TVM's read_fd/write_fd
convention). The controller's end goes to the C++ session, which owns it from then on.
Workers do not outlive the controller: they arm PR_SET_PDEATHSIG, and they stop at EOF.
f(0) reaps: a short grace for clean exits, then SIGKILL, so nothing is left behind.
"""

import os
import socket
import subprocess
import sys

import tvm_ffi

# How long f(0) waits for workers to exit after shutdown before killing them.
REAP_GRACE_S = 5.0


def _worker_env():
    """The controller's environment, with the folder holding this `tvm` package first on
    PYTHONPATH: a worker runs the same tvm as its controller (a checkout, a wheel, runfiles)."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    env = dict(os.environ)
    parts = [root] + [p for p in sys.path if p and os.path.isdir(p)]
    env["PYTHONPATH"] = os.pathsep.join(dict.fromkeys(parts))
    return env


class _Pool:
    def __init__(self, num_workers, num_groups, entrypoint):
        self.num_workers = num_workers
        self.num_groups = num_groups
        self.entrypoint = entrypoint
        self.procs = []

    def start(self, worker_id):
        parent, child = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        fd = child.fileno()
        cmd = [sys.executable, "-m", self.entrypoint, str(worker_id), str(self.num_workers),
               str(self.num_groups), str(fd), str(fd), str(os.getpid())]
        try:
            proc = subprocess.Popen(cmd, pass_fds=(fd,), close_fds=True, env=_worker_env())
        except BaseException:
            parent.close()
            raise
        finally:
            child.close()
        self.procs.append(proc)
        own = parent.detach()  # the C++ session owns this fd now (closes it at shutdown)
        return tvm_ffi.Shape([own, own, proc.pid])

    def release(self):
        procs, self.procs = self.procs, []
        for p in procs:
            try:
                p.wait(timeout=REAP_GRACE_S)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()


@tvm_ffi.register_global_func("runtime.disco.create_process_pool", override=True)
def create_process_pool(num_workers, num_groups, entrypoint):
    """Returns f: f(i >= 1) starts worker i, f(0) reaps all of them."""
    pool = _Pool(int(num_workers), int(num_groups), str(entrypoint))

    def f(worker_id):
        if worker_id == 0:
            pool.release()
            return None
        return pool.start(int(worker_id))

    return f
