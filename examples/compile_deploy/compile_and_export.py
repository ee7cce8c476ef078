"""Compile a real kernel and export it: dense layer y = relu(x @ w + b), scheduled for the CPU.

    python3 compile_and_export.py OUT.so [M K N]

The exported .so carries the packed entry point `__tvm_ffi_dense_relu` and needs only
libtvm_ffi + libtvm_runtime to run (see run_exported.py).
"""

import sys
import time

from tvm import te, tir
from tvm.driver import compile as tvm_compile


TILE_I, TILE_J = 4, 16    # the register tile: 4 rows x 16 float32 columns


def dense_relu(m, k, n):
    x = te.placeholder((m, k), "float32", "x")
    w = te.placeholder((k, n), "float32", "w")
    b = te.placeholder((n,), "float32", "b")
    r = te.reduce_axis((0, k), "r")
    if n % TILE_J == 0:
        # w packed once per call into column panels wp[j // 16, r, j % 16]: the reduction
        # loop then reads w contiguously instead of striding by a whole row.
        wp = te.compute((n // TILE_J, k, TILE_J), lambda jo, rr, ji: w[rr, jo * TILE_J + ji],
                        name="wp")
        mm = te.compute((m, n), lambda i, j: te.sum(x[i, r] * wp[j // TILE_J, r, j % TILE_J],
                                                    axis=r), name="mm")
    else:
        mm = te.compute((m, n), lambda i, j: te.sum(x[i, r] * w[r, j], axis=r), name="mm")
    y = te.compute((m, n), lambda i, j: tir.max(mm[i, j] + b[j], 0.0), name="y")
    return te.create_prim_func([x, w, b, y])


def schedule(func, m, k, n):
    """Register tiles for the product (4 x 16 accumulator kept local, zeroed once by
    decompose_reduction, then the reduction loop outside the tile: io, jo, r, ii, ji), w
    packed into panels, parallel rows, vectorised columns; bias + relu in their own stage."""
    sch = tir.Schedule(func)
    divisible = m % TILE_I == 0 and n % TILE_J == 0
    if n % TILE_J == 0:
        po, _, pi = sch.get_loops(sch.get_block("wp"))
        sch.parallel(po)
        sch.vectorize(pi)
    mm = sch.get_block("mm")
    acc = sch.cache_write(mm, 0, "local")
    i, j, r = sch.get_loops(mm)
    io, ii = sch.split(i, factors=[None, TILE_I])
    jo, ji = sch.split(j, factors=[None, TILE_J])
    sch.reorder(io, jo, ii, ji)
    sch.reverse_compute_at(acc, jo)
    if divisible:   # (a tail guard would sit between the tile loops and r)
        init = sch.decompose_reduction(mm, ii)
        sch.reorder(r, ii, ji)
        ro, ri = sch.split(r, factors=[None, 4]) if k % 4 == 0 else (r, None)
        if ri is not None:
            sch.unroll(ri)
        _, _, ii0, ji0 = sch.get_loops(init)
        sch.unroll(ii0)
        sch.vectorize(ji0)
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
    lib = tvm_compile(_named(schedule(dense_relu(m, k, n), m, k, n)), target="llvm")
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
