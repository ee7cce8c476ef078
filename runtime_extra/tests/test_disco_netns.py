"""SocketSession across two machines: two network namespaces joined by a veth pair (each
namespace is a machine with its own address, loopback and ports). The controller runs in one
with its 2 workers, a remote node with 2 workers in the other; they allreduce over gloo
across the link (each side's workers advertise the address the link gives them). A node with
the wrong token is refused. Needs root (CAP_NET_ADMIN) and iproute2, as CI has: without them
this test fails and says so rather than skip."""

import os
import shutil
import subprocess
import sys

import pytest

from disco_socket_helper import controller_script, node_env, start_node

SUFFIX = str(os.getpid() % 100000)
NS_A, NS_B = "tvmA" + SUFFIX, "tvmB" + SUFFIX
VETH_A, VETH_B = "tva" + SUFFIX, "tvb" + SUFFIX
ADDR_A, ADDR_B = "10.231.7.1", "10.231.7.2"
PORT = 29517


def _ip(*args):
    proc = subprocess.run(["ip"] + list(args), capture_output=True, text=True, timeout=30)
    if proc.returncode != 0:
        raise RuntimeError("ip %s: %s" % (" ".join(args), proc.stderr.strip()))


@pytest.fixture
def two_machines():
    if shutil.which("ip") is None or os.geteuid() != 0:
        pytest.fail("this test needs root and iproute2 (ip netns) to make two network namespaces")
    made = []
    try:
        for ns in (NS_A, NS_B):
            _ip("netns", "add", ns)
            made.append(ns)
        _ip("link", "add", VETH_A, "type", "veth", "peer", "name", VETH_B)
        for ns, veth, addr in ((NS_A, VETH_A, ADDR_A), (NS_B, VETH_B, ADDR_B)):
            _ip("link", "set", veth, "netns", ns)
            _ip("-n", ns, "addr", "add", addr + "/24", "dev", veth)
            _ip("-n", ns, "link", "set", veth, "up")
            _ip("-n", ns, "link", "set", "lo", "up")
        yield
    finally:
        for ns in made:  # deleting a namespace deletes its end of the veth pair, and the pair
            subprocess.run(["ip", "netns", "del", ns], capture_output=True, timeout=30)


def test_two_nodes_in_two_namespaces_allreduce_and_a_wrong_token_is_refused(two_machines):
    in_a, in_b = ["ip", "netns", "exec", NS_A], ["ip", "netns", "exec", NS_B]
    ctrl = subprocess.Popen(in_a + [sys.executable, "-c", controller_script(ADDR_A, PORT)],
                            env=node_env(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    bad = good = None
    try:
        assert ctrl.stdout.readline().startswith("PID")
        bad = start_node(ADDR_A, PORT, 2, token="wrong", prefix=in_b)
        assert bad.wait(timeout=60) == 1
        err = bad.stderr.read()
        assert "refused this node: wrong token" in err, err
        good = start_node(ADDR_A, PORT, 2, prefix=in_b)
        line = ctrl.stdout.readline()
        assert line.startswith("RESULT"), line + ctrl.stderr.read()
        assert float(line.split()[1]) < 1e-5, line
        ctrl.stdin.close()  # the controller shuts the session down
        assert ctrl.wait(timeout=60) == 0, ctrl.stderr.read()
        assert good.wait(timeout=60) == 0, good.stderr.read()
    finally:
        for p in (ctrl, bad, good):
            if p is not None and p.poll() is None:
                p.kill()
                p.wait()
