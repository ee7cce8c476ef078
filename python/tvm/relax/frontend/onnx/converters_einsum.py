"""Einsum (opset 12) through the shared einsum kernel (kernels/einsum.py)."""

from ..kernels.einsum import einsum, parse
from .converters import Converter, register


@register("Einsum")
class Einsum(Converter):
    @classmethod
    def _impl_v12(cls, ctx, inputs, attrs):
        xs = list(inputs)
        shapes = [ctx.static_shape(x) for x in xs]
        if any(s is None for s in shapes):
            raise NotImplementedError("Einsum: operands of shapes unknown at import")
        ops, out, extents = parse(attrs["equation"], shapes)
        return ctx.bb.emit_te(einsum, *xs, ops=ops, out=out, extents=extents,
                              primfunc_name_hint="einsum")
