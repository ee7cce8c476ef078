"""Integer and quantized-linear matmul / convolution, as onnx's reference computes them:
MatMulInteger (10) and ConvInteger (10): int32 results of (a - a_zero_point) and
(b - b_zero_point); QLinearMatMul (10, 21) and QLinearConv (10): that integer product
scaled by a_scale * b_scale / y_scale (the scales' own type, then widened), plus y's zero
point, rounded half to even and clipped to y's type.

The integer products are computed in float64 (exact: every product of 8-bit values and
their sums stay far below 2^53), so the float64 matmul/conv kernels serve them."""

import numpy as np

from ... import op as R
from .converters import CONVERTERS, Converter, register
from .converters_math import round_half_even

_RANGES = {"uint8": (0, 255), "int8": (-128, 127)}


def _opt(inputs, i):
    return inputs[i] if len(inputs) > i and inputs[i] is not None else None


def _centered(ctx, v, zp, zp_axis=None):
    """float64(v) - float64(zero point); a 1-d zero point of several values lies along
    zp_axis (a matmul's rows for a, a conv weight's output channels)."""
    out = R.astype(v, "float64")
    if zp is None:
        return out
    z = R.astype(zp, "float64")
    zs = ctx.static_shape(zp)
    nd = len(ctx.shape_of(v))
    if zs and int(np.prod(zs)) > 1 and zp_axis is not None:
        dims = [1] * nd
        dims[zp_axis % nd] = -1
        z = R.reshape(z, dims)
    elif zs and int(np.prod(zs)) == 1:
        z = R.reshape(z, [])
    return R.subtract(out, z)


def _requantize(ctx, acc, scale_a, scale_b, scale_y, zp_y, out_dt, ch_axis=None):
    """round_half_even(acc * (sa * sb / sy) + zp_y), clipped to out_dt."""
    factor = R.divide(R.multiply(scale_a, scale_b), scale_y)
    factor = R.astype(factor, "float64")
    fs = ctx.static_shape(ctx.bb.emit(factor))
    nd = len(ctx.shape_of(acc))
    if fs and int(np.prod(fs)) > 1 and ch_axis is not None:
        factor = R.reshape(factor, [-1 if d == ch_axis else 1 for d in range(nd)])
    elif fs is not None and int(np.prod(fs or [1])) == 1:
        factor = R.reshape(factor, [])
    y = R.multiply(acc, factor)
    if zp_y is not None:
        y = R.add(y, R.reshape(R.astype(zp_y, "float64"), []))
    lo, hi = _RANGES[out_dt]
    y = R.clip(round_half_even(ctx.bb.emit(y), "float64"), float(lo), float(hi))
    return R.astype(y, out_dt)


def _check(dt, what):
    if dt not in _RANGES:
        raise NotImplementedError("%s: %s tensors (uint8 and int8 are supported)" % (what, dt))


@register("MatMulInteger")
class MatMulInteger(Converter):
    @classmethod
    def _impl_v10(cls, ctx, inputs, attrs):
        a = _centered(ctx, inputs[0], _opt(inputs, 2), -2)
        b = _centered(ctx, inputs[1], _opt(inputs, 3), -1)
        return R.astype(R.matmul(a, b), "int32")


@register("QLinearMatMul")
class QLinearMatMul(Converter):
    @classmethod
    def _impl_v10(cls, ctx, inputs, attrs):
        a, sa, za, b, sb, zb, sy, zy = [_opt(inputs, i) for i in range(8)]
        out_dt = ctx.dtype_of(zy) if zy is not None else ctx.dtype_of(a)
        _check(out_dt, "QLinearMatMul")
        acc = ctx.bb.emit(R.matmul(_centered(ctx, a, za, -2), _centered(ctx, b, zb, -1)))
        return _requantize(ctx, acc, sa, sb, sy, zy, out_dt, ch_axis=len(ctx.shape_of(acc)) - 1)


def _conv(ctx, x, w, attrs):
    return CONVERTERS["Conv"]._impl_v1(ctx, [ctx.bb.emit(x), ctx.bb.emit(w)], attrs)


@register("ConvInteger")
class ConvInteger(Converter):
    @classmethod
    def _impl_v10(cls, ctx, inputs, attrs):
        x = _centered(ctx, inputs[0], _opt(inputs, 2))
        w = _centered(ctx, inputs[1], _opt(inputs, 3), 0)
        return R.astype(_conv(ctx, x, w, attrs), "int32")


@register("QLinearConv")
class QLinearConv(Converter):
    @classmethod
    def _impl_v10(cls, ctx, inputs, attrs):
        x, sx, zx, w, sw, zw, sy, zy = [_opt(inputs, i) for i in range(8)]
        b = _opt(inputs, 8)
        out_dt = ctx.dtype_of(zy) if zy is not None else ctx.dtype_of(x)
        _check(out_dt, "QLinearConv")
        acc = _conv(ctx, _centered(ctx, x, zx), _centered(ctx, w, zw, 0), attrs)
        if b is not None:
            nd = len(ctx.shape_of(x))
            acc = R.add(acc, R.reshape(R.astype(b, "float64"), [1, -1] + [1] * (nd - 2)))
        return _requantize(ctx, ctx.bb.emit(acc), sx, sw, sy, zy, out_dt, ch_axis=1)
