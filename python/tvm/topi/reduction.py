"""Reductions over axes (keepdims as numpy)."""

from .. import te, tir
from ..tir import expr as _e
from ._util import normalize_axes


def _reduce(name, combiner, post=None):
    def op(x, axis=None, keepdims=False):
        nd = len(x.shape)
        axes = normalize_axes(axis, nd)
        rvars = {a: te.reduce_axis((0, x.shape[a]), "k%d" % a) for a in axes}
        shape = []
        for k in range(nd):
            if k not in axes:
                shape.append(x.shape[k])
            elif keepdims:
                shape.append(_e.const(1, "int64"))

        def f(*i):
            idx, it = [], iter(i)
            for k in range(nd):
                if k in axes:
                    idx.append(rvars[k])
                    if keepdims:
                        next(it)
                else:
                    idx.append(next(it))
            return combiner(x[tuple(idx)], axis=[rvars[a] for a in axes])
        if not axes:
            return te.compute(shape, lambda *i: x[i], name=name)
        if any(_const_zero(x.shape[a]) for a in axes):
            # nothing to reduce: a block's init runs inside its (here empty) reduction loops,
            # so the result is the combiner's identity written directly
            ident = _identity(name if post is None else "sum", str(x.dtype))
            red = te.compute(shape, lambda *i: ident, name=name if post is None else name + "_red")
        else:
            red = te.compute(shape, f, name=name if post is None else name + "_red")
        if post is None:
            return red
        # A reduction is its stage's whole body: the epilogue is a stage of its own.
        return te.compute(shape, lambda *i: post(red[i], [x.shape[a] for a in axes], x), name=name)
    op.__name__ = name
    return op


def _const_zero(d):
    return isinstance(d, int) and d == 0 or isinstance(d, tir.IntImm) and int(d.value) == 0


def _identity(name, dtype):
    """The value a reduction of no elements gives (numpy's any/all for bool max/min)."""
    if name in ("sum", "prod"):
        return _e.const(0 if name == "sum" else 1, dtype)
    is_max = name == "max"
    if dtype == "bool":
        return _e.const(not is_max, "bool")
    if dtype.startswith("float") or dtype.startswith("bfloat"):
        return _e.const(float("-inf") if is_max else float("inf"), dtype)
    return tir.min_value(dtype) if is_max else tir.max_value(dtype)


def _mean(r, dims, x):  # r / number of reduced elements
    n = None
    for d in dims:
        n = d if n is None else n * d
    return r / tir.cast(n, str(x.dtype))


sum = _reduce("sum", te.sum)  # noqa: A001
max = _reduce("max", te.max)  # noqa: A001
min = _reduce("min", te.min)  # noqa: A001
prod = _reduce("prod", te.prod)
mean = _reduce("mean", te.sum, _mean)
