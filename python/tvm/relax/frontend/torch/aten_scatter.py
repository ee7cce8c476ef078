"""ATen converters that write into a copy of a tensor: index_put (x[indices] = values,
accumulate or not), scatter / scatter_add / scatter_reduce, masked_fill, copy; and boolean
masks in index.Tensor (x[mask]).

- index_put: the indices (None for a whole axis, int tensors, or bool masks, each mask
  standing for the nonzero() positions of the axes it covers) broadcast to one shape B; the
  indexed view has numpy's layout (B where the first indexed axis is when the indexed axes
  are adjacent, else in front); values broadcast to it. A serial TIR kernel copies x, then
  visits the view in row-major order and stores (accumulate=False: the last write to a
  position wins, as torch's CPU loop gives) or adds (accumulate=True, in that order) each
  value. Negative indices count from the end; an index out of range is skipped (torch
  raises).
- scatter (.src, .value, .reduce, .value_reduce), scatter_add, scatter_reduce.two (sum,
  prod, amax, amin with include_self=True): the scatter TE kernel ONNX ScatterElements
  uses too (kernels/scatter.py; gather form, the last update wins without a reduction).
- masked_fill (.Scalar, .Tensor): where(mask, value, x). copy: src broadcast to self's shape
  in self's dtype.
"""

import numpy as np

from ... import expr as _expr
from ... import op as R
from ..kernels import serial as sk
from ..kernels.scatter import scatter_elements
from .aten_registry import register
from .context import same_dim, same_shape


def _nest(dims, body, name):
    def rec(idx, d):
        if d == len(dims):
            return body(idx)
        return sk.loop("%s%d" % (name, d), dims[d], lambda v: rec(idx + [v], d + 1))
    return rec([], 0)


def _view_shape(xdims, used, bdims):
    """The indexed view's shape and where B starts in it (numpy's advanced indexing)."""
    rest = [a for a in range(len(xdims)) if a not in used]
    if used == list(range(used[0], used[-1] + 1)):
        return list(xdims[:used[0]]) + list(bdims) + list(xdims[used[-1] + 1:]), used[0], rest
    return list(bdims) + [xdims[a] for a in rest], 0, rest


def _index_put_func(nd, used, nb, dtype, accumulate):
    from .... import tir

    xd = [tir.Var("d%d" % i, "int64") for i in range(nd)]
    bd = [tir.Var("b%d" % i, "int64") for i in range(nb)]
    x = sk.buffer("x", nd, dtype, xd)
    out = sk.buffer("out", nd, dtype, xd)
    idx = [sk.buffer("index%d" % j, nb, "int64", bd) for j in range(len(used))]
    vshape, bpos, rest = _view_shape(xd, used, bd)
    vals = sk.buffer("values", len(vshape), dtype, vshape)

    def put(s):
        b, r = s[bpos:bpos + nb], s[:bpos] + s[bpos + nb:]
        p = [None] * nd
        ok = None
        for j, a in enumerate(used):
            v = tir.BufferLoad(idx[j], list(b))
            p[a] = tir.Select(v < sk.i64(0), v + xd[a], v)
            inside = tir.And(p[a] >= sk.i64(0), p[a] < xd[a])
            ok = inside if ok is None else tir.And(ok, inside)
        for a, c in zip(rest, r):
            p[a] = c
        val = tir.BufferLoad(vals, list(s))
        if accumulate:
            val = tir.BufferLoad(out, p) + val
        return sk.when(ok, sk.store(out, val, *p))
    body = sk.seq(_nest(xd, lambda i: sk.store(out, x[tuple(i)], *i), "c"), _nest(vshape, put, "s"))
    return sk.prim_func("index_put", [x] + idx + [vals, out], body)


def _broadcast_shape(shapes):
    from .aten_tensor_extra import _broadcast_shape as bs
    return bs(shapes)


def fit(ctx, v, shape, dtype):
    """v in `dtype`, broadcast to `shape` (a match_cast, checked at run time, where an extent
    is symbolic and differs from the target's by name only)."""
    if ctx.dtype(v) != dtype:
        v = ctx.emit(R.astype(v, dtype))
    vs = ctx.shape(v)
    if same_shape(vs, shape):
        return v
    if len(vs) > len(shape):
        raise ValueError("values of shape %s do not broadcast to %s" % (vs, shape))
    lead = len(shape) - len(vs)
    for i, d in enumerate(vs):
        t = shape[lead + i]
        if isinstance(d, int) and isinstance(t, int) and d not in (1, t):
            raise ValueError("values of shape %s do not broadcast to %s" % (vs, shape))
    if all((isinstance(d, int) and d == 1) or same_dim(d, shape[lead + i]) for i, d in enumerate(vs)):
        return ctx.emit(R.broadcast_to(v, shape))
    if len(vs) != len(shape):
        v = ctx.emit(R.reshape(v, [1] * lead + vs))
    return ctx.bb.match_cast(v, _expr.TensorStructInfo(shape, dtype))


def index_columns(ctx, x, indices, mask_extent=None):
    """{axis: int64 index tensor} from index.Tensor / index_put's list (bool masks turned into
    their nonzero() columns; mask_extent: torch's symbol for the mask's count, if known)."""
    from .aten_detection import nonzero_columns

    cols, axis = {}, 0
    for t in indices:
        if t is None:
            axis += 1
            continue
        if ctx.dtype(t) == "bool":
            k = ctx.ndim(t)
            nz, _ = nonzero_columns(ctx, t, mask_extent, "mask")
            for j in range(k):
                cols[axis + j] = ctx.emit(R.take(nz, _expr.const(np.array(j, "int64")), axis=0))
            axis += k
        else:
            cols[axis] = t if ctx.dtype(t) == "int64" else ctx.emit(R.astype(t, "int64"))
            axis += 1
    if axis > ctx.ndim(x):
        raise IndexError("%d indexed axes for a %d-d tensor" % (axis, ctx.ndim(x)))
    return cols


@register("aten.index_put.default", "aten._unsafe_index_put.default")
def _index_put(ctx):
    a = ctx.args
    x, values, acc = a["self"], a["values"], bool(a["accumulate"])
    dtype, nd = ctx.dtype(x), ctx.ndim(x)
    if nd == 0:
        raise NotImplementedError("index_put into a 0-d tensor")
    if acc and dtype == "bool":
        raise NotImplementedError("index_put with accumulate=True into a bool tensor")
    cols = index_columns(ctx, x, list(a["indices"]))
    used = sorted(cols)
    if not used:
        return fit(ctx, values, ctx.shape(x), dtype)
    bshape = _broadcast_shape([ctx.shape(cols[u]) for u in used])
    idx = [cols[u] if same_shape(ctx.shape(cols[u]), bshape) else ctx.emit(R.broadcast_to(cols[u], bshape))
           for u in used]
    vshape, _, _ = _view_shape(ctx.shape(x), used, bshape)
    values = fit(ctx, values, vshape, dtype)
    func = _index_put_func(nd, used, len(bshape), dtype, acc)
    return sk.call(ctx, func, "index_put", [x] + idx + [values], _expr.TensorStructInfo(ctx.shape(x), dtype))


_REDUCE = {"sum": "add", "add": "add", "prod": "mul", "multiply": "mul", "amax": "max", "amin": "min"}


def _scatter(ctx, x, dim, index, src, reduction):
    from .aten_sort import _axis

    nd = ctx.ndim(x)
    if ctx.ndim(index) != nd:
        raise ValueError("scatter: index of rank %d for a %d-d tensor" % (ctx.ndim(index), nd))
    dtype = ctx.dtype(x)
    if not isinstance(src, _expr.Expr):
        src = ctx.emit(R.full(ctx.shape(index), _expr.const(np.array(src, dtype)), dtype))
    elif ctx.dtype(src) != dtype:
        src = ctx.emit(R.astype(src, dtype))
    if ctx.dtype(index) != "int64":
        index = ctx.emit(R.astype(index, "int64"))
    return ctx.bb.emit_te(scatter_elements, x, index, src, axis=_axis(dim, nd), reduction=reduction,
                          primfunc_name_hint="scatter")


@register("aten.scatter.src", "aten.scatter.value")
def _scatter_plain(ctx):
    a = ctx.args
    return _scatter(ctx, a["self"], a["dim"], a["index"], a.get("src", a.get("value")), "none")


@register("aten.scatter.reduce", "aten.scatter.value_reduce")
def _scatter_with_reduce(ctx):
    a = ctx.args
    if a["reduce"] not in ("add", "multiply"):
        raise ValueError("scatter: reduce=%r (add or multiply)" % a["reduce"])
    return _scatter(ctx, a["self"], a["dim"], a["index"], a.get("src", a.get("value")), _REDUCE[a["reduce"]])


@register("aten.scatter_add.default")
def _scatter_add(ctx):
    a = ctx.args
    return _scatter(ctx, a["self"], a["dim"], a["index"], a["src"], "add")


@register("aten.scatter_reduce.two")
def _scatter_reduce(ctx):
    a = ctx.args
    if a["reduce"] not in ("sum", "prod", "amax", "amin"):
        raise NotImplementedError("scatter_reduce with reduce=%r (sum, prod, amax, amin)" % a["reduce"])
    if not a["include_self"]:
        raise NotImplementedError("scatter_reduce with include_self=False")
    return _scatter(ctx, a["self"], a["dim"], a["index"], a["src"], _REDUCE[a["reduce"]])


@register("aten.masked_fill.Scalar", "aten.masked_fill.Tensor")
def _masked_fill(ctx):
    a = ctx.args
    x, mask, value = a["self"], a["mask"], a["value"]
    dtype = ctx.dtype(x)
    if ctx.dtype(mask) != "bool":
        raise TypeError("masked_fill: mask of dtype %s (bool expected)" % ctx.dtype(mask))
    if isinstance(value, _expr.Expr):
        value = value if ctx.dtype(value) == dtype else R.astype(value, dtype)
    else:
        value = _expr.const(np.array(value).astype(dtype))
    return R.where(mask, value, x)


@register("aten.copy.default")
def _copy(ctx):
    a = ctx.args
    return fit(ctx, a["src"], ctx.shape(a["self"]), ctx.dtype(a["self"]))
