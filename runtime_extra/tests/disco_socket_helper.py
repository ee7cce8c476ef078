"""Helpers of the SocketSession tests: free ports, remote nodes as subprocesses, a
controller script that can run in another process (or network namespace)."""

import os
import socket
import subprocess
import sys
import textwrap

import numpy as np

TOKEN = "t0ken-of-the-tests"


def free_port(host="127.0.0.1"):
    with socket.socket() as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def node_env(token=TOKEN):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)  # this test's tvm
    env.pop("TVM_DISCO_TOKEN", None)
    if token is not None:
        env["TVM_DISCO_TOKEN"] = token
    return env


def start_node(host, port, num_workers, token=TOKEN, prefix=(), timeout=30):
    """`python -m tvm.exec.disco_remote_socket_session` (under `prefix`, e.g. ip netns exec)."""
    cmd = list(prefix) + [sys.executable, "-m", "tvm.exec.disco_remote_socket_session", host,
                          str(port), str(num_workers), "--connect-timeout", str(timeout)]
    return subprocess.Popen(cmd, env=node_env(token), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def allreduce_check(sess, shape=(3, 5), op="sum", in_group=True):
    """Each worker holds rank-dependent data; returns (expected per worker, got per worker)."""
    n = sess.num_workers
    rng = np.random.default_rng(7)
    data = [rng.standard_normal(shape).astype("float32") for _ in range(n)]
    x = sess.empty(shape, "float32")
    y = sess.empty(shape, "float32")
    for i in range(n):
        x.debug_copy_from(i, data[i])
    sess.allreduce(x, y, op, in_group=in_group)
    sess._sync_all()
    group = n // sess.num_groups if in_group else n
    reduce = {"sum": np.sum, "max": np.max, "min": np.min, "prod": np.prod, "avg": np.mean}[op]
    expected = [reduce(np.stack(data[(i // group) * group:(i // group + 1) * group]), axis=0)
                for i in range(n)]
    got = [y.debug_get_from_remote(i).numpy() for i in range(n)]
    return expected, got


# A controller in its own process: it prints its pid, forms a 2x2 session with the node that
# connects, allreduces over gloo, prints RESULT <max abs error>, then waits for stdin to close
# (so a test can kill it while the session is alive).
CONTROLLER = textwrap.dedent("""
    import os, sys
    import numpy as np
    from tvm.runtime import disco
    sys.path.insert(0, %(here)r)
    from disco_socket_helper import allreduce_check
    print("PID", os.getpid(), flush=True)
    sess = disco.SocketSession(2, 2, 1, %(host)r, %(port)d, token=%(token)r, connect_timeout=60)
    sess.init_ccl("gloo")
    expected, got = allreduce_check(sess)
    print("RESULT", max(float(np.abs(e - g).max()) for e, g in zip(expected, got)), flush=True)
    sys.stdin.read()
    sess.shutdown()
""")


def controller_script(host, port, token=TOKEN):
    here = os.path.dirname(os.path.abspath(__file__))
    return CONTROLLER % {"here": here, "host": host, "port": port, "token": token}
