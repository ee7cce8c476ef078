"""ATen converters for what real models add to the basic nn set: group normalization and
transposed convolution (U-Nets, decoders, FCN heads).

group_norm composes Relax ops: the input viewed as [N, groups, rest] is normalized over its
last axis (biased variance, as torch), viewed back, then scaled and shifted per channel.
native_group_norm also returns the statistics torch does (mean and 1/sqrt(var + eps), shape
[N, groups]).

Transposed convolution (aten.convolution with transposed=True, conv_transpose1d/2d/3d) uses
the gather-form kernel ONNX ConvTranspose uses too (kernels/conv_transpose.py; weights
[C_in, C_out / groups, k...] in both); the output extent is stride * (in - 1) - 2 * pad + dilation * (k - 1) + out_pad + 1.
"""

import numpy as np

from ... import expr as _expr
from ... import op as R
from ..kernels.conv_transpose import conv_transpose
from .aten_registry import register


def _group_norm(ctx, x, weight, bias, groups, eps):
    shape = ctx.shape(x)
    c = shape[1]
    if not isinstance(c, int) or c % int(groups):
        raise NotImplementedError("group_norm: %s channels into %d groups" % (c, int(groups)))
    g = int(groups)
    dt = ctx.dtype(x)
    y = ctx.emit(R.reshape(x, [shape[0], g, -1]))
    mean = ctx.emit(R.mean(y, axis=[2], keepdims=True))
    cen = ctx.emit(R.subtract(y, mean))
    var = ctx.emit(R.mean(R.multiply(cen, cen), axis=[2], keepdims=True))
    rstd = ctx.emit(R.divide(_expr.const(np.array(1.0, dt)),
                             R.sqrt(R.add(var, _expr.const(np.array(float(eps), dt))))))
    out = ctx.emit(R.reshape(R.multiply(cen, rstd), shape))
    bshape = [c] + [1] * (len(shape) - 2)
    if weight is not None:
        out = ctx.emit(R.multiply(out, R.reshape(weight, bshape)))
    if bias is not None:
        out = ctx.emit(R.add(out, R.reshape(bias, bshape)))
    return out, R.reshape(mean, [shape[0], g]), R.reshape(rstd, [shape[0], g])


@register("aten.native_group_norm.default")
def _native_group_norm(ctx):
    a = ctx.args
    out, mean, rstd = _group_norm(ctx, a["input"], a["weight"], a["bias"], a["group"], a["eps"])
    return [out, ctx.emit(mean), ctx.emit(rstd)]


@register("aten.group_norm.default")
def _group_norm_conv(ctx):
    a = ctx.args
    return _group_norm(ctx, a["input"], a["weight"], a["bias"], a["num_groups"], a["eps"])[0]


def _conv_transpose(ctx, x, w, bias, stride, padding, output_padding, dilation, groups):
    xs, ws = ctx.shape(x), ctx.shape(w)
    sd = len(xs) - 2
    if not all(isinstance(d, int) for d in ws) or not isinstance(xs[1], int):
        raise NotImplementedError("transposed convolution with channels or kernel unknown at export")

    def rep(v):
        v = [int(v)] if isinstance(v, int) else [int(e) for e in v]
        return v * sd if len(v) == 1 else v
    stride, padding, output_padding, dilation = map(rep, (stride, padding, output_padding, dilation))
    groups = int(groups)
    if xs[1] != ws[0] or xs[1] % groups:
        raise ValueError("transposed convolution: %s input channels, weight %s, groups %d"
                         % (xs[1], ws, groups))
    out = [stride[i] * (xs[2 + i] - 1) - 2 * padding[i] + dilation[i] * (ws[2 + i] - 1)
           + output_padding[i] + 1 for i in range(sd)]
    y = ctx.bb.emit_te(conv_transpose, x, w, strides=stride, dilations=dilation, pads=padding, out_sizes=out,
                       group=groups, primfunc_name_hint="conv_transpose")
    if bias is not None:
        y = ctx.emit(R.add(y, R.reshape(bias, [1, -1] + [1] * sd)))
    return y


def convolution_transposed(ctx, a):
    """aten.convolution with transposed=True (called by aten_ops._convolution)."""
    return _conv_transpose(ctx, a["input"], a["weight"], a["bias"], a["stride"], a["padding"],
                           a["output_padding"], a["dilation"], a["groups"])


@register("aten.conv_transpose1d.default", "aten.conv_transpose2d.input", "aten.conv_transpose3d.input")
def _conv_transpose_nd(ctx):
    a = ctx.args
    return _conv_transpose(ctx, a["input"], a["weight"], a["bias"], a["stride"], a["padding"],
                           a["output_padding"], a["dilation"], a["groups"])
