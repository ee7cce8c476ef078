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


def pack_stage(b, cols):
    """The packing as a stage of the kernel, for a right operand known only at run time:
    (K, N) -> (N / cols, K, cols); N must be a multiple of `cols`."""
    k, n = b.shape
    groups = n // cols
    return te.compute((groups, k, cols), lambda g, kk, c: b[kk, g * cols + c], name="matmul_pack")


def matmul_packed(a, bp, out_dtype=None, pad_rows_to=None):
    """a (..., M, K) @ B where bp = pack_weight(B, cols): (..., M, N).

    `pad_rows_to` (for a 2-d `a` whose M is symbolic: a dynamic batch): the product runs over
    M rounded up to a multiple of it (rows past M re-read row M - 1) and a copy stage takes
    the first M rows, so the register tile over rows divides its extent and its loops carry
    no predicate (a predicated tile is not vectorized); the write-back stage is the only
    one bounded by M."""
    groups, k, cols = bp.shape
    kk = te.reduce_axis((0, k), "k")
    dtype = out_dtype or str(a.dtype)
    lead = list(a.shape[:-1])
    if pad_rows_to and len(a.shape) == 2:
        m, r = a.shape[0], pad_rows_to
        m_pad = (m + (r - 1)) // r * r

        def fp(i, j):
            x, y = a[tir.min(i, m - 1), kk], bp[j // cols, kk, j % cols]
            if str(x.dtype) != dtype:
                x, y = tir.cast(x, dtype), tir.cast(y, dtype)
            return te.sum(x * y, axis=kk)
        padded = te.compute([m_pad, groups * cols], fp, name="matmul_rows")
        return te.compute([m, groups * cols], lambda i, j: padded[i, j], name="matmul")

    def f(*i):
        x, y = a[tuple(list(i[:-1]) + [kk])], bp[i[-1] // cols, kk, i[-1] % cols]
        if str(x.dtype) != dtype:
            x, y = tir.cast(x, dtype), tir.cast(y, dtype)
        return te.sum(x * y, axis=kk)
    return te.compute(lead + [groups * cols], f, name="matmul")
