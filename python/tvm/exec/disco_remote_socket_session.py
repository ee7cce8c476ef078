"""A remote node of a Disco SocketSession:

    TVM_DISCO_TOKEN=<token> python -m tvm.exec.disco_remote_socket_session HOST PORT NUM_WORKERS

Connects to the controller at HOST:PORT (retrying until --connect-timeout while it is not up
yet), proves the session's token, gets its node id, then starts NUM_WORKERS worker processes
(`python -m tvm.exec.disco_worker`), each on its own authenticated connection to the
controller. The node stays until the controller closes its connection (the session ended or
the controller died): then it stops its workers and exits. Its workers die with it
(PR_SET_PDEATHSIG), so killing the node leaves nothing behind and the controller's next wait
reports the lost workers.

Exit status: 0 after a session, 1 when refused (wrong token, too many nodes) or when the
controller cannot be reached, 2 on bad arguments.
"""

import argparse
import os
import select
import signal
import socket
import subprocess
import sys
import time

from tvm.runtime.disco import handshake
from tvm.runtime.disco.process_pool import REAP_GRACE_S, _worker_env


def _connect(host, port, deadline):
    while True:
        try:
            return socket.create_connection((host, port), timeout=max(deadline - time.monotonic(), 0.1))
        except OSError as err:
            if time.monotonic() >= deadline:
                raise ConnectionError("cannot reach the SocketSession controller at %s:%d: %s"
                                      % (host, port, err)) from None
            time.sleep(0.2)


def _start_workers(args, token, verdict, local_host):
    node_id, per_node = verdict["node_id"], verdict["num_workers_per_node"]
    num_workers = verdict["num_nodes"] * per_node
    env = _worker_env()
    env.setdefault("TVM_DISCO_HOST", local_host)
    procs = []
    for local_id in range(per_node):
        worker_id = node_id * per_node + local_id
        sock = _connect(args.host, args.port, time.monotonic() + args.connect_timeout)
        handshake.answer_challenge(sock, token, "worker", "%d|%s" % (worker_id, verdict["session"]),
                                   {"worker_id": worker_id, "session": verdict["session"]})
        sock.settimeout(None)
        fd = sock.fileno()
        cmd = [sys.executable, "-m", args.entrypoint, str(worker_id), str(num_workers),
               str(verdict["num_groups"]), str(fd), str(fd), str(os.getpid()), str(local_id)]
        try:
            procs.append(subprocess.Popen(cmd, pass_fds=(fd,), close_fds=True, env=env))
        finally:
            sock.close()  # the worker holds its own copy
    return procs


def _stop(procs):
    for p in procs:
        if p.poll() is None:
            try:
                p.wait(timeout=REAP_GRACE_S)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m tvm.exec.disco_remote_socket_session",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("host")
    parser.add_argument("port", type=int)
    parser.add_argument("num_workers", type=int)
    parser.add_argument("--token", default=None, help="the session's token (else $%s)"
                        % handshake.TOKEN_ENV)
    parser.add_argument("--connect-timeout", type=float, default=60.0)
    parser.add_argument("--entrypoint", default="tvm.exec.disco_worker")
    args = parser.parse_args(argv)
    if args.num_workers < 1 or not 0 < args.port < 65536:
        parser.error("num_workers must be >= 1 and port in 1..65535")
    try:
        token = handshake.token_from(args.token)
    except ValueError as err:
        parser.error(str(err))
    if token is None:
        parser.error("the session's token is needed: --token or $%s (the controller prints it)"
                     % handshake.TOKEN_ENV)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))  # run the finally below
    procs = []
    try:
        control = _connect(args.host, args.port, time.monotonic() + args.connect_timeout)
        control.settimeout(min(args.connect_timeout, 30.0))
        verdict = handshake.answer_challenge(control, token, "node", str(args.num_workers),
                                             {"num_workers": args.num_workers})
        control.settimeout(None)
        procs = _start_workers(args, token, verdict, control.getsockname()[0])
        # Until the controller closes this connection (data is never sent on it after the
        # handshake) or every worker has exited.
        while any(p.poll() is None for p in procs):
            ready, _, _ = select.select([control], [], [], 0.5)
            if ready:
                break
        control.close()
    except (ConnectionError, OSError) as err:
        sys.stderr.write("disco_remote_socket_session: %s\n" % err)
        return 1
    finally:
        _stop(procs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
