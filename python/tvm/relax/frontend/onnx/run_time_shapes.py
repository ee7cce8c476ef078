"""Shape parameters given as run-time tensors (graph inputs, or values computed from data):
Reshape's shape, Expand's shape, ConstantOfShape's shape, Tile's repeats, Split's sizes,
Squeeze/Unsqueeze/Slice axes. As in TVM's Relax frontend, the output extents are computed
by kernels into an int64 tensor whose LENGTH is static, read into a Shape by
relax.tensor_to_shape and bound to new symbolic variables by match_cast
(run_time_bounds.bind_lengths); the data op then takes those variables as its shape."""

import numpy as np

from ... import expr as _expr
from ... import op as R
from .run_time_bounds import _at, _c, _dims, _i64, _rank, bind_lengths


def _vec(ctx, t, what):
    """t as an emitted int64 1-d tensor and its static length."""
    v = ctx.bb.emit(_i64(ctx, t))
    s = ctx.static_shape(v)
    if s is None:
        raise NotImplementedError("%s given at run time with a length unknown at import" % what)
    return v, s[0]


def _all_dims(ctx, x, what):
    nd = _rank(ctx, x, what)
    return (_dims(ctx, x, list(range(nd))) if nd else _c(np.zeros(0, "int64"))), nd


def _bind(ctx, v, k, hint):
    return bind_lengths(ctx, v, k, hint) if k else []


def reshape(ctx, x, shape, allowzero):
    """0 copies the input's extent (unless allowzero), -1 takes what is left."""
    s, k = _vec(ctx, shape, "Reshape's shape")
    dims, nd = _all_dims(ctx, x, "Reshape's shape")
    m = min(k, nd)
    if not allowzero and m:
        head = R.take(s, _c(list(range(m))), 0)
        head = R.where(R.equal(head, _c(0)), R.take(dims, _c(list(range(m))), 0), head)
        s = R.concat([head, R.take(s, _c(list(range(m, k))), 0)], 0) if k > m else head
        s = ctx.bb.emit(s)
    total = R.prod(dims, 0) if nd else _c(1)
    known = R.maximum(R.prod(R.where(R.equal(s, _c(-1)), _c(1), s), 0), _c(1))
    s = ctx.bb.emit(R.where(R.equal(s, _c(-1)), R.floor_divide(total, known), s))
    return R.reshape(x, _bind(ctx, s, k, "reshape"))


def _left_pad(ctx, v, n, r):
    """1-d int64 v of length n padded on the left with ones to length r."""
    return v if n == r else ctx.bb.emit(R.concat([_c([1] * (r - n)), v], 0))


def expand(ctx, x, shape):
    """Bidirectional broadcast: a 1 on either side takes the other's extent."""
    s, k = _vec(ctx, shape, "Expand's shape")
    dims, nd = _all_dims(ctx, x, "Expand's shape")
    r = max(k, nd)
    s, d = _left_pad(ctx, s, k, r), _left_pad(ctx, dims, nd, r)
    out = ctx.bb.emit(R.where(R.equal(s, _c(1)), d, s))
    return R.broadcast_to(x, _bind(ctx, out, r, "expand"))


def constant_of_shape(ctx, shape, value):
    s, k = _vec(ctx, shape, "ConstantOfShape's shape")
    return R.full(_bind(ctx, s, k, "shape"), _expr.const(value.reshape(())), str(value.dtype))


def tile(ctx, x, repeats):
    """Each axis gathers positions arange(d * r) mod d."""
    reps, k = _vec(ctx, repeats, "Tile's repeats")
    dims, nd = _all_dims(ctx, x, "Tile's repeats")
    if k != nd:
        raise ValueError("Tile: repeats has %d values for a rank-%d input" % (k, nd))
    ns = _bind(ctx, ctx.bb.emit(R.multiply(dims, reps)), k, "tile")
    out = x
    for a in range(nd):
        idx = R.floor_mod(R.arange(0, ns[a], 1, dtype="int64"), R.maximum(_at(dims, a), _c(1)))
        out = ctx.bb.emit(R.take(out, ctx.bb.emit(idx), a))
    return out


def split(ctx, x, sizes, axis, n_out):
    """Output i is x[offset_i : offset_i + size_i] along the axis."""
    sz, k = _vec(ctx, sizes, "Split's sizes")
    if k != n_out:
        raise ValueError("Split: %d sizes for %d outputs" % (k, n_out))
    ns = _bind(ctx, sz, k, "split")
    outs = []
    for i in range(k):
        off = R.sum(R.take(sz, _c(list(range(i))), 0), 0) if i else _c(0)
        idx = ctx.bb.emit(R.add(off, R.arange(0, ns[i], 1, dtype="int64")))
        outs.append(ctx.bb.emit(R.take(x, idx, axis)))
    return tuple(outs)


def _norm_axes(ctx, axes, r, what):
    a, k = _vec(ctx, axes, what)
    return ctx.bb.emit(R.where(R.less(a, _c(0)), R.add(a, _c(r)), a)), k


def _marks(ctx, axes, r):
    """int64 [r]: 1 where a position is named by axes ([k])."""
    eq = R.equal(R.reshape(R.arange(0, r, 1, dtype="int64"), [r, 1]), R.reshape(axes, [1, -1]))
    return ctx.bb.emit(R.minimum(R.sum(R.astype(eq, "int64"), 1), _c(1)))


def _inclusive_cumsum(ctx, v, n):
    tri = _c(np.tril(np.ones((n, n), "int64")))
    return ctx.bb.emit(R.sum(R.multiply(tri, R.reshape(v, [1, n])), 1))


def squeeze(ctx, x, axes):
    """The output keeps the extents at the positions axes do not name, in order."""
    dims, nd = _all_dims(ctx, x, "Squeeze's axes")
    a, k = _norm_axes(ctx, axes, nd, "Squeeze's axes")
    r = nd - k
    if r == 0:
        return R.reshape(x, [])
    kept = R.subtract(_c(1), _marks(ctx, a, nd))
    cum = _inclusive_cumsum(ctx, kept, nd)
    # the j-th kept position is the number of positions whose running count is <= j
    le = R.less_equal(R.reshape(cum, [1, nd]), R.reshape(R.arange(0, r, 1, dtype="int64"), [r, 1]))
    src = R.sum(R.astype(le, "int64"), 1)
    out = ctx.bb.emit(R.take(dims, src, 0))
    return R.reshape(x, _bind(ctx, out, r, "squeeze"))


def unsqueeze(ctx, x, axes):
    """Positions named by axes (in the output's rank) are 1, the others the input's extents."""
    dims, nd = _all_dims(ctx, x, "Unsqueeze's axes")
    k = _vec(ctx, axes, "Unsqueeze's axes")[1]
    r = nd + k
    a, _ = _norm_axes(ctx, axes, r, "Unsqueeze's axes")
    if nd == 0:
        return R.reshape(x, [1] * r)
    mark = _marks(ctx, a, r)
    src = R.maximum(R.subtract(_inclusive_cumsum(ctx, R.subtract(_c(1), mark), r), _c(1)), _c(0))
    out = ctx.bb.emit(R.where(R.equal(mark, _c(1)), _c(1), R.take(dims, src, 0)))
    return R.reshape(x, _bind(ctx, out, r, "unsqueeze"))


def slice_axes(ctx, x, starts, ends, axes, steps):
    """Slice with run-time axes: full-rank starts/ends/steps (axes not named keep their whole
    extent), then run_time_bounds.slice_at_run_time."""
    from .run_time_bounds import slice_at_run_time

    nd = _rank(ctx, x, "Slice axes")
    a, k = _norm_axes(ctx, axes, nd, "Slice axes")
    sel = ctx.bb.emit(R.astype(R.equal(R.reshape(R.arange(0, nd, 1, dtype="int64"), [nd, 1]),
                                       R.reshape(a, [1, k])), "int64"))
    has = ctx.bb.emit(R.greater(R.sum(sel, 1), _c(0)))

    def full(v, fill):
        v = _i64(ctx, v) if v is not None else _c([1] * k)
        picked = R.sum(R.multiply(sel, R.reshape(v, [1, k])), 1)
        return ctx.bb.emit(R.where(has, picked, _c(fill)))
    big = 2 ** 62
    return slice_at_run_time(ctx, x, full(starts, 0), full(ends, big), None, full(steps, 1))
