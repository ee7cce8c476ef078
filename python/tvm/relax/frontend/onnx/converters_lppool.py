"""LpPool (opsets 1, 2, 11, 18): (sum over each window of |x|^p)^(1/p), padding counting as
zeros. Built on AveragePool's converter (its kernel, strides, dilations, pads, auto_pad and
ceil_mode handling): the window mean of |x|^p with the padding counted, times the window's
size, is the window sum."""

import numpy as np

from ... import expr as _expr
from ... import op as R
from .converters import CONVERTERS, Converter, register


@register("LpPool")
class LpPool(Converter):
    requires = ("nn.avg_pool1d", "nn.avg_pool2d")

    @classmethod
    def _impl_v1(cls, ctx, inputs, attrs):
        x = inputs[0]
        dt = ctx.dtype_of(x)
        p = float(attrs.get("p", 2))
        if p <= 0:
            raise ValueError("LpPool: p must be positive, got %r" % p)
        k = (lambda v: _expr.const(np.asarray(v, dt)))
        y = ctx.bb.emit(R.power(R.abs(x), k(p)))
        pool_attrs = {a: v for a, v in attrs.items() if a != "p"}
        pool_attrs["count_include_pad"] = 1
        avg = CONVERTERS["AveragePool"]._impl_v1(ctx, [y], pool_attrs)
        size = int(np.prod([int(s) for s in attrs["kernel_shape"]]))
        return R.power(R.multiply(avg, k(size)), k(1.0 / p))
