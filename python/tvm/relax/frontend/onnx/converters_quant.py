"""QuantizeLinear / DequantizeLinear (opsets 10, 13, 19, 21, 23), computed as onnx's
reference does (onnx/reference/ops/op_quantize_linear.py, op_dequantize_linear.py):

- the scale and zero point are per tensor (rank 0 or one element), per axis (1-d, along
  `axis`) or blocked (`block_size` > 0: the input's shape with the axis divided into blocks;
  each value repeated block_size times along the axis, the last block cut short);
- quantize: x / scale in x's type, rounded half to even, + zero point, clipped to the output
  type's range (uint8 unless the zero point or output_dtype says otherwise);
- dequantize: (float32(x) - float32(zero point)) * scale, cast to the scale's type (or
  output_dtype).
The 8-bit float, 4-bit and 2-bit types have no tensors here: a NotImplementedError naming
the type (the importer reports it with the node)."""

import numpy as np

from ... import op as R
from .converters import Converter, register
from .converters_math import round_half_even_then_clip
from .run_time_bounds import _c

_RANGES = {"uint8": (0, 255), "int8": (-128, 127), "uint16": (0, 65535),
           "int16": (-32768, 32767)}


def _onnx_dtype(code):
    from onnx import helper

    try:
        return str(np.dtype(helper.tensor_dtype_to_np_dtype(code)))
    except TypeError:
        return None


def _check_type(dt, what):
    if dt not in _RANGES and dt != "int32":
        raise NotImplementedError("%s: quantized type %s is not supported (supported: %s)"
                                  % (what, dt, ", ".join(sorted(_RANGES) + ["int32"])))


def _broadcast_param(ctx, v, x, axis, block_size):
    """The scale / zero point shaped to broadcast against x (reference's reshape_input)."""
    shape = ctx.static_shape(v)
    xs = ctx.shape_of(x)
    if shape is None or xs is None:
        raise NotImplementedError("QuantizeLinear/DequantizeLinear: parameters of unknown shape")
    nd = len(xs)
    size = int(np.prod(shape)) if shape else 1
    if not shape:
        return v
    if size == 1 and not block_size:
        return R.reshape(v, [])
    axis = axis % nd if nd else 0
    if not block_size:
        if len(shape) != 1:
            raise ValueError("per-axis scale must be 1-d, got shape %s" % (shape,))
        dims = [1] * nd
        dims[axis] = shape[0]
        return R.reshape(v, dims)
    if block_size < 0:
        raise ValueError("block_size must be positive")
    static = ctx.static_shape(x)
    if static is None:
        raise NotImplementedError("blocked quantization of an input of unknown shape")
    idx = np.arange(static[axis], dtype="int64") // block_size
    return R.take(v, _c(idx), axis)


def _zero_point(inputs, i):
    return inputs[i] if len(inputs) > i and inputs[i] is not None else None


def quantize(ctx, inputs, attrs):
    x, scale = inputs[0], inputs[1]
    zp = _zero_point(inputs, 2)
    axis, bs = int(attrs.get("axis", 1)), int(attrs.get("block_size", 0))
    out_dt = "uint8"
    if attrs.get("output_dtype"):
        out_dt = _onnx_dtype(attrs["output_dtype"]) or "output_dtype %d" % attrs["output_dtype"]
    if zp is not None:
        out_dt = ctx.dtype_of(zp)
    _check_type(out_dt, "QuantizeLinear")
    if out_dt == "int32":
        raise NotImplementedError("QuantizeLinear: int32 is not a quantized output type")
    dt = ctx.dtype_of(x)
    s = _broadcast_param(ctx, scale, x, axis, bs)
    if ctx.dtype_of(scale) != dt:
        s = R.astype(s, dt)
    # float32 holds every value of the 8/16-bit ranges exactly, so the clip and the zero
    # point's addition are done in float (the reference: rint -> int32, + zero point, clip)
    q = round_half_even_then_clip(R.divide(x, s), dt)
    q = R.astype(q, "float32")
    if zp is not None:
        q = R.add(q, R.astype(_broadcast_param(ctx, zp, x, axis, bs), "float32"))
    lo, hi = _RANGES[out_dt]
    return R.astype(R.clip(q, float(lo), float(hi)), out_dt)


def dequantize(ctx, inputs, attrs):
    x, scale = inputs[0], inputs[1]
    zp = _zero_point(inputs, 2)
    axis, bs = int(attrs.get("axis", 1)), int(attrs.get("block_size", 0))
    _check_type(ctx.dtype_of(x), "DequantizeLinear")
    out_dt = ctx.dtype_of(scale)
    if attrs.get("output_dtype"):
        out_dt = _onnx_dtype(attrs["output_dtype"]) or out_dt
    d = R.astype(x, "float32")
    if zp is not None:
        d = R.subtract(d, R.astype(_broadcast_param(ctx, zp, x, axis, bs), "float32"))
    y = R.multiply(d, R.astype(_broadcast_param(ctx, scale, x, axis, bs), "float32"))
    return R.astype(y, out_dt) if out_dt != "float32" else y


@register("QuantizeLinear")
class QuantizeLinear(Converter):
    @classmethod
    def _impl_v10(cls, ctx, inputs, attrs):
        return quantize(ctx, inputs, attrs)


@register("DequantizeLinear")
class DequantizeLinear(Converter):
    @classmethod
    def _impl_v10(cls, ctx, inputs, attrs):
        return dequantize(ctx, inputs, attrs)

