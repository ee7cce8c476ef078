#!/usr/bin/env python3
"""A long fp32 sum (16M floats, 64 MB): our compiler with rfactor vs numpy, 1 and 2 threads.

    PYTHONPATH=python python3 benchmarks/reduction_bench.py [--n N] [--threads 1,2]

The schedule: the reduction axis split into (part, middle, lane); rfactor over the part
(partials per thread, parallel), then rfactor of that block over the lane with
factor_axis=1 (each thread's 16 lane partials contiguous, on cache lines of their own),
the lane loop vectorized. Each thread count runs in its own process (TVM_NUM_THREADS,
OPENBLAS_NUM_THREADS). Results are checked against a float64 sum. GB/s = bytes read / time.
"""

import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np


def schedule(n, parts, lanes=16):
    from tvm import te, tir

    A = te.placeholder((n,), "float32", "A")
    k = te.reduce_axis((0, n), "k")
    B = te.compute((1,), lambda i: te.sum(A[k], axis=k), name="B")
    sch = tir.Schedule(te.create_prim_func([A, B]))
    _, kk = sch.get_loops(sch.get_block("B"))
    ko, _ = sch.split(kk, factors=[None, lanes])
    kp, _ = sch.split(ko, factors=[parts, None])
    rf = sch.rfactor(kp, factor_axis=0)
    i, part, _, lane = sch.get_loops(rf)
    lane_rf = sch.rfactor(lane, factor_axis=1)
    i, part, middle, lane = sch.get_loops(lane_rf)
    sch.reorder(part, i, middle, lane)
    sch.decompose_reduction(lane_rf, i)
    sch.parallel(part)
    sch.vectorize(lane)
    return sch.mod


def _best(fn, repeat=15):
    fn()
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def worker(n, threads):
    import tvm
    from tvm.driver import compile as tvm_compile

    lib = tvm_compile(schedule(n, threads), target="llvm")
    x = np.random.rand(n).astype("float32")
    tx = tvm.runtime.tensor(x, tvm.cpu())
    out = tvm.runtime.tensor(np.zeros(1, "float32"), tvm.cpu())
    f = lib["main"]
    ours = _best(lambda: f(tx, out))  # before numpy (OpenBLAS threads, docs/status.md)
    exact = x.sum(dtype=np.float64)
    assert abs(out.numpy()[0] - exact) <= 1e-4 * abs(exact), (out.numpy()[0], exact)
    peer = _best(lambda: x.sum())
    print(json.dumps({"ours": 4 * n / ours / 1e9, "numpy": 4 * n / peer / 1e9}))


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=16 * 1024 * 1024)
    p.add_argument("--threads", default="1,2")
    p.add_argument("--worker", type=int, help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.worker:
        worker(args.n, args.worker)
        return
    print("fp32 sum of %d floats (%.0f MB)" % (args.n, 4 * args.n / 1e6))
    for t in (int(v) for v in args.threads.split(",")):
        env = dict(os.environ, TVM_NUM_THREADS=str(t), OPENBLAS_NUM_THREADS=str(t))
        out = subprocess.run([sys.executable, __file__, "--n", str(args.n), "--worker", str(t)],
                             env=env, check=True, capture_output=True, text=True).stdout
        r = json.loads(out.strip().splitlines()[-1])
        print("threads=%d  ours %5.1f GB/s  numpy %5.1f GB/s  (%.2fx)"
              % (t, r["ours"], r["numpy"], r["ours"] / r["numpy"]))


if __name__ == "__main__":
    main()
