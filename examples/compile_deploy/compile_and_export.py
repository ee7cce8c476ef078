"""Compile a real kernel and export it: dense layer y = relu(x @ w + b), scheduled for the CPU.

    python3 compile_and_export.py OUT.so [M K N]

The exported .so carries the packed entry point `__tvm_ffi_dense_relu` and needs only
libtvm_ffi + libtvm_runtime to run (see run_exported.py).
"""

import sys
import time

from tvm import te, tir
from tvm.driver import compile as tvm_compile


def dense_relu(m, k, n):
    x = te.placeholder((m, k), "float32", "x")
    w = te.placeholder((k, n), "float32", "w")
    b = te.placeholder((n,), "float32", "b")
    r = te.reduce_axis((0, k), "r")
    mm = te.compute((m, n), lambda i, j: te.sum(x[i, r] * w[r, j], axis=r), name="mm")
    y = te.compute((m, n), lambda i, j: tir.max(mm[i, j] + b[j], 0.0), name="y")
    return te.create_prim_func([x, w, b, y])


def schedule(func):
    """Register tiles for the product (4 x 16 accumulator kept local), parallel rows,
    vectorised columns; the bias + relu epilogue fused into the same tile."""
    sch = tir.Schedule(func)
    mm = sch.get_block("mm")
    acc = sch.cache_write(mm, 0, "local")
    i, j, _ = sch.get_loops(mm)
    io, ii = sch.split(i, factors=[None, 4])
    jo, ji = sch.split(j, factors=[None, 16])
    sch.reorder(io, jo, ii, ji)
    sch.reverse_compute_at(acc, jo)
    sch.parallel(io)
    sch.unroll(ii)
    sch.vectorize(ji)
    yi, yj = sch.get_loops(sch.get_block("y"))
    yjo, yji = sch.split(yj, factors=[None, 16])
    sch.parallel(yi)
    sch.vectorize(yji)
    return sch.mod


def main(out, m=256, k=256, n=256):
    start = time.perf_counter()
    lib = tvm_compile(_named(schedule(dense_relu(m, k, n))), target="llvm")
    lib.export_library(out)
    print("compiled dense_relu (%dx%dx%d) and exported %s in %.2f s"
          % (m, k, n, out, time.perf_counter() - start))


def _named(mod):
    """The module's single function exported as `dense_relu`."""
    from tvm import ir

    funcs = dict(mod.functions.items())
    (func,) = funcs.values()
    return ir.IRModule({"dense_relu": func.with_attr("global_symbol", "dense_relu")})


if __name__ == "__main__":
    dims = [int(v) for v in sys.argv[2:5]] or [256, 256, 256]
    main(sys.argv[1], *dims)
