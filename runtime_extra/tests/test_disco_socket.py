"""SocketSession on one machine (loopback): a remote node's workers run functions, move
tensors, run a compiled .so and allreduce over gloo with the controller's; tokens are
checked; a lost node, a killed controller and a node that never comes end in bounded time
with nothing left behind. (Two machines: test_disco_netns.py.)"""

import os
import signal
import socket
import subprocess
import sys
import threading
import time

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import tvm
from tvm import relax, tir
from tvm.relax import op as R
from tvm.runtime import disco
from tvm.runtime.disco import handshake

from disco_socket_helper import (TOKEN, allreduce_check, controller_script, free_port,
                                 node_env, start_node)
from disco_testing import alive, children_of

HOST = "127.0.0.1"


def _session(num_nodes=2, per_node=2, num_groups=1, token=TOKEN, **kw):
    port = free_port()
    nodes = [start_node(HOST, port, per_node, token) for _ in range(num_nodes - 1)]
    try:
        sess = disco.SocketSession(num_nodes, per_node, num_groups, HOST, port, token=TOKEN, **kw)
    except BaseException:
        for n in nodes:
            n.kill()
            n.wait()
        raise
    sess.import_python_module("tvm.exec.disco_worker")
    return sess, nodes


def _finish(sess, nodes):
    sess.shutdown()
    for n in nodes:
        assert n.wait(timeout=30) == 0, n.stderr.read()


def _node_workers(node, count):
    """The node's worker processes, once it has started `count` (the session may form a
    moment before the node's last fork: its link is accepted first)."""
    deadline = time.monotonic() + 10
    while True:
        workers = children_of(node.pid)
        if len(workers) >= count or time.monotonic() > deadline:
            return workers
        time.sleep(0.02)


def test_workers_of_two_nodes_run_functions_and_move_tensors():
    sess, nodes = _session()
    assert sess.num_workers == 4
    ranks = sess.get_global_func("runtime.disco.worker_rank")()
    local = sess.get_global_func("runtime.disco.local_worker_id")()
    size = sess.get_global_func("runtime.disco.world_size")()
    sess._sync_all()
    assert [ranks.debug_get_from_remote(i) for i in range(4)] == [0, 1, 2, 3]
    assert [local.debug_get_from_remote(i) for i in range(4)] == [0, 1, 0, 1]
    assert [size.debug_get_from_remote(i) for i in range(4)] == [4] * 4
    add = sess.get_global_func("tests.disco.add_one")
    out = add(41)
    sess._sync_all()
    assert out.debug_get_from_remote(3) == 42
    host = np.arange(12, dtype="float32").reshape(3, 4)
    remote = sess.copy_to_worker_0(host)
    back = tvm.runtime.empty((3, 4), "float32")
    sess.copy_from_worker_0(back, remote)
    sess.sync_worker_0()
    np.testing.assert_array_equal(back.numpy(), host)
    x = sess.empty((2, 2), "float32")
    x.debug_copy_from(3, np.full((2, 2), 5, "float32"))
    np.testing.assert_array_equal(x.debug_get_from_remote(3).numpy(), np.full((2, 2), 5))
    _finish(sess, nodes)


def test_a_compiled_module_runs_on_the_remote_workers(tmp_path):
    w = np.random.default_rng(0).standard_normal((8, 4)).astype("float32")
    n = tir.Var("n", "int64")
    xv = relax.Var("x", relax.TensorStructInfo([n, 8], "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [xv]):
        with bb.dataflow():
            gv = bb.emit_output(R.nn.relu(bb.emit(R.matmul(xv, relax.const(w)))))
        bb.emit_func_output(gv)
    path = str(tmp_path / "mlp.so")
    tvm.compile(bb.get(), target="llvm").export_library(path)
    sess, nodes = _session()
    mod = sess.load_vm_module(path)
    x = np.random.default_rng(1).standard_normal((3, 8)).astype("float32")
    dx = sess.empty(x.shape, "float32")
    for i in range(4):
        dx.debug_copy_from(i, x * (i + 1))
    y = mod["main"](dx)
    for i in range(4):
        np.testing.assert_allclose(y.debug_get_from_remote(i).numpy(),
                                   np.maximum((i + 1) * x @ w, 0), rtol=1e-5, atol=1e-6)
    _finish(sess, nodes)


@pytest.mark.parametrize("num_groups,op", [(1, "sum"), (2, "max"), (1, "avg")])
def test_allreduce_over_gloo_spans_the_nodes(num_groups, op):
    sess, nodes = _session(num_groups=num_groups)
    sess.init_ccl("gloo")
    expected, got = allreduce_check(sess, op=op)
    for e, g in zip(expected, got):
        np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-6)
    _finish(sess, nodes)


def test_a_node_with_the_wrong_token_is_refused_and_the_right_one_admitted():
    port = free_port()
    # The session listens (in a thread: its constructor waits for the nodes) and the bad node
    # is refused before the good one starts: started together, a slow start of the bad node
    # (a loaded machine) let the good one complete the session first, and the bad one then
    # knocked on a closed port until its own timeout.
    opened = {}
    opener = threading.Thread(target=lambda: opened.setdefault(
        "sess", disco.SocketSession(2, 2, 1, HOST, port, token=TOKEN, connect_timeout=120)))
    opener.start()
    bad = start_node(HOST, port, 2, token="not-the-token")
    assert bad.wait(timeout=60) == 1
    err = bad.stderr.read()
    assert "refused this node: wrong token" in err, err
    good = start_node(HOST, port, 2)
    opener.join(timeout=120)
    sess = opened["sess"]
    ranks = sess.get_global_func("runtime.disco.worker_rank")()
    sess._sync_all()
    assert ranks.debug_get_from_remote(3) == 3
    _finish(sess, [good])


def test_a_node_needs_a_token_to_start():
    proc = subprocess.run([sys.executable, "-m", "tvm.exec.disco_remote_socket_session", HOST,
                           str(free_port()), "2"], env=node_env(None), capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 2 and "token is needed" in proc.stderr, proc.stderr


def test_no_node_ends_in_a_timeout_naming_the_command_to_run():
    port = free_port()
    start = time.monotonic()
    with pytest.raises(disco.DiscoTimeoutError, match="disco_remote_socket_session 127.0.0.1"):
        disco.SocketSession(2, 2, 1, HOST, port, token=TOKEN, connect_timeout=1.5)
    assert time.monotonic() - start < 10
    assert not [p for p in children_of(os.getpid()) if alive(p)]
    # The port is free again: the listener was closed.
    with socket.socket() as s:
        s.bind((HOST, port))


def test_a_killed_node_ends_the_next_wait_and_takes_its_workers_along():
    sess, nodes = _session()
    sess.set_timeout(20)
    node = nodes[0]
    workers = _node_workers(node, 2)
    assert len(workers) == 2
    node.send_signal(signal.SIGKILL)
    node.wait(timeout=10)
    start = time.monotonic()
    with pytest.raises(disco.DiscoWorkerLostError, match="worker [23]"):
        sess._sync_all()
    assert time.monotonic() - start < 10
    deadline = time.monotonic() + 10
    while any(alive(p) for p in workers) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not [p for p in workers if alive(p)], "a node's workers outlived it"
    sess.shutdown()


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM])
def test_a_killed_controller_stops_the_remote_node_and_its_workers(sig):
    port = free_port()
    env = node_env()
    ctrl = subprocess.Popen([sys.executable, "-c", controller_script(HOST, port)], env=env,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    node = start_node(HOST, port, 2)
    try:
        assert ctrl.stdout.readline().startswith("PID")
        line = ctrl.stdout.readline()
        assert line.startswith("RESULT") and float(line.split()[1]) < 1e-5, line
        workers = _node_workers(node, 2)
        assert len(workers) == 2
    finally:
        ctrl.send_signal(sig)
        ctrl.wait(timeout=30)
    assert node.wait(timeout=30) == 0
    deadline = time.monotonic() + 10
    while any(alive(p) for p in workers) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not [p for p in workers if alive(p)]


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(garbage=st.one_of(
    st.binary(max_size=64),
    st.builds(lambda obj: handshake_frame(obj), st.dictionaries(
        st.sampled_from(["role", "mac", "num_workers", "worker_id", "session"]),
        st.one_of(st.none(), st.integers(-3, 5), st.text(max_size=8),
                  st.sampled_from(["node", "worker"])), max_size=5))))
def test_garbage_knocking_at_the_controller_is_refused_and_the_session_forms(garbage):
    port = free_port()
    junk = socket.socket()
    started = {}

    def knock():
        # The junk connects first (the listener queues it ahead of the node), then the node.
        for _ in range(200):
            try:
                junk.connect((HOST, port))
                started["connected"] = True
                break
            except OSError:
                time.sleep(0.05)
        try:
            junk.sendall(garbage)
            junk.shutdown(socket.SHUT_WR)
        except OSError:
            pass  # already refused and closed by the controller
        started["node"] = start_node(HOST, port, 1)

    import threading
    t = threading.Thread(target=knock)
    t.start()
    try:
        sess = disco.SocketSession(2, 1, 1, HOST, port, token=TOKEN, connect_timeout=30)
    finally:
        t.join()
        junk.close()
    assert started.get("connected")
    ranks = sess.get_global_func("runtime.disco.worker_rank")()
    sess._sync_all()
    assert ranks.debug_get_from_remote(1) == 1
    _finish(sess, [started["node"]])


def handshake_frame(obj):
    import json
    import struct

    data = json.dumps(obj).encode()
    return struct.pack(">I", len(data)) + data


def test_bad_arguments_are_typed_errors():
    with pytest.raises(ValueError, match="num_nodes"):
        disco.SocketSession(0, 2, 1, HOST, 0)
    with pytest.raises(ValueError, match="port"):
        disco.SocketSession(2, 2, 1, HOST, 70000)
    with pytest.raises(ValueError, match="empty"):
        disco.SocketSession(2, 2, 1, HOST, 0, token="  ")
    with pytest.raises(ValueError, match="connect_timeout"):
        disco.SocketSession(2, 2, 1, HOST, 0, connect_timeout=0)


def test_handshake_macs_depend_on_token_nonce_and_claim():
    m = handshake.mac("a", "n1", "node", "2")
    assert handshake.check_mac("a", "n1", "node", "2", m)
    assert not handshake.check_mac("b", "n1", "node", "2", m)
    assert not handshake.check_mac("a", "n2", "node", "2", m)
    assert not handshake.check_mac("a", "n1", "node", "3", m)
    assert not handshake.check_mac("a", "n1", "node", "2", None)
    assert not handshake.check_mac("a", "n1", "node", "2", "\x80\ud800")
