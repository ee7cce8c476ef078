#!/usr/bin/env python3
"""RPC on loopback: round-trip latency of a remote call and tensor copy bandwidth, each next to
a plain-socket peer measured in the same run (a Python echo server for the round trip, a raw
sendall/recv of the same bytes for bandwidth).

    bazel build -c opt //runtime:tvm_rpc //python/tvm && python3 benchmarks/rpc_bench.py
    (or: bazel run -c opt //benchmarks:rpc_bench)
"""

import os
import socket
import subprocess
import sys
import tempfile
import threading
import time

import numpy as np


def _find_rpc_binary():
    here = os.path.dirname(os.path.abspath(__file__))
    for cand in [os.environ.get("TVM_RPC_BINARY", ""),
                 os.path.join(here, "..", "runtime", "tvm_rpc"),
                 os.path.join(here, "..", "bazel-bin", "runtime", "tvm_rpc")]:
        if cand and os.path.isfile(cand):
            return os.path.abspath(cand)
    sys.exit("tvm_rpc not found: bazel build //runtime:tvm_rpc, or set TVM_RPC_BINARY")


def _start_server(binary):
    port_file = tempfile.mktemp()
    proc = subprocess.Popen([binary, "--port", "0", "--port-file", port_file, "--no-token"],
                            stderr=subprocess.DEVNULL)
    for _ in range(200):
        if os.path.exists(port_file) and open(port_file).read().strip():
            return proc, int(open(port_file).read())
        time.sleep(0.05)
    proc.kill()
    sys.exit("tvm_rpc did not start")


def _echo_server():
    """A peer: echoes each 8-byte-header frame back (same framing cost as an RPC reply)."""
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(1)

    def serve():
        conn, _ = srv.accept()
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        while True:
            header = conn.recv(8, socket.MSG_WAITALL)
            if len(header) < 8:
                return
            n = int.from_bytes(header[4:], "little")
            body = conn.recv(n, socket.MSG_WAITALL) if n else b""
            conn.sendall(header + body)

    threading.Thread(target=serve, daemon=True).start()
    return srv.getsockname()[1]


def _best(fn, rounds=5):
    return min(fn() for _ in range(rounds))


def main():
    from tvm import rpc

    proc, port = _start_server(_find_rpc_binary())
    try:
        sess = rpc.connect("127.0.0.1", port)
        f = sess.get_function("runtime.GetNumThreads")
        n = 2000

        def rpc_rtt():
            t = time.perf_counter()
            for _ in range(n):
                f()
            return (time.perf_counter() - t) / n * 1e6

        echo_port = _echo_server()
        s = socket.create_connection(("127.0.0.1", echo_port))
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        frame = b"\x54\x56\x4d\x52" + (13).to_bytes(4, "little") + b"x" * 13

        def echo_rtt():
            t = time.perf_counter()
            for _ in range(n):
                s.sendall(frame)
                s.recv(len(frame), socket.MSG_WAITALL)
            return (time.perf_counter() - t) / n * 1e6

        ours, peer = _best(rpc_rtt), _best(echo_rtt)
        print("RPC on loopback (best of 5 rounds)")
        print("%-44s %10s" % ("case", "value"))
        print("%-44s %8.1f us" % ("remote call round trip (tvm.rpc)", ours))
        print("%-44s %8.1f us" % ("plain socket echo round trip (peer)", peer))
        print("%-44s %8.2fx" % ("ratio ours/peer", ours / peer))

        size = 64 << 20
        arr = np.ones(size // 4, np.float32)
        t_remote = sess.empty(arr.shape, "float32")

        def rpc_copy():
            t = time.perf_counter()
            t_remote.copyfrom(arr)
            back = t_remote.numpy()
            dt = time.perf_counter() - t
            assert back.shape == arr.shape
            return 2 * size / dt / 1e9

        data = arr.tobytes()
        header = b"\x54\x56\x4d\x52" + len(data).to_bytes(4, "little")

        def raw_copy():
            t = time.perf_counter()
            s.sendall(header + data)
            got = s.recv(8 + len(data), socket.MSG_WAITALL)
            dt = time.perf_counter() - t
            assert len(got) == 8 + len(data)
            return 2 * size / dt / 1e9

        ours_bw, peer_bw = max(rpc_copy() for _ in range(3)), max(raw_copy() for _ in range(3))
        print("%-44s %8.2f GB/s" % ("tensor write+read, 64 MiB each way (tvm.rpc)", ours_bw))
        print("%-44s %8.2f GB/s" % ("raw socket echo of the same bytes (peer)", peer_bw))
        print("%-44s %8.2fx" % ("ratio ours/peer", ours_bw / peer_bw))
        sess.close()
    finally:
        proc.kill()


if __name__ == "__main__":
    main()
