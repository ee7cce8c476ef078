"""Matmul with a constant right operand packed for the register tile: B (K, N) stored as
(N / cols, K, cols), so the tile over `cols` output columns reads its weights as one
contiguous stream along k instead of a strided walk (a row of B is N floats apart). The
packing happens once, at legalization (numpy), for weights known at compile time."""

import numpy as np

from .. import te, tir


def pack_weight(b, cols):
    """(K, N) -> (N / cols, K, cols); N must be a multiple of `cols`."""
    k, n = b.shape
    return np.ascontiguousarray(b.reshape(k, n // cols, cols).transpose(1, 0, 2))


def matmul_packed(a, bp, out_dtype=None):
    """a (..., M, K) @ B where bp = pack_weight(B, cols): (..., M, N)."""
    groups, k, cols = bp.shape
    kk = te.reduce_axis((0, k), "k")
    dtype = out_dtype or str(a.dtype)
    lead = list(a.shape[:-1])

    def f(*i):
        x, y = a[tuple(list(i[:-1]) + [kk])], bp[i[-1] // cols, kk, i[-1] % cols]
        if str(x.dtype) != dtype:
            x, y = tir.cast(x, dtype), tir.cast(y, dtype)
        return te.sum(x * y, axis=kk)
    return te.compute(lead + [groups * cols], f, name="matmul")
