"""ScatterElements (11, 13, 16, 18), Scatter (9, 10: ScatterElements without reduction) and
ScatterND (11, 13, 16, 18) through the shared scatter kernels (kernels/scatter.py: gather
form, the last update wins without a reduction)."""

from ..kernels.scatter import scatter_elements, scatter_nd
from .converters import Converter, register
from .run_time_bounds import _rank

_REDUCTIONS = ("none", "add", "mul", "max", "min")


def _reduction(attrs):
    r = attrs.get("reduction", "none")
    if r not in _REDUCTIONS:
        raise ValueError("unknown reduction %r" % r)
    return r


@register("ScatterElements", "Scatter")
class ScatterElements(Converter):
    @classmethod
    def _impl_v9(cls, ctx, inputs, attrs):
        data, indices, updates = inputs
        nd = _rank(ctx, data, "ScatterElements")
        axis = int(attrs.get("axis", 0)) % max(nd, 1)
        return ctx.bb.emit_te(scatter_elements, data, indices, updates, axis=axis,
                              reduction=_reduction(attrs), primfunc_name_hint="scatter_elements")


@register("ScatterND")
class ScatterND(Converter):
    @classmethod
    def _impl_v11(cls, ctx, inputs, attrs):
        data, indices, updates = inputs
        s = ctx.static_shape(indices)
        if s is None:
            raise NotImplementedError("ScatterND: indices of a shape unknown at import")
        return ctx.bb.emit_te(scatter_nd, data, indices, updates, reduction=_reduction(attrs),
                              primfunc_name_hint="scatter_nd")
