"""The process pool behind ProcessSession (`runtime.disco.create_process_pool`).

Worker i (1..n-1) is `python -m <entrypoint> i n groups read_fd write_fd parent_pid`, linked to
the controller by two pipes, commands one way and replies the other (TVM's read_fd/write_fd
convention; a pipe hand-off costs about half what an AF_UNIX socketpair's does, see
runtime_extra/src/disco/fd_channel.h). The controller's ends go to the C++ session, which owns
them from then on; the child's ends are closed here once it has them, so either side's exit is
an EOF for the other.
Workers do not outlive the controller: they arm PR_SET_PDEATHSIG, and they stop at EOF.
f(0) reaps: a short grace for clean exits, then SIGKILL, so nothing is left behind.
"""

import os
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
        cmd_r, cmd_w = os.pipe()  # controller -> worker
        rep_r, rep_w = os.pipe()  # worker -> controller
        cmd = [sys.executable, "-m", self.entrypoint, str(worker_id), str(self.num_workers),
               str(self.num_groups), str(cmd_r), str(rep_w), str(os.getpid())]
        try:
            proc = subprocess.Popen(cmd, pass_fds=(cmd_r, rep_w), close_fds=True, env=_worker_env())
        except BaseException:
            os.close(cmd_w)
            os.close(rep_r)
            raise
        finally:
            os.close(cmd_r)
            os.close(rep_w)
        self.procs.append(proc)
        return tvm_ffi.Shape([rep_r, cmd_w, proc.pid])

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
