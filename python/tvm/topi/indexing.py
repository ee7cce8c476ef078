"""Indexing and data movement: split, strided_slice (numpy slice semantics, negative indices and
strides), take (fast / clip / wrap / nan), gather_elements, gather_nd, broadcast_to, tile, pad
(constant / reflect / replicate / circular)."""

from .. import te, tir
from ..tir import expr as _e
from ._layout import all_of, clamp, i64, in_range
from ._util import const_int


def split(x, indices_or_sections, axis=0):
    nd = len(x.shape)
    axis = axis % nd
    dim = i64(x.shape[axis])
    if isinstance(indices_or_sections, int):
        n = indices_or_sections
        part = dim // n
        bounds = [(part * k, part) for k in range(n)]
    else:
        bounds, prev = [], _e.const(0, "int64")
        for v in list(indices_or_sections) + [None]:
            end = dim if v is None else tir.min(i64(int(v)), dim)
            bounds.append((prev, tir.max(end - prev, i64(0))))
            prev = prev if v is None else tir.max(prev, end)
    outs = []
    for k, (start, length) in enumerate(bounds):
        shape = list(x.shape)
        shape[axis] = _simplify(length)

        def f(*i, start=start):
            idx = list(i)
            idx[axis] = i64(i[axis]) + start
            return x[tuple(idx)]
        outs.append(te.compute(shape, f, name="split%d" % k))
    return outs


def _simplify(e):
    from ..arith import Analyzer
    return Analyzer().simplify(e) if isinstance(e, _e.PrimExpr) else e


def slice_begin(dim, begin, end, stride):
    """The first index of x[begin:end:stride] along a dimension of length `dim` (int64), as the
    operator's inference: negative constants count from the end, constants are clipped when
    the dimension is constant, symbolic values (or constants on a symbolic dimension) are
    taken as in bounds, values >= 2**31 - 1 mean "to the end"."""
    lo = 0 if stride > 0 else -1
    dim = i64(dim)
    if not isinstance(begin, int):
        return i64(begin)
    if begin < 0:
        return tir.max(dim + begin, i64(lo))
    if begin >= 2**31 - 1:
        return dim + lo
    return tir.min(i64(begin), dim + lo) if const_int(dim) is not None else i64(begin)


def strided_slice(x, axes, begin, end, strides, out_shape):
    nd = len(x.shape)
    axes = [a % nd for a in axes]
    starts = {a: _simplify(slice_begin(x.shape[a], b, e, s)) for a, b, e, s in zip(axes, begin, end, strides)}
    steps = dict(zip(axes, strides))

    def f(*i):
        idx = list(i)
        for a in axes:
            idx[a] = starts[a] + i64(i[a]) * steps[a]
        return x[tuple(idx)]
    return te.compute(list(out_shape), f, name="strided_slice")


def _norm_index(v, n, mode):
    v, n = i64(v), i64(n)
    if mode == "clip":
        return clamp(v, 0, n - 1)
    if mode == "wrap":
        return tir.floormod(v, n)
    return tir.if_then_else(v < 0, v + n, v)  # fast: numpy's negative indices


def take(x, indices, axis=None, mode="fast"):
    nd = len(x.shape)
    axis = 0 if axis is None else axis % nd
    ni = len(indices.shape)
    shape = list(x.shape[:axis]) + list(indices.shape) + list(x.shape[axis + 1:])
    n = x.shape[axis]

    def f(*i):
        raw = indices[tuple(i[axis:axis + ni])] if ni else indices[()]
        j = _norm_index(raw, n, mode)
        idx = list(i[:axis]) + [j if mode != "nan" else clamp(j, 0, i64(n) - 1)] + list(i[axis + ni:])
        v = x[tuple(idx)]
        if mode == "nan":
            return tir.if_then_else(in_range(raw, 0, n), v, _e.const(float("nan"), str(x.dtype)))
        return v
    return te.compute(shape, f, name="take")


def gather_elements(x, indices, axis=0):
    nd = len(x.shape)
    axis = axis % nd

    def f(*i):
        idx = list(i)
        idx[axis] = _norm_index(indices[i], x.shape[axis], "fast")
        return x[tuple(idx)]
    return te.compute(list(indices.shape), f, name="gather_elements")


def gather_nd(x, indices, batch_dims=0):
    m = const_int(indices.shape[-1])
    ni = len(indices.shape)
    shape = list(indices.shape[:-1]) + list(x.shape[batch_dims + m:])

    def f(*i):
        lead = list(i[:ni - 1])
        idx = list(i[:batch_dims])
        for k in range(m):
            idx.append(_norm_index(indices[tuple(lead + [_e.const(k, "int64")])], x.shape[batch_dims + k], "fast"))
        idx += list(i[ni - 1:])
        return x[tuple(idx)]
    return te.compute(shape, f, name="gather_nd")


def broadcast_to(x, shape):
    shape = list(shape)
    off = len(shape) - len(x.shape)

    def f(*i):
        idx = [_e.const(0, "int64") if const_int(d) == 1 else i[off + k] for k, d in enumerate(x.shape)]
        return x[tuple(idx)] if idx else x[()]
    return te.compute(shape, f, name="broadcast_to")


def tile(x, repeats):
    repeats = [int(r) for r in repeats]
    nd = max(len(x.shape), len(repeats))
    xs = [_e.const(1, "int64")] * (nd - len(x.shape)) + list(x.shape)
    rs = [1] * (nd - len(repeats)) + repeats
    shape = [i64(xs[k]) * rs[k] for k in range(nd)]
    off = nd - len(x.shape)

    def f(*i):
        idx = [tir.floormod(i64(i[off + k]), i64(x.shape[k])) for k in range(len(x.shape))]
        return x[tuple(idx)] if idx else x[()]
    return te.compute([_simplify(s) for s in shape], f, name="tile")


def pad(x, pad_width, pad_mode="constant", pad_value=0.0):
    """pad_width: flat (before_0, after_0, before_1, after_1, ...)."""
    nd = len(x.shape)
    before = [int(pad_width[2 * k]) for k in range(nd)]
    after = [int(pad_width[2 * k + 1]) for k in range(nd)]
    if pad_mode == "constant":
        from .nn_conv import pad_constant
        out = pad_constant(x, before, after, pad_value)
        return out if out is not x else te.compute(list(x.shape), lambda *i: x[i], name="pad")
    shape = [_simplify(i64(x.shape[k]) + before[k] + after[k]) for k in range(nd)]

    def src(k, i):
        n = i64(x.shape[k])
        j = i64(i) - before[k]
        if pad_mode in ("replicate", "edge"):
            return clamp(j, 0, n - 1)
        if pad_mode == "circular":
            return tir.floormod(j, n)
        # reflect (edge excluded): -j before, 2(n-1)-j after
        r = tir.if_then_else(j < 0, -j, j)
        return tir.if_then_else(r >= n, 2 * (n - 1) - r, r)
    return te.compute(shape, lambda *i: x[tuple(src(k, i[k]) for k in range(nd))], name="pad")


__all__ = ["split", "strided_slice", "take", "gather_elements", "gather_nd", "broadcast_to", "tile",
           "pad", "all_of"]
