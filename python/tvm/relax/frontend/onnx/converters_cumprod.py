"""CumProd (opset 26): the running product along an axis, exclusive and/or reverse, as a TE
kernel (a product over the positions before, or after, each one). The axis may be a
run-time input: every candidate axis is computed and the one named selected, as CumSum
does (converters_more.py)."""

import numpy as np

from ... import expr as _expr
from ... import op as R
from .converters import Converter, register
from .run_time_bounds import _rank


def _cumprod(x, *, axis, exclusive, reverse):
    from .... import te, tir

    n = x.shape[axis]
    nd = len(x.shape)

    def f(*i):
        k = te.reduce_axis((0, n), "k")
        p = i[axis]
        if reverse:
            keep = (k > p) if exclusive else (k >= p)
        else:
            keep = (k < p) if exclusive else (k <= p)
        v = x[tuple(k if d == axis else i[d] for d in range(nd))]
        return te.prod(tir.Select(keep, v, tir.const(1, str(x.dtype))), axis=k)
    return te.compute(x.shape, f, name="cumprod")


@register("CumProd")
class CumProd(Converter):
    @classmethod
    def _impl_v26(cls, ctx, inputs, attrs):
        x = inputs[0]
        nd = _rank(ctx, x, "CumProd")
        ex, rev = bool(attrs.get("exclusive", 0)), bool(attrs.get("reverse", 0))

        def along(a):
            return ctx.bb.emit_te(_cumprod, x, axis=a, exclusive=ex, reverse=rev,
                                  primfunc_name_hint="cumprod")
        if ctx.consts[1] is not None:
            return along(int(np.asarray(ctx.consts[1]).reshape(-1)[0]) % nd)
        a = R.reshape(R.astype(inputs[1], "int64"), [])
        i64 = (lambda v: _expr.const(np.array(v, "int64")))
        a = ctx.bb.emit(R.where(R.less(a, i64(0)), R.add(a, i64(nd)), a))
        out = along(nd - 1)
        for k in range(nd - 2, -1, -1):
            out = R.where(R.equal(a, i64(k)), along(k), out)
        return out
