"""SocketSession: workers on several machines (nodes), driven by one controller.

Node 0 is this process's machine: worker 0 is a thread here and workers 1..per_node-1 are
local processes, exactly as in a ProcessSession. Every other node runs

    TVM_DISCO_TOKEN=<token> python -m tvm.exec.disco_remote_socket_session HOST PORT PER_NODE

which connects to the controller, gets its node id (in order of arrival) and then starts its
workers; each of them opens its own connection back here. From then on a remote worker is a
plain Disco link to the controller (the same frames as a local process's pipes), so the
session, its error channel and its bounded waits are ProcessSession's.

Where TVM's SocketSession trusts anyone who connects, here every connection proves the token
(handshake.py) before it is given a node id or a worker slot; the controller listens where
told (TVM's `host` argument: 127.0.0.1 keeps it on this machine) and waits a bounded time.
"""

import os
import socket
import sys
import time

import tvm_ffi

from . import handshake
from .errors import DiscoTimeoutError
from .process_pool import _Pool
from .session import Session, _f

HOST_ENV = "TVM_DISCO_HOST"
# One peer's handshake may take this long before it is dropped (the others keep waiting).
HANDSHAKE_TIMEOUT_S = 10.0


def _is_loopback(addr):
    return addr.startswith("127.") or addr in ("::1", "localhost")


class _SocketPool:
    """The pool behind a SocketSession: f(i) is worker i's link, f(0) releases them all."""

    def __init__(self, num_nodes, per_node, num_groups, host, port, token, entrypoint,
                 connect_timeout):
        self.num_nodes, self.per_node = num_nodes, per_node
        self.num_workers = num_nodes * per_node
        self.token = token
        self.connect_timeout = connect_timeout
        self.local = _Pool(self.num_workers, num_groups, entrypoint)
        self.num_groups = num_groups
        self.session_id = handshake.new_token()
        self.nodes = []  # control connections, index = node id - 1
        self.remote_fds = {}  # worker id -> accepted, authenticated fd
        self.listener = None
        self.accepted = False
        if num_nodes > 1:
            self.listener = socket.create_server((host, port), backlog=max(16, self.num_workers),
                                                 reuse_port=False)
            self.address = self.listener.getsockname()[:2]
            sys.stderr.write("SocketSession controller listening on %s:%d for %d node(s)\n"
                             % (self.address[0], self.address[1], num_nodes - 1))
            sys.stderr.flush()
        else:
            self.address = (host, port)

    def __call__(self, worker_id):
        worker_id = int(worker_id)
        if worker_id == 0:
            self.release()
            return None
        if not self.accepted and self.num_nodes > 1:
            # Before the local workers start: they learn from the nodes' connections which
            # address of this machine the other nodes reach (TVM_DISCO_HOST, for gloo).
            self._accept_all()
        if worker_id < self.per_node:
            return self.local.start(worker_id)
        fd = self.remote_fds.pop(worker_id)
        return tvm_ffi.Shape([fd, fd])

    # The accept loop: nodes and their workers may arrive in any order; each is bounded.
    def _accept_all(self):
        self.accepted = True
        deadline = time.monotonic() + self.connect_timeout
        wanted = self.num_workers - self.per_node
        while len(self.nodes) < self.num_nodes - 1 or len(self.remote_fds) < wanted:
            left = deadline - time.monotonic()
            if left <= 0:
                raise DiscoTimeoutError(
                    "SocketSession: %d of %d remote node(s) and %d of %d remote worker(s) "
                    "connected within %g s; start each node with TVM_DISCO_TOKEN=<token> python -m "
                    "tvm.exec.disco_remote_socket_session %s %d %d"
                    % (len(self.nodes), self.num_nodes - 1, len(self.remote_fds), wanted,
                       self.connect_timeout, self.address[0], self.address[1], self.per_node))
            self.listener.settimeout(min(left, 1.0))
            try:
                conn, peer = self.listener.accept()
            except socket.timeout:
                continue
            conn.settimeout(min(HANDSHAKE_TIMEOUT_S, max(left, 0.1)))
            try:
                self._admit(conn)
            except (OSError, handshake.HandshakeError) as err:
                sys.stderr.write("SocketSession: refused %s:%d: %s\n" % (peer[0], peer[1], err))
                conn.close()

    def _refuse(self, conn, why):
        try:
            handshake.send(conn, {"ok": False, "error": why})
        finally:
            raise handshake.HandshakeError(why)

    def _admit(self, conn):
        nonce = handshake.new_token()
        handshake.send(conn, {"tvm_disco": handshake.PROTOCOL, "nonce": nonce})
        msg = handshake.recv(conn)
        role = msg.get("role")
        if role == "node":
            claim = str(msg.get("num_workers"))
            if not handshake.check_mac(self.token, nonce, role, claim, msg.get("mac")):
                self._refuse(conn, "wrong token")
            if msg.get("num_workers") != self.per_node:
                self._refuse(conn, "the session has %d workers per node, the node offers %r"
                             % (self.per_node, msg.get("num_workers")))
            if len(self.nodes) == self.num_nodes - 1:
                self._refuse(conn, "all %d nodes are already connected" % self.num_nodes)
            node_id = len(self.nodes) + 1
            handshake.send(conn, {"ok": True, "node_id": node_id, "num_nodes": self.num_nodes,
                                  "num_workers_per_node": self.per_node,
                                  "num_groups": self.num_groups, "session": self.session_id})
            conn.settimeout(None)
            self.nodes.append(conn)
            self._learn_host(conn)
        elif role == "worker":
            worker_id = msg.get("worker_id")
            claim = "%s|%s" % (worker_id, msg.get("session"))
            if not handshake.check_mac(self.token, nonce, role, claim, msg.get("mac")):
                self._refuse(conn, "wrong token")
            if msg.get("session") != self.session_id:
                self._refuse(conn, "the worker belongs to another session")
            if (not isinstance(worker_id, int) or not self.per_node <= worker_id < self.num_workers
                    or worker_id >= (len(self.nodes) + 1) * self.per_node
                    or worker_id in self.remote_fds):
                self._refuse(conn, "worker id %r is not expected" % (worker_id,))
            handshake.send(conn, {"ok": True})
            conn.settimeout(None)
            self.remote_fds[worker_id] = conn.detach()  # the C++ session owns it from now on
        else:
            self._refuse(conn, "unknown role %r" % (role,))

    def _learn_host(self, conn):
        # The address of this machine that the node reached: where this node's workers (the
        # thread and the local processes) listen for gloo's peers, unless the user chose.
        here = conn.getsockname()[0]
        if not _is_loopback(here) and not os.environ.get(HOST_ENV):
            os.environ[HOST_ENV] = here

    def release(self):
        # Closing a node's control connection tells it to stop its workers and exit.
        nodes, self.nodes = self.nodes, []
        for conn in nodes:
            conn.close()
        for fd in self.remote_fds.values():
            os.close(fd)
        self.remote_fds = {}
        if self.listener is not None:
            self.listener.close()
            self.listener = None
        self.local.release()


class SocketSession(Session):
    """`num_nodes` machines with `num_workers_per_node` workers each (TVM's signature).

    `host`/`port`: where the controller listens (TVM's meaning; 127.0.0.1 stays on this
    machine). Keyword-only additions: `token` (else $TVM_DISCO_TOKEN, else a new random one,
    printed to stderr so the nodes can be started with it), `connect_timeout` (seconds for
    all nodes and their workers to connect), `entrypoint` (the local workers' module).
    """

    def __init__(self, num_nodes, num_workers_per_node, num_groups, host, port, *, token=None,
                 connect_timeout=60.0, entrypoint="tvm.exec.disco_worker"):
        # pylint: disable=super-init-not-called
        num_nodes, per_node = int(num_nodes), int(num_workers_per_node)
        if num_nodes < 1 or per_node < 1:
            raise ValueError("SocketSession: num_nodes and num_workers_per_node must be >= 1, "
                             "got %d and %d" % (num_nodes, per_node))
        if not 0 <= int(port) <= 65535:
            raise ValueError("SocketSession: port must be in 0..65535, got %r" % (port,))
        if not connect_timeout > 0:
            raise ValueError("SocketSession: connect_timeout must be positive")
        token = handshake.token_from(token)
        if token is None:
            token = handshake.new_token()
            if num_nodes > 1:
                sys.stderr.write("SocketSession token: %s (start each node with %s=<token>)\n"
                                 % (token, handshake.TOKEN_ENV))
        self.token = token
        pool = _SocketPool(num_nodes, per_node, int(num_groups), str(host), int(port), token,
                           str(entrypoint), float(connect_timeout))
        self.address = pool.address
        try:
            self.__init_handle_by_constructor__(_f("runtime.disco.SessionProcessFromPool"),
                                                num_nodes * per_node, int(num_groups), pool)
        except BaseException:
            pool.release()
            raise
