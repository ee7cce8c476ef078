"""Integer and quantized-linear matmul / convolution, as onnx's reference computes them:
MatMulInteger (10) and ConvInteger (10): int32 results of (a - a_zero_point) and
(b - b_zero_point); QLinearMatMul (10, 21) and QLinearConv (10): that integer product
(+ QLinearConv's int32 bias) scaled by a_scale * b_scale / y_scale (the scales' own type,
then widened), plus y's zero point, rounded half to even and clipped to y's type.

The products are integer kernels (integer_products.py: 8-bit operands, int32
accumulation); only the requantization, elementwise, is done in float64."""

import numpy as np

from ... import op as R
from .converters import Converter, _ints, register
from .converters_math import round_half_even_then_clip
from .converters_nn import conv_geometry
from .integer_products import conv_int32, matmul_int32

_RANGES = {"uint8": (0, 255), "int8": (-128, 127)}


def _opt(inputs, i):
    return inputs[i] if len(inputs) > i and inputs[i] is not None else None


def requantize(ctx, acc, scale_a, scale_b, scale_y, zp_y, out_dt, ch_axis=None):
    """round_half_even(acc * (sa * sb / sy) + zp_y), clipped to out_dt."""
    factor = R.divide(R.multiply(scale_a, scale_b), scale_y)
    factor = R.astype(factor, "float64")
    fs = ctx.static_shape(ctx.bb.emit(factor))
    nd = len(ctx.shape_of(acc))
    if fs and int(np.prod(fs)) > 1 and ch_axis is not None:
        factor = R.reshape(factor, [-1 if d == ch_axis else 1 for d in range(nd)])
    elif fs is not None and int(np.prod(fs or [1])) == 1:
        factor = R.reshape(factor, [])
    y = R.multiply(R.astype(acc, "float64"), factor)
    if zp_y is not None:
        y = R.add(y, R.reshape(R.astype(zp_y, "float64"), []))
    lo, hi = _RANGES[out_dt]
    y = R.clip(round_half_even_then_clip(y, "float64"), float(lo), float(hi))
    return R.astype(y, out_dt)


def _check(dt, what):
    if dt not in _RANGES:
        raise NotImplementedError("%s: %s tensors (uint8 and int8 are supported)" % (what, dt))


@register("MatMulInteger")
class MatMulInteger(Converter):
    @classmethod
    def _impl_v10(cls, ctx, inputs, attrs):
        return matmul_int32(ctx, inputs[0], inputs[1], _opt(inputs, 2), _opt(inputs, 3))


@register("QLinearMatMul")
class QLinearMatMul(Converter):
    @classmethod
    def _impl_v10(cls, ctx, inputs, attrs):
        a, sa, za, b, sb, zb, sy, zy = [_opt(inputs, i) for i in range(8)]
        out_dt = ctx.dtype_of(zy) if zy is not None else ctx.dtype_of(a)
        _check(out_dt, "QLinearMatMul")
        acc = matmul_int32(ctx, a, b, za, zb)
        return requantize(ctx, acc, sa, sb, sy, zy, out_dt, ch_axis=len(ctx.shape_of(acc)) - 1)


@register("ConvInteger")
class ConvInteger(Converter):
    @classmethod
    def _impl_v10(cls, ctx, inputs, attrs):
        x, w = inputs[0], inputs[1]
        return conv_int32(ctx, x, w, _opt(inputs, 2), _opt(inputs, 3), *conv_geometry(ctx, x, w, attrs))


@register("QLinearConv")
class QLinearConv(Converter):
    @classmethod
    def _impl_v10(cls, ctx, inputs, attrs):
        x, sx, zx, w, sw, zw, sy, zy = [_opt(inputs, i) for i in range(8)]
        b = _opt(inputs, 8)
        out_dt = ctx.dtype_of(zy) if zy is not None else ctx.dtype_of(x)
        _check(out_dt, "QLinearConv")
        acc = conv_int32(ctx, x, w, zx, zw, *conv_geometry(ctx, x, w, attrs))
        if b is not None:
            nd = len(ctx.shape_of(x))
            acc = ctx.bb.emit(R.add(acc, R.reshape(R.astype(b, "int32"), [1, -1] + [1] * (nd - 2))))
        return requantize(ctx, acc, sx, sw, sy, zy, out_dt, ch_axis=1)
