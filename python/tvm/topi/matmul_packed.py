"""Matmul with a constant right operand packed for the register tile: B (K, N) stored as
(N / cols, K, cols), so the tile over `cols` output columns reads its weights as one
contiguous stream along k instead of a strided walk (a row of B is N floats apart). The
packing happens once, at legalization (numpy), for weights known at compile time."""

import numpy as np

from .. import te, tir


# pack_weight copies this many rows of B at a time: a whole-matrix transpose copy reads one
# cache line per row per panel, each on another page (VGG-19's 25088 x 4096: 0.5-3.7 s);
# a block of rows is read once and written as one run per panel (0.2 s).
_PACK_ROWS = 128


def pack_weight(b, cols):
    """(K, N) -> (ceil(N / cols), K, cols), zero columns appended up to a whole panel (a
    classifier's 10 outputs: one 16-column panel; matmul_packed's n_out drops them).

    `b`: a numpy array (the result is one) or a CPU Tensor (a constant's data: read in place,
    not through a .numpy() copy, and packed straight into the Tensor returned, not into numpy
    and then copied: two fresh 411 MB buffers fewer for VGG-19's first FC weight)."""
    is_tensor = not isinstance(b, np.ndarray)
    if is_tensor:
        b = np.from_dlpack(b)
    k, n = b.shape
    whole, rest = n // cols, n % cols
    shape = (whole + (1 if rest else 0), k, cols)
    if is_tensor:
        from .. import runtime

        packed = runtime.empty(shape, str(b.dtype))
        out = np.from_dlpack(packed)
    else:
        out = np.empty(shape, b.dtype)
    for i in range(0, k, _PACK_ROWS):
        rows = b[i:i + _PACK_ROWS]
        out[:whole, i:i + _PACK_ROWS] = rows[:, :whole * cols].reshape(len(rows), whole, cols).transpose(1, 0, 2)
        if rest:
            out[whole, i:i + _PACK_ROWS, :rest] = rows[:, whole * cols:]
    if rest:
        out[whole, :, rest:] = 0
    return packed if is_tensor else out


def pack_stage(b, cols):
    """The packing as a stage of the kernel, for a right operand known only at run time:
    (K, N) -> (N / cols, K, cols); N must be a multiple of `cols`."""
    k, n = b.shape
    groups = n // cols
    # the panel width in the index type of B's shape: an int32 16 beside int64 indices would
    # be cast, and a cast divisor hides from the bounds compute_at needs (pack at use)
    width = tir.const(cols, str(k.dtype)) if hasattr(k, "dtype") else cols
    return te.compute((groups, k, width), lambda g, kk, c: b[kk, g * cols + c], name="matmul_pack")


def matmul_packed(a, bp, out_dtype=None, pad_rows_to=None, n_out=None):
    """a (..., M, K) @ B where bp = pack_weight(B, cols): (..., M, N); `n_out` (< the packed
    columns) when B's N was padded to whole panels: the product runs over the panels and a
    copy stage takes the first n_out columns (folded into the tile's write-back).

    `pad_rows_to`: the product runs over M rounded up to a multiple of it (rows past M re-read
    row M - 1) and a copy stage takes the first M rows, so the register tile over rows
    divides its extent and its loops carry no predicate (a predicated tile is not
    vectorized). For a symbolic M (a dynamic batch), and for a static M the best tile does
    not divide (1024 rows: a 6-row AVX2 tile instead of a 4-row one). DefaultSchedule folds
    the copy into the tile's write-back, guarded to the first M rows."""
    groups, k, cols = bp.shape
    cols = int(cols)  # a Python int takes the index type of what it meets (no cast)
    kk = te.reduce_axis((0, k), "k")
    dtype = out_dtype or str(a.dtype)
    lead = list(a.shape[:-2])

    def product(row, i, j):
        x, y = a[tuple(list(i) + [row, kk])], bp[j // cols, kk, j % cols]
        if str(x.dtype) != dtype:
            x, y = tir.cast(x, dtype), tir.cast(y, dtype)
        return te.sum(x * y, axis=kk)
    m = a.shape[-2]
    # in the index type of the packed shape (a Python int would be int32 beside int64 dims)
    n = groups * cols if n_out is None else tir.const(int(n_out), str(groups.dtype))
    if pad_rows_to or n_out is not None:
        m_pad = m
        if pad_rows_to:
            m_pad = (m + (pad_rows_to - 1)) // pad_rows_to * pad_rows_to
        padded = te.compute(lead + [m_pad, groups * cols],
                            lambda *i: product(tir.min(i[-2], m - 1) if pad_rows_to else i[-2], i[:-2], i[-1]),
                            name="matmul_rows")
        return te.compute(lead + [m, n], lambda *i: padded[i], name="matmul")
    return te.compute(lead + [m, n], lambda *i: product(i[-2], i[:-2], i[-1]), name="matmul")
