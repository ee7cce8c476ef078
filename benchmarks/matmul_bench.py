"""fp32 matmul (1024^3) and relu(a + b) (4M floats): our compiler vs numpy, 1 and 2 threads.

    python3 benchmarks/matmul_bench.py [--n 1024] [--tile 4x32]

The default schedule: B packed into 16-column panels, a 4 x 16 register tile, the reduction
split by 4 and unrolled (see matmul_schedule). Each thread count runs in a subprocess with TVM_NUM_THREADS, OPENBLAS_NUM_THREADS and
OMP_NUM_THREADS set, so the thread pools size themselves from the start. Prints GFLOP/s
(matmul) and GB/s (elementwise, 3 arrays moved) for ours and numpy, and the apache-tvm
comparison when it is installable.
"""

import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np


def matmul_schedule(n, m, k, ti=4, tj=32, tk=None, pack=True):
    """C_local register tile ti x tj: loops io, jo, r, ii (unrolled), ji (vectorized), io
    parallel; decompose_reduction keeps the zeroing out of the r loop. With `pack`, B is first
    copied to Bp[j // tj, r, j % tj] so that the r loop reads B contiguously."""
    from tvm import te, tir

    A = te.placeholder((n, k), "float32", "A")
    B = te.placeholder((k, m), "float32", "B")
    r = te.reduce_axis((0, k), "r")
    if pack:
        assert m % tj == 0
        Bp = te.compute((m // tj, k, tj), lambda jo, rr, ji: B[rr, jo * tj + ji], name="Bp")
        C = te.compute((n, m), lambda i, j: te.sum(A[i, r] * Bp[j // tj, r, j % tj], axis=r),
                       name="C")
    else:
        C = te.compute((n, m), lambda i, j: te.sum(A[i, r] * B[r, j], axis=r), name="C")
    sch = tir.Schedule(te.create_prim_func([A, B, C]))
    if pack:
        po, _, pi = sch.get_loops(sch.get_block("Bp"))
        sch.parallel(po)
        sch.vectorize(pi)
    blk = sch.get_block("C")
    acc = sch.cache_write(blk, 0, "local")
    i, j, rr = sch.get_loops(blk)
    io, ii = sch.split(i, factors=[None, ti])
    jo, ji = sch.split(j, factors=[None, tj])
    sch.reorder(io, jo, ii, ji)
    sch.reverse_compute_at(acc, jo)
    init = sch.decompose_reduction(blk, ii)
    sch.reorder(rr, ii, ji)
    if tk:
        ro, ri = sch.split(rr, factors=[None, tk])
        sch.unroll(ri)
    sch.parallel(io)
    sch.unroll(ii)
    sch.vectorize(ji)
    _, _, ii0, ji0 = sch.get_loops(init)
    sch.unroll(ii0)
    sch.vectorize(ji0)
    return sch.mod


def relu_add(n):
    from tvm import te, tir

    a = te.placeholder((n,), "float32", "a")
    b = te.placeholder((n,), "float32", "b")
    c = te.compute((n,), lambda i: tir.max(a[i] + b[i], 0.0), name="c")
    sch = tir.Schedule(te.create_prim_func([a, b, c]))
    (i,) = sch.get_loops(sch.get_block("c"))
    io, ii = sch.split(i, factors=[None, 64])
    sch.parallel(io)
    sch.vectorize(ii)
    return sch.mod


def _time(fn, repeat=10, min_time=0.3):
    fn()
    best = float("inf")
    t_end = time.perf_counter() + min_time
    for r in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
        if r >= 2 and time.perf_counter() > t_end:
            break
    return best


def worker(args):
    from tvm.driver import compile as tvm_compile

    n = args.n
    ti, tj = (int(x) for x in args.tile.split("x"))
    out = {}
    # Elementwise first: after a numpy matmul, OpenBLAS's worker threads keep spinning for
    # milliseconds and starve our pool on 2 cores (docs/status.md, traps).
    e = 4 * 1024 * 1024
    elib = tvm_compile(relu_add(e), target="llvm")
    x = np.random.randn(e).astype("float32")
    y = np.random.randn(e).astype("float32")
    z = np.empty(e, "float32")
    elib["main"](x, y, z)
    np.testing.assert_allclose(z, np.maximum(x + y, 0))
    nbytes = 3 * 4 * e
    out["ours_ew"] = nbytes / _time(lambda: elib["main"](x, y, z), 20) / 1e9

    def np_ew():
        np.add(x, y, out=z)
        np.maximum(z, 0, out=z)

    out["numpy_ew"] = nbytes / _time(np_ew, 20) / 1e9
    lib = tvm_compile(matmul_schedule(n, n, n, ti, tj, args.tk, not args.no_pack), target="llvm")
    a = np.random.rand(n, n).astype("float32")
    b = np.random.rand(n, n).astype("float32")
    c = np.zeros((n, n), "float32")
    flop = 2.0 * n ** 3
    out["ours_mm"] = flop / _time(lambda: lib["main"](a, b, c)) / 1e9  # before any numpy BLAS
    np.testing.assert_allclose(c, a @ b, rtol=1e-3, atol=1e-2)
    out["numpy_mm"] = flop / _time(lambda: np.matmul(a, b, out=c)) / 1e9
    out["vec_fma"] = "<8 x float>" in lib.optimized_ir or "<16 x float>" in lib.optimized_ir
    print(json.dumps(out))


# The same schedule written for apache-tvm 0.27 (s_tir.Schedule, JSON targets), run by that
# package's interpreter (a throwaway venv: python3 -m venv /tmp/tvmref &&
# /tmp/tvmref/bin/pip install apache-tvm; or APACHE_TVM_PYTHON=...).
_REF_SCRIPT = r"""
import json, sys, time
import numpy as np
import tvm
from tvm import te
from tvm.s_tir import Schedule
n, ti, tj, tk, cpu = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
A = te.placeholder((n, n), "float32", "A"); B = te.placeholder((n, n), "float32", "B")
r = te.reduce_axis((0, n), "r")
Bp = te.compute((n // tj, n, tj), lambda jo, rr, ji: B[rr, jo * tj + ji], name="Bp")
C = te.compute((n, n), lambda i, j: te.sum(A[i, r] * Bp[j // tj, r, j % tj], axis=r), name="C")
sch = Schedule(te.create_prim_func([A, B, C]))
po, _, pi = sch.get_loops(sch.get_sblock("Bp")); sch.parallel(po); sch.vectorize(pi)
blk = sch.get_sblock("C")
acc = sch.cache_write(blk, 0, "local")
i, j, rr = sch.get_loops(blk)
io, ii = sch.split(i, factors=[None, ti]); jo, ji = sch.split(j, factors=[None, tj])
ro, ri = sch.split(rr, factors=[None, tk])
sch.reorder(io, jo, ro, ri, ii, ji)
sch.reverse_compute_at(acc, jo)
sch.parallel(io); sch.unroll(ri); sch.unroll(ii); sch.vectorize(ji)
sch.decompose_reduction(blk, ro)
lib = tvm.compile(sch.mod, target=tvm.target.Target({"kind": "llvm", "mcpu": cpu}))
dev = tvm.cpu()
a = np.random.rand(n, n).astype("float32"); b = np.random.rand(n, n).astype("float32")
ta, tb = tvm.runtime.tensor(a, dev), tvm.runtime.tensor(b, dev)
tc = tvm.runtime.tensor(np.zeros((n, n), "float32"), dev)
f = lib["main"]; f(ta, tb, tc)
np.testing.assert_allclose(tc.numpy(), a @ b, rtol=1e-3, atol=1e-2)
best = float("inf")
for _ in range(10):
    t = time.perf_counter(); f(ta, tb, tc); best = min(best, time.perf_counter() - t)
m = 4 * 1024 * 1024
X = te.placeholder((m,), "float32", "X"); Y = te.placeholder((m,), "float32", "Y")
tirx = getattr(tvm, "tirx", None) or tvm.tir  # apache-tvm 0.27 renamed tir to tirx
Z = te.compute((m,), lambda i: tirx.max(X[i] + Y[i], tirx.const(0, "float32")), name="Z")
es = Schedule(te.create_prim_func([X, Y, Z]))
(i,) = es.get_loops(es.get_sblock("Z"))
io, ii, iv = es.split(i, factors=[None, 1024, 16]); es.parallel(io); es.vectorize(iv)
elib = tvm.compile(es.mod, target=tvm.target.Target({"kind": "llvm", "mcpu": cpu}))
x = np.random.rand(m).astype("float32") - 0.5; y = np.random.rand(m).astype("float32") - 0.5
tx, ty = tvm.runtime.tensor(x, dev), tvm.runtime.tensor(y, dev)
tz = tvm.runtime.tensor(np.zeros(m, "float32"), dev)
g = elib["main"]; g(tx, ty, tz)
np.testing.assert_allclose(tz.numpy(), np.maximum(x + y, 0), rtol=1e-6)
ebest = float("inf")
for _ in range(20):
    t = time.perf_counter(); g(tx, ty, tz); ebest = min(ebest, time.perf_counter() - t)
print(json.dumps({"ref_mm": 2.0 * n ** 3 / best / 1e9, "ref_ew": 3 * m * 4 / ebest / 1e9}))
"""


def apache_tvm(args, threads):
    """{"ref_mm": GFLOP/s, "ref_ew": GB/s} of apache-tvm on the same schedules, or a string
    saying why there is none."""
    if args.no_pack:
        return "apache-tvm: only the packed schedule is ported"
    py = os.environ.get("APACHE_TVM_PYTHON", "/tmp/tvmref/bin/python")
    if not os.path.exists(py) and "APACHE_TVM_PYTHON" not in os.environ:
        # A throwaway venv with the peer (its `tvm` would clash with ours on one path).
        venv = os.path.dirname(os.path.dirname(py))
        subprocess.run([sys.executable, "-m", "venv", venv], check=False, capture_output=True)
        subprocess.run([py, "-m", "pip", "install", "-q", "apache-tvm==0.27.0.post1", "numpy"],
                       check=False, capture_output=True)
    if not os.path.exists(py) or subprocess.run([py, "-c", "import tvm"],
                                                capture_output=True).returncode != 0:
        return "apache-tvm: not installable here"
    import llvmlite.binding as llvm

    ti, tj = args.tile.split("x")
    env = dict(os.environ, TVM_NUM_THREADS=str(threads))
    env.pop("PYTHONPATH", None)
    p = subprocess.run([py, "-c", _REF_SCRIPT, str(args.n), ti, tj, str(args.tk or 1),
                        llvm.get_host_cpu_name()], env=env, capture_output=True, text=True)
    if p.returncode != 0:
        return "apache-tvm: failed (%s)" % (p.stderr.strip().splitlines() or ["?"])[-1][:200]
    return json.loads(p.stdout.strip().splitlines()[-1])


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--n", type=int, default=1024)
    p.add_argument("--tile", default="4x16")
    p.add_argument("--tk", type=int, default=4)
    p.add_argument("--no-pack", action="store_true")
    p.add_argument("--threads", default="1,2")
    p.add_argument("--worker", action="store_true")
    args = p.parse_args()
    if args.worker:
        worker(args)
        return
    print("matmul %d^3 fp32 (tile %s), relu(a + b) on 4M floats" % (args.n, args.tile))
    for t in (int(x) for x in args.threads.split(",")):
        env = dict(os.environ, TVM_NUM_THREADS=str(t), OPENBLAS_NUM_THREADS=str(t),
                   OMP_NUM_THREADS=str(t), MKL_NUM_THREADS=str(t))
        cmd = [sys.executable, os.path.abspath(__file__), "--worker", "--n", str(args.n),
               "--tile", args.tile] + (["--tk", str(args.tk)] if args.tk else []) + (
            ["--no-pack"] if args.no_pack else [])
        res = json.loads(subprocess.run(cmd, env=env, check=True, capture_output=True,
                                        text=True).stdout.strip().splitlines()[-1])
        ref = apache_tvm(args, t)
        ref_mm, ref_ew = (("apache-tvm 0.27 same schedule %6.1f GFLOP/s" % ref["ref_mm"],
                           "apache-tvm 0.27 %5.1f GB/s" % ref["ref_ew"])
                          if isinstance(ref, dict) else (ref, ref))
        print("threads=%d  matmul: ours %6.1f GFLOP/s  numpy %6.1f GFLOP/s  (%.2fx)  %s\n"
              "           relu(a+b): ours %5.1f GB/s  numpy %5.1f GB/s  (%.2fx)  %s"
              % (t, res["ours_mm"], res["numpy_mm"], res["ours_mm"] / res["numpy_mm"], ref_mm,
                 res["ours_ew"], res["numpy_ew"], res["ours_ew"] / res["numpy_ew"], ref_ew))


if __name__ == "__main__":
    main()
