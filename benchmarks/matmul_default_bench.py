"""fp32 matmul through the default pipeline (no hand schedule) vs numpy (OpenBLAS), at 1 and
2 threads: the shapes of issue 21's acceptance 4 — 1024^3, 1x1024x1024 (a matrix-vector
product) and 128x768x3072 — each with the right operand as a run-time input (both operands
inputs, as numpy's a @ b) and as a constant (a model's weight, packed at compile time).

    python3 benchmarks/matmul_default_bench.py [--threads 1,2] [--repeat 20] [--processes 3]

At one thread ours with B as input, ours with B constant and numpy are timed round-robin (one
call of each per round, best of --repeat), so load that comes and goes touches all three
alike; with more threads numpy runs after ours (OpenBLAS's threads spin after each call and
would hold the cores ours needs).
Each thread count runs in a subprocess with TVM_NUM_THREADS / OPENBLAS_NUM_THREADS /
OMP_NUM_THREADS set. At 1 thread the figure is CPU time of the calling thread (time.thread_time),
so other load on the machine does not count against either side; at 2 threads it is wall time.
Each thread count runs in --processes fresh processes (where the heap puts the operands
moves numpy's own GEMV by 5-10%); a row prints the median process's figures and the range of
the ratio. Prints GFLOP/s and ours / numpy time (below 1: ours faster). Figures go to docs/benchmarks.md.
Unset OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE for this command where the machine sets them (they
slow a current numpy).
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import numpy as np

SHAPES = [(1024, 1024, 1024), (1, 1024, 1024), (128, 768, 3072)]


def _interleaved(fns, repeat, cpu_time):
    """Best time of each of `fns`, measured round-robin (one call of each per round), so a
    change of load during the run touches all of them alike. The order rotates every round:
    what ran just before a call decides what its caches hold (the 1x1024x1024 product after
    the other side's 4 MB operand or after its own), and a fixed order moved the GEMV's
    ratio by 5%."""
    clock = time.thread_time if cpu_time else time.perf_counter
    for fn in fns:
        fn()
    best = [float("inf")] * len(fns)
    n = len(fns)
    for r in range(repeat):
        for i in [(r + j) % n for j in range(n)]:
            t = clock()
            fns[i]()
            best[i] = min(best[i], clock() - t)
    return best


def _build(m, k, n, b, kind):
    import tvm
    from tvm import relax
    from tvm.relax import op as R

    x = relax.Var("x", relax.TensorStructInfo((m, k), "float32"))
    params = [x]
    if kind == "input":
        w = relax.Var("w", relax.TensorStructInfo((k, n), "float32"))
        params.append(w)
    else:
        w = relax.const(b)
    bb = relax.BlockBuilder()
    with bb.function("main", params):
        with bb.dataflow():
            out = bb.emit_output(R.matmul(x, w))
        bb.emit_func_output(out)
    t0 = time.perf_counter()
    ex = tvm.compile(bb.get(), target="llvm")
    return relax.VirtualMachine(ex, tvm.cpu())["main"], time.perf_counter() - t0


def worker(repeat):
    import tvm

    cpu_time = os.environ.get("TVM_NUM_THREADS") == "1"
    rows = []
    rng = np.random.default_rng(0)
    for m, k, n in SHAPES:
        a = rng.standard_normal((m, k)).astype("float32")
        b = rng.standard_normal((k, n)).astype("float32")
        want = a @ b
        calls, compiles = [], {}
        for kind in ("input", "constant"):
            f, compiles[kind] = _build(m, k, n, b, kind)
            args = [tvm.runtime.tensor(a)] + ([tvm.runtime.tensor(b)] if kind == "input" else [])
            np.testing.assert_allclose(f(*args).numpy(), want, rtol=1e-3, atol=1e-2)
            calls.append(lambda f=f, args=args: f(*args))
        if not cpu_time:
            time.sleep(0.5)  # OpenBLAS's threads spin for a while after a call (want above)
        if cpu_time:
            t_in, t_const, t_np = _interleaved(calls + [lambda: a @ b], repeat, cpu_time)
        else:
            # wall time with 2+ threads: OpenBLAS's threads spin for a while after each call
            # and would take the cores from ours, so ours runs first, then numpy
            t_in, t_const = _interleaved(calls, repeat, cpu_time)
            t_np = _interleaved([lambda: a @ b], repeat, cpu_time)[0]
        for kind, t_ours in (("input", t_in), ("constant", t_const)):
            rows.append(dict(shape="%dx%dx%d" % (m, k, n), kind=kind, ours=2 * m * k * n / t_ours / 1e9,
                             numpy=2 * m * k * n / t_np / 1e9, ratio=t_ours / t_np, compile=compiles[kind]))
    print(json.dumps(rows))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--threads", default="1,2")
    p.add_argument("--repeat", type=int, default=20)
    p.add_argument("--processes", type=int, default=3,
                   help="worker processes per thread count; each row prints their median")
    p.add_argument("--worker", action="store_true")
    args = p.parse_args()
    if args.worker:
        worker(args.repeat)
        return
    if args.processes < 1:
        p.error("--processes must be at least 1")
    try:
        load = os.getloadavg()[0]
    except OSError:
        load = float("nan")
    print("fp32 matmul, default pipeline vs numpy; GFLOP/s; ratio = ours / numpy time, the median "
          "of %d processes (range); load %.1f" % (args.processes, load))
    print("%-16s %-8s %7s | %8s %8s %7s %13s | %9s" % ("M x K x N", "B", "threads", "ours", "numpy", "ratio",
                                                     "range", "compile s"))
    for t in (int(x) for x in args.threads.split(",")):
        env = dict(os.environ, TVM_NUM_THREADS=str(t), OPENBLAS_NUM_THREADS=str(t), OMP_NUM_THREADS=str(t))
        runs = []
        for _ in range(args.processes):
            # Each process's heap puts the operands elsewhere, and numpy's own GEMV time moves by
            # 5-10% with that placement: one process is one draw of it.
            out = subprocess.run([sys.executable, os.path.abspath(__file__), "--worker", "--repeat",
                                  str(args.repeat)], env=env, check=True, capture_output=True, text=True).stdout
            runs.append(json.loads(out.strip().splitlines()[-1]))
        for rows in zip(*runs):
            r = sorted(rows, key=lambda row: row["ratio"])[len(rows) // 2]  # the median process
            ratios = [row["ratio"] for row in rows]
            print("%-16s %-8s %7d | %8.1f %8.1f %6.2fx %5.2f-%5.2fx | %9.2f" % (
                r["shape"], r["kind"], t, r["ours"], r["numpy"], r["ratio"], min(ratios), max(ratios),
                statistics.median(row["compile"] for row in rows)))


if __name__ == "__main__":
    main()
