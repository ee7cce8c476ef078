"""RPC from Python: a real server process (tvm_rpc), remote functions, module upload,
remote tensors, the token policy, and hypothesis-generated corrupt frames."""

import os
import re
import socket
import struct
import subprocess
import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tvm
from tvm import rpc


def _start_server(tmp_path, *extra):
    port_file = tmp_path / ("port%d" % len(list(tmp_path.iterdir())))
    proc = subprocess.Popen([os.environ["TVM_RPC_BINARY"], "--port", "0", "--port-file",
                             str(port_file), *extra], stderr=subprocess.PIPE)
    for _ in range(200):
        if port_file.exists() and port_file.read_text().strip():
            return proc, int(port_file.read_text())
        if proc.poll() is not None:
            raise RuntimeError(proc.stderr.read().decode())
        time.sleep(0.05)
    proc.kill()
    raise RuntimeError("server did not start")


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    # Loopback without a token, said explicitly (the default makes one: see below).
    proc, port = _start_server(tmp_path_factory.mktemp("rpc"), "--no-token")
    yield port
    proc.kill()
    proc.wait()


def test_remote_globals_modules_and_tensors(server):
    with rpc.connect("127.0.0.1", server) as sess:
        empty = sess.get_function("runtime.TensorEmpty")
        assert isinstance(empty, rpc.RemoteFunction)
        assert sess.get_function("no.such.function") is None
        name = sess.upload(os.environ["MLP_KERNELS"], "kernels.so")
        mod = sess.load_module(name)
        relu = mod["relu"]
        x = sess.tensor(np.array([[-1.0, 2.0], [3.0, -4.0]], np.float32))
        y = sess.empty((2, 2), "float32")
        relu(x, y)
        np.testing.assert_array_equal(y.numpy(), [[0, 2], [3, 0]])
        assert y.shape == (2, 2)
        with pytest.raises(AttributeError):
            mod["missing_kernel"]
        with pytest.raises(ValueError, match="relu"):  # the kernel's own check, typed
            relu(x, sess.empty((3, 3), "float32"))
        with pytest.raises(ValueError):
            sess.load_module("../etc/passwd")


def test_upload_names_are_confined(server):
    with rpc.connect("127.0.0.1", server) as sess:
        for bad in ["../x.so", "a/b.so", "..", ""]:
            with pytest.raises(ValueError):
                sess.upload(b"data", bad)


def test_token_is_required_and_checked(tmp_path):
    proc, port = _start_server(tmp_path, "--token", "s3cret")
    try:
        with pytest.raises(rpc.RPCError):
            rpc.connect("127.0.0.1", port, key="wrong")
        with rpc.connect("127.0.0.1", port, key="s3cret") as sess:
            assert sess.get_function("runtime.TensorEmpty") is not None
    finally:
        proc.kill()
        proc.wait()
    # Binding beyond loopback without a token: the server refuses to start.
    bad = subprocess.run([os.environ["TVM_RPC_BINARY"], "--host", "0.0.0.0", "--port", "0",
                          "--no-token"], capture_output=True, text=True, timeout=30)
    assert bad.returncode != 0 and "token" in bad.stderr
    both = subprocess.run([os.environ["TVM_RPC_BINARY"], "--token", "x", "--no-token"],
                          capture_output=True, text=True, timeout=30)
    assert both.returncode == 2 and "conflict" in both.stderr


def _printed_token(proc):
    line = proc.stderr.readline().decode()
    m = re.search(r"token ([0-9a-f]{32}) ", line)
    assert m, line
    return m.group(1)


def test_by_default_a_random_token_is_made_printed_and_required(tmp_path):
    tokens = []
    for _ in range(2):
        env = {k: v for k, v in os.environ.items() if k != "TVM_RPC_TOKEN"}
        port_file = tmp_path / ("p%d" % len(tokens))
        proc = subprocess.Popen([os.environ["TVM_RPC_BINARY"], "--port", "0", "--port-file",
                                 str(port_file)], stderr=subprocess.PIPE, env=env)
        try:
            tokens.append(_printed_token(proc))
            for _ in range(200):
                if port_file.exists() and port_file.read_text().strip():
                    break
                time.sleep(0.05)
            port = int(port_file.read_text())
            for key in ("", tokens[-1][:-1], tokens[-1] + "0"):
                with pytest.raises(rpc.RPCError):
                    rpc.connect("127.0.0.1", port, key=key)
            with rpc.connect("127.0.0.1", port, key=tokens[-1]) as sess:
                assert sess.get_function("runtime.TensorEmpty") is not None
        finally:
            proc.kill()
            proc.wait()
    assert tokens[0] != tokens[1]


@settings(max_examples=200, deadline=None)
@given(st.one_of(
    st.binary(max_size=64),                                          # raw garbage
    st.builds(lambda p: struct.pack("<II", 0x524D5654, len(p)) + p,  # framed garbage
              st.binary(min_size=1, max_size=64)),
    st.builds(lambda n: struct.pack("<II", 0x524D5654, n), st.integers(0, 2**32 - 1))))
def test_corrupt_frames_never_crash_the_server(server, junk):
    s = socket.create_connection(("127.0.0.1", server), timeout=10)
    try:
        hello = struct.pack("<BI", 1, 1) + struct.pack("<I", 0)
        s.sendall(struct.pack("<II", 0x524D5654, len(hello)) + hello)
        header = s.recv(8)
        assert len(header) == 8
        s.recv(struct.unpack("<II", header)[1])
        try:
            s.sendall(junk)
            s.shutdown(socket.SHUT_WR)
            while s.recv(4096):  # an error response or a close; never a hang
                pass
        except OSError:
            pass  # the server already closed this connection: also a fine answer
    finally:
        s.close()
    # The server still serves new sessions.
    with rpc.connect("127.0.0.1", server) as sess:
        assert sess.get_function("runtime.TensorEmpty") is not None


def test_python_entry_point_serves(tmp_path):
    import sys

    port_file = tmp_path / "port"
    env = {k: v for k, v in os.environ.items() if k != "TVM_RPC_TOKEN"}
    proc = subprocess.Popen([sys.executable, "-m", "tvm.rpc.server", "--port", "0",
                             "--port-file", str(port_file)], stderr=subprocess.PIPE, env=env)
    try:
        token = _printed_token(proc)
        for _ in range(200):
            if port_file.exists() and port_file.read_text().strip():
                break
            assert proc.poll() is None, proc.stderr.read().decode()
            time.sleep(0.05)
        with pytest.raises(rpc.RPCError):
            rpc.connect("127.0.0.1", int(port_file.read_text()))
        with rpc.connect("127.0.0.1", int(port_file.read_text()), key=token) as sess:
            t = sess.tensor(np.arange(5, dtype=np.int64))
            np.testing.assert_array_equal(t.numpy(), np.arange(5))
    finally:
        proc.kill()
        proc.wait()
    refused = subprocess.run([sys.executable, "-m", "tvm.rpc.server", "--host", "0.0.0.0",
                              "--port", "0", "--no-token"], capture_output=True, text=True,
                             timeout=60)
    assert refused.returncode == 1 and "token" in refused.stderr
