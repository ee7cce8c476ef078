"""Run an exported kernel library in a runtime-only process (no compiler loaded) and check it.

    TVM_USE_RUNTIME_LIB=1 python3 run_exported.py LIB.so [M K N]
"""

import sys
import time

import numpy as np

import tvm


def main(path, m=256, k=256, n=256):
    assert "tvm_compiler" not in tvm.base._LOADED_LIBS, "expected a runtime-only process"
    lib = tvm.runtime.load_module(path)
    f = lib["dense_relu"]
    rng = np.random.default_rng(0)
    x = rng.standard_normal((m, k), dtype=np.float32)
    w = rng.standard_normal((k, n), dtype=np.float32)
    b = rng.standard_normal(n, dtype=np.float32)
    y = np.empty((m, n), np.float32)
    # Time ours before numpy's first matmul: OpenBLAS threads keep spinning after a call and,
    # on a 2-core machine, starve any other thread pool in the process for milliseconds.
    f(x, w, b, y)
    reps = 20
    t = time.perf_counter()
    for _ in range(reps):
        f(x, w, b, y)
    ours = (time.perf_counter() - t) / reps
    expected = np.maximum(x @ w + b, 0)
    err = float(np.max(np.abs(y - expected)))
    ok = np.allclose(y, expected, rtol=1e-4, atol=1e-3)
    t = time.perf_counter()
    for _ in range(reps):
        np.maximum(x @ w + b, 0)
    peer = (time.perf_counter() - t) / reps
    flops = 2.0 * m * n * k
    print("loaded %s with %s" % (path, ", ".join(tvm.base._LOADED_LIBS)))
    print("result check: max abs error %.2e -> %s" % (err, "OK" if ok else "MISMATCH"))
    print("dense_relu %dx%dx%d: %.3f ms (%.1f GFLOP/s); numpy in the same run: %.3f ms (%.1f GFLOP/s)"
          % (m, k, n, ours * 1e3, flops / ours / 1e9, peer * 1e3, flops / peer / 1e9))
    return 0 if ok else 1


if __name__ == "__main__":
    dims = [int(v) for v in sys.argv[2:5]] or [256, 256, 256]
    sys.exit(main(sys.argv[1], *dims))
