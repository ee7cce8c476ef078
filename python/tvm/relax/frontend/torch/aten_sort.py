"""ATen converters that order or accumulate along an axis: topk, sort (and argsort),
argmax / argmin, max.dim / min.dim, cumsum.

- topk / sort / argsort: kernels/sorting.rank_sort (shared with ONNX TopK), a stable order:
  equal values keep their index order (torch's stable=True; torch leaves the order of ties
  open otherwise, and its topk's too). sorted=False returns the sorted order (a valid
  answer). k may be symbolic. NaN is not supported (torch orders it as the largest value).
- argmax / argmin (dim None: over the flattened tensor) and the indices of max.dim /
  min.dim: the first position of the extreme value, as torch's CPU kernels return.
- cumsum: out[..., i, ...] = the sum of x[..., :i + 1, ...] in the output dtype (torch's:
  int64 for integer and bool inputs unless `dtype` says otherwise), one TE reduction that
  adds the elements in index order.
"""

import numpy as np

from ... import expr as _expr
from ... import op as R
from ..kernels.sorting import rank_sort
from .aten_registry import register


def _axis(d, nd):
    d = int(d)
    if not -max(nd, 1) <= d < max(nd, 1):
        raise IndexError("dim %d out of range for a %d-d tensor" % (d, nd))
    return d % max(nd, 1)


def _sorted(ctx, x, dim, k, largest):
    nd = ctx.ndim(x)
    if nd == 0:
        x = ctx.emit(R.reshape(x, [1]))
    out = ctx.bb.emit_te(rank_sort, x, axis=_axis(dim, nd), k=k, largest=bool(largest),
                         primfunc_name_hint="sort")
    vals, idx = _expr.TupleGetItem(out, 0), _expr.TupleGetItem(out, 1)
    if nd == 0:
        vals, idx = R.reshape(vals, []), R.reshape(idx, [])
    return [ctx.emit(vals), ctx.emit(idx)]


@register("aten.topk.default")
def _topk(ctx):
    a = ctx.args
    x = a["self"]
    nd = ctx.ndim(x)
    dim = _axis(a["dim"], nd)
    k = a["k"]
    n = ctx.shape(x)[dim] if nd else 1
    if isinstance(k, int) and isinstance(n, int) and not 0 <= k <= n:
        raise ValueError("topk: k=%d for an axis of %d" % (k, n))
    return _sorted(ctx, x, dim, k, a["largest"])


def _full_sort(ctx, x, dim, descending):
    nd = ctx.ndim(x)
    n = ctx.shape(x)[_axis(dim, nd)] if nd else 1
    return _sorted(ctx, x, dim, n, descending)


@register("aten.sort.default", "aten.sort.stable")
def _sort(ctx):
    a = ctx.args
    return _full_sort(ctx, a["self"], a["dim"], bool(a["descending"]))


@register("aten.argsort.default", "aten.argsort.stable")
def _argsort(ctx):
    a = ctx.args
    return _full_sort(ctx, a["self"], a["dim"], bool(a["descending"]))[1]


def _first_extreme(ctx, x, axis, keepdim, is_max):
    """(values, indices) of the largest (smallest) element along `axis`, the first
    position among equal ones."""
    nd = ctx.ndim(x)
    n = ctx.shape(x)[axis]
    best = ctx.emit((R.max if is_max else R.min)(x, axis=[axis], keepdims=True))
    pos = ctx.emit(R.reshape(R.arange(0, n, 1, "int64"), [-1 if d == axis else 1 for d in range(nd)]))
    big = _expr.const(np.array(np.iinfo("int64").max, "int64"))
    idx = ctx.emit(R.min(R.where(R.equal(x, best), pos, big), axis=[axis], keepdims=True))
    if not keepdim:
        best, idx = ctx.emit(R.squeeze(best, [axis])), ctx.emit(R.squeeze(idx, [axis]))
    return best, idx


def _arg(ctx, is_max):
    a = ctx.args
    x = a["self"]
    nd = ctx.ndim(x)
    keep = bool(a.get("keepdim", False))
    if a.get("dim") is None or nd == 0:
        flat = ctx.emit(R.reshape(x, [-1]))
        _, idx = _first_extreme(ctx, flat, 0, False, is_max)
        return R.reshape(idx, [1] * nd) if keep else idx
    return _first_extreme(ctx, x, _axis(a["dim"], nd), keep, is_max)[1]


@register("aten.argmax.default")
def _argmax(ctx):
    return _arg(ctx, True)


@register("aten.argmin.default")
def _argmin(ctx):
    return _arg(ctx, False)


def _extreme_dim(ctx, is_max):
    a = ctx.args
    x = a["self"]
    nd = ctx.ndim(x)
    if nd == 0:
        return [x, _expr.const(np.array(0, "int64"))]
    return list(_first_extreme(ctx, x, _axis(a["dim"], nd), bool(a["keepdim"]), is_max))


@register("aten.max.dim")
def _max_dim(ctx):
    return _extreme_dim(ctx, True)


@register("aten.min.dim")
def _min_dim(ctx):
    return _extreme_dim(ctx, False)


def _cumsum_te(x, *, axis, dtype):
    from .... import te, tir

    n = x.shape[axis]
    nd = len(x.shape)

    def f(*i):
        m = te.reduce_axis((0, n), "m")
        v = x[tuple(m if d == axis else i[d] for d in range(nd))]
        v = v if str(x.dtype) == dtype else tir.Cast(dtype, v)
        return te.sum(tir.Select(m <= i[axis], v, tir.const(0, dtype)), axis=m)
    return te.compute(x.shape, f, name="cumsum")


@register("aten.cumsum.default")
def _cumsum(ctx):
    a = ctx.args
    x = a["self"]
    nd = ctx.ndim(x)
    out = ctx.out_dtype()
    if nd == 0:
        return x if ctx.dtype(x) == out else R.astype(x, out)
    if ctx.dtype(x) == "bool":
        x = ctx.emit(R.astype(x, out))
    return ctx.bb.emit_te(_cumsum_te, x, axis=_axis(a["dim"], nd), dtype=out, primfunc_name_hint="cumsum")
