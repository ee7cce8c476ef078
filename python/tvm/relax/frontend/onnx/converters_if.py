"""If (opsets 1, 11, 13, 16, 19, 21, 23, 24). A condition known at import (often: computed
from static shapes, as AffineGrid's body does) converts only the branch taken. A run-time
condition converts both branches and selects each output elementwise with `where`, which
needs the branches' outputs to be tensors of one dtype and broadcast-compatible shapes
(sequences and optionals are not supported)."""

import numpy as np

from ... import expr as _expr
from ... import op as R
from .converters import Converter, register
from .converters_scan import _run_body


@register("If")
class If(Converter):
    @classmethod
    def _impl_v1(cls, ctx, inputs, attrs):
        then_g, else_g = attrs["then_branch"], attrs["else_branch"]
        cond = ctx.consts[0]
        if cond is not None:
            taken = then_g if bool(np.asarray(cond).reshape(-1)[0]) else else_g
            return tuple(_run_body(ctx, taken, []))
        a = _run_body(ctx, then_g, [])
        b = _run_body(ctx, else_g, [])
        c = ctx.bb.emit(R.reshape(inputs[0], []))
        outs = []
        for x, y in zip(a, b):
            sx = ctx.bb.normalize(x).struct_info
            sy = ctx.bb.normalize(y).struct_info
            if not isinstance(sx, _expr.TensorStructInfo) or not isinstance(sy, _expr.TensorStructInfo):
                raise NotImplementedError("If with a run-time condition and non-tensor outputs")
            if str(sx.dtype) != str(sy.dtype):
                raise NotImplementedError("If with a run-time condition: branches of dtypes %s "
                                          "and %s" % (sx.dtype, sy.dtype))
            outs.append(R.where(c, x, y))
        return tuple(outs)
