"""Ops that pick elements by run-time values: ReverseSequence (opset 10) and Compress
(9, 11).

- ReverseSequence: along time_axis, batch entry b's first sequence_lens[b] steps are
  reversed, the rest copied (a TE kernel reading x at the mirrored step);
- Compress: the positions along `axis` (of the flattened input without one) whose condition
  is true, in order; the condition may be shorter than the axis. The output's extent is the
  run-time count of true values (bound to a symbolic variable); the j-th kept position is
  the number of positions whose running count of true values is <= j."""

import numpy as np

from ... import op as R
from .converters import Converter, register
from .run_time_bounds import _c, _rank, bind_lengths


def _reverse_sequence(x, lens, *, batch_axis, time_axis):
    from .... import te, tir

    nd = len(x.shape)

    def f(*i):
        n = tir.Cast("int64", lens[(i[batch_axis],)])
        t = i[time_axis]
        src = tir.Select(t < n, n - 1 - t, t)
        return x[tuple(src if d == time_axis else i[d] for d in range(nd))]
    return te.compute(x.shape, f, name="reverse_sequence")


@register("ReverseSequence")
class ReverseSequence(Converter):
    @classmethod
    def _impl_v10(cls, ctx, inputs, attrs):
        x, lens = inputs
        nd = _rank(ctx, x, "ReverseSequence")
        return ctx.bb.emit_te(_reverse_sequence, x, lens,
                              batch_axis=int(attrs.get("batch_axis", 1)) % nd,
                              time_axis=int(attrs.get("time_axis", 0)) % nd,
                              primfunc_name_hint="reverse_sequence")


@register("Compress")
class Compress(Converter):
    @classmethod
    def _impl_v9(cls, ctx, inputs, attrs):
        x, cond = inputs
        if "axis" in attrs:
            axis = int(attrs["axis"]) % _rank(ctx, x, "Compress")
        else:
            x, axis = R.reshape(x, [-1]), 0
        cs = ctx.static_shape(cond)
        if cs is None:
            raise NotImplementedError("Compress: a condition of a length unknown at import")
        n = int(np.prod(cs))
        keep = ctx.bb.emit(R.astype(R.not_equal(R.reshape(cond, [n]), R.zeros([n], ctx.dtype_of(cond))), "int64"))
        tri = _c(np.tril(np.ones((n, n), "int64")))
        cum = ctx.bb.emit(R.sum(R.multiply(tri, R.reshape(keep, [1, n])), 1))   # inclusive
        count = ctx.bb.emit(R.reshape(R.sum(keep, 0), [1]))
        k = bind_lengths(ctx, count, 1, "compress")[0]
        j = R.reshape(R.arange(0, k, 1, dtype="int64"), [-1, 1])
        src = ctx.bb.emit(R.sum(R.astype(R.less_equal(R.reshape(cum, [1, n]), j), "int64"), 1))
        return R.take(x, src, axis)
