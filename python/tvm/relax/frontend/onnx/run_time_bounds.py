"""Slice and Pad whose bounds are tensors computed at run time (e.g. from Shape and the data).

The output extents are computed by kernels into an int64 tensor, read into a Shape by
relax.tensor_to_shape and bound to new symbolic variables by a match_cast (the VM stores them
in its shape heap); the data is then gathered with `take` along each axis with indices
start + arange(n) * step, and Pad masks the positions outside the input. Symbolic extents of
the input are read from the VM's shape heap (shape_to_tensor)."""

import numpy as np

from ... import expr as _expr
from ... import op as R


def _c(v):
    return _expr.const(np.asarray(v, "int64"))


def _i64(ctx, v):
    """A relax int64 1-d tensor from an ONNX value (relax expression)."""
    if ctx.dtype_of(v) != "int64":
        v = R.astype(v, "int64")
    return R.reshape(v, [-1])


def _at(v, i):
    """Element i of a 1-d tensor, as a 1-element tensor (broadcasts against [n])."""
    return R.take(v, _c([i]), 0)


def bind_lengths(ctx, counts, k, hint):
    """k symbolic int64 variables holding the values of int64 tensor `counts` ([k]) at run
    time."""
    from ....tir import Var

    names = ["%s_n%d" % (hint, i) for i in range(k)]
    vs = [Var(n, "int64") for n in names]
    shape = ctx.bb.emit(R.tensor_to_shape(counts))
    ctx.bb.match_cast(shape, _expr.ShapeStructInfo(vs))
    return vs


def _dims(ctx, x, axes):
    """The extents of `x` along `axes` as an int64 tensor (symbolic ones read at run time)."""
    shape = ctx.shape_of(x)
    dims = [shape[a] for a in axes]
    static = ctx.static_shape(x)
    if static is not None:
        return _c([static[a] for a in axes])
    return ctx.bb.emit(R.shape_to_tensor(_expr.ShapeExpr(dims)))


def _rank(ctx, x, what):
    shape = ctx.shape_of(x)
    if shape is None:
        raise NotImplementedError("%s computed at run time of an input of unknown rank" % what)
    return len(shape)


def slice_at_run_time(ctx, x, starts, ends, axes, steps):
    """ONNX Slice: negative bounds count from the end, then starts are clamped to [0, dim]
    ([0, dim - 1] for negative steps) and ends to [0, dim] ([-1, dim - 1])."""
    nd = _rank(ctx, x, "Slice bounds")
    starts, ends = _i64(ctx, starts), _i64(ctx, ends)
    k = ctx.static_shape(starts)[0]
    axes = list(range(k)) if axes is None else [int(a) % nd for a in axes]
    dim = _dims(ctx, x, axes)
    step = _c([1] * k) if steps is None else (_c(steps) if isinstance(steps, np.ndarray) else _i64(ctx, steps))
    zero = _c(0)
    pos = R.greater(step, zero)
    hi = R.where(pos, dim, R.subtract(dim, _c(1)))

    def clamp(v, lo):
        v = R.where(R.less(v, zero), R.add(v, dim), v)
        return R.minimum(R.maximum(v, lo), hi)
    s = ctx.bb.emit(clamp(starts, _c([0] * k)))
    e = clamp(ends, R.where(pos, _c([0] * k), _c([-1] * k)))
    # ceil((e - s) / step) for either sign of step, never negative
    adj = R.where(pos, R.subtract(step, _c(1)), R.add(step, _c(1)))
    count = R.maximum(R.floor_divide(R.add(R.subtract(e, s), adj), step), zero)
    ns = bind_lengths(ctx, ctx.bb.emit(count), k, "slice")
    step = ctx.bb.emit(step)
    out = x
    for i, a in enumerate(axes):
        idx = R.add(_at(s, i), R.multiply(R.arange(0, ns[i], 1, dtype="int64"), _at(step, i)))
        out = ctx.bb.emit(R.take(out, ctx.bb.emit(idx), a))
    return out


def pad_at_run_time(ctx, x, pads, value, mode, axes):
    """ONNX Pad with a pads tensor known at run time; negative pads crop. Each axis gathers
    source positions: clamped (edge, and constant before masking), mirrored without
    repeating the border (reflect, numpy's rule, any number of times) or modulo the extent
    (wrap)."""
    if mode not in ("constant", "edge", "reflect", "wrap"):
        raise NotImplementedError("Pad mode %r with pads computed at run time" % mode)
    nd = _rank(ctx, x, "Pad pads")
    axes = list(range(nd)) if axes is None else [int(a) % nd for a in axes]
    na = len(axes)
    dims = _dims(ctx, x, axes)
    pads = ctx.bb.emit(_i64(ctx, pads))
    before = ctx.bb.emit(R.take(pads, _c(list(range(na))), 0))
    after = R.take(pads, _c(list(range(na, 2 * na))), 0)
    counts = R.add(R.add(dims, before), after)
    ns = bind_lengths(ctx, ctx.bb.emit(counts), na, "pad")
    out = x
    for i, a in enumerate(axes):
        idx = ctx.bb.emit(R.subtract(R.arange(0, ns[i], 1, dtype="int64"), _at(before, i)))
        size = _at(dims, i)
        last = R.subtract(size, _c(1))
        if mode == "reflect":
            # period 2 * (size - 1); an extent of 1 reflects onto itself
            m = R.floor_mod(idx, R.maximum(R.multiply(last, _c(2)), _c(1)))
            inside = R.where(R.less_equal(m, last), m, R.subtract(R.multiply(last, _c(2)), m))
        elif mode == "wrap":
            inside = R.floor_mod(idx, R.maximum(size, _c(1)))
        else:
            inside = R.minimum(R.maximum(idx, _c(0)), last)
        out = ctx.bb.emit(R.take(out, inside, a))
        if mode == "constant":
            ok = R.logical_and(R.greater_equal(idx, _c(0)), R.less(idx, size))
            ok = R.reshape(ok, [-1 if j == a else 1 for j in range(nd)])
            out = ctx.bb.emit(R.where(ok, out, value))
    return out
