"""QDQ products (the form of onnxruntime's static quantizer): a Conv / MatMul / Gemm whose
data and weight inputs are both DequantizeLinear outputs of int8 / uint8 tensors is
imported as the integer product of the quantized tensors (integer_products.py: 8-bit
operands, int32 accumulation) times the two scales, instead of a float product of the
dequantized tensors:

    DequantizeLinear(x_q, sx, zx) . DequantizeLinear(w_q, sw, zw)
        = sx * sw * ((x_q - zx) . (w_q - zw))

A bias that is itself DequantizeLinear(int32 b_q, sx * sw, 0) (what the quantizer writes)
is added to the int32 accumulator; any other bias is added in float. A QuantizeLinear that
follows is converted as usual (its scale division and rounding finish the requantization).
The data must be quantized per tensor, the weight per tensor or per output channel; any
other form (blocked, per-axis data, other types, unknown shapes) returns None and the node
takes the float path of its own converter, so the result stays correct.
The DequantizeLinear nodes are still converted; what nothing reads is removed by the
build's dead-code elimination."""

from collections import namedtuple

import numpy as np

from ... import expr as _expr
from ... import op as R
from .integer_products import QTYPES, const_of, conv_int32, matmul_int32

_DQ = namedtuple("_DQ", "q scale zp axis")


def dequantized(ctx, i, qtypes=QTYPES):
    """Input i of the node as a DequantizeLinear (q, scale, zero point, axis: None when per
    tensor), or None when it is not one of the supported form."""
    from onnx import helper

    names = ctx.node.input
    if i >= len(names) or not names[i]:
        return None
    node = ctx.importer.producers.get(names[i])
    if node is None or node.op_type != "DequantizeLinear" or node.domain not in ("", "ai.onnx"):
        return None
    attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
    if attrs.get("block_size", 0) or attrs.get("output_dtype", 0):
        return None
    value = ctx.importer.value
    q, scale = value(node.input[0]), value(node.input[1])
    zp = value(node.input[2]) if len(node.input) > 2 and node.input[2] else None
    if ctx.dtype_of(q) not in qtypes or ctx.dtype_of(scale) != "float32":
        return None
    qs, ss = ctx.static_shape(q), ctx.static_shape(scale)
    if qs is None or ss is None:
        return None
    if int(np.prod(ss)) == 1:
        c = const_of(scale)  # kept a Constant: _int_bias compares the scales' values
        return _DQ(q, _expr.const(c.reshape(())) if c is not None else R.reshape(scale, []), zp, None)
    if len(ss) != 1 or not qs:
        return None
    return _DQ(q, scale, zp, int(attrs.get("axis", 1)) % len(qs))


def _scale(ctx, acc, x, w, nd, axis):
    """float32(acc) * sx * sw, sw (per channel) along `axis` of the result."""
    s = w.scale if w.axis is None else R.reshape(w.scale, [-1 if d == axis else 1 for d in range(nd)])
    return R.multiply(R.astype(acc, "float32"), R.multiply(x.scale, s))


def _int_bias(ctx, i, x, w):
    """Input i as int32 when it is DequantizeLinear(int32, sx * sw, 0) with constant scales."""
    b = dequantized(ctx, i, qtypes=("int32",))
    if b is None or b.axis not in (None, 0) or (b.zp is not None and (const_of(b.zp) is None or const_of(b.zp).any())):
        return None
    sb, sx, sw = const_of(b.scale), const_of(x.scale), const_of(w.scale)
    if sb is None or sx is None or sw is None:
        return None
    want = (sx.astype("float32") * sw.astype("float32")).reshape(-1)
    got = sb.reshape(-1)
    if got.shape != want.shape and want.size != 1:
        return None
    return b.q if np.array_equal(got, np.broadcast_to(want, got.shape)) else None


def _integer_only(fn):
    """fn's result, or None (the float path) when the integer form does not apply."""
    def wrapped(ctx, inputs, attrs, *extra):
        try:
            return fn(ctx, inputs, attrs, *extra)
        except NotImplementedError:
            return None
    return wrapped


@_integer_only
def matmul(ctx, inputs, attrs):
    x, w = dequantized(ctx, 0), dequantized(ctx, 1)
    if x is None or w is None or x.axis is not None:
        return None
    wnd = len(ctx.shape_of(w.q))
    if w.axis is not None and (wnd != 2 or w.axis != 1):
        return None  # per column only
    acc = matmul_int32(ctx, x.q, w.q, x.zp, w.zp)
    nd = len(ctx.shape_of(acc))
    return _scale(ctx, acc, x, w, nd, nd - 1)


@_integer_only
def gemm(ctx, inputs, attrs):
    x, w = dequantized(ctx, 0), dequantized(ctx, 1)
    if x is None or w is None or x.axis is not None or attrs.get("transA", 0):
        return None
    trans_b = bool(attrs.get("transB", 0))
    if w.axis is not None and w.axis != (0 if trans_b else 1):
        return None  # per output column only
    wq = w.q
    if trans_b:
        c = const_of(wq)
        wq = _expr.const(np.ascontiguousarray(c.T)) if c is not None else R.permute_dims(wq, [1, 0])
    acc = matmul_int32(ctx, x.q, wq, x.zp, w.zp)
    alpha, beta = float(attrs.get("alpha", 1.0)), float(attrs.get("beta", 1.0))
    bias = _int_bias(ctx, 2, x, w) if alpha == 1.0 and beta == 1.0 else None
    if bias is not None:
        acc = ctx.bb.emit(R.add(acc, bias))
    out = _scale(ctx, acc, x, w, 2, 1)
    if alpha != 1.0:
        out = R.multiply(out, _expr.const(np.array(alpha, "float32")))
    if bias is None and len(inputs) > 2 and inputs[2] is not None:
        c = inputs[2]
        if beta != 1.0:
            c = R.multiply(c, _expr.const(np.array(beta, "float32")))
        out = R.add(out, c)
    return out


@_integer_only
def conv(ctx, inputs, attrs, conv_geometry):
    """`conv_geometry(ctx, x, w, attrs)`: the node's (strides, pads, dilations, groups), from
    the converter that calls (it owns auto_pad's resolution)."""
    x, w = dequantized(ctx, 0), dequantized(ctx, 1)
    if x is None or w is None or x.axis is not None or w.axis not in (None, 0):
        return None
    acc = conv_int32(ctx, x.q, w.q, x.zp, w.zp, *conv_geometry(ctx, x.q, w.q, attrs))
    nd = len(ctx.shape_of(acc))
    bias = _int_bias(ctx, 2, x, w)
    if bias is not None:
        acc = ctx.bb.emit(R.add(acc, R.reshape(bias, [1, -1] + [1] * (nd - 2))))
    out = _scale(ctx, acc, x, w, nd, 1)
    if bias is None and len(inputs) > 2 and inputs[2] is not None:
        out = R.add(out, R.reshape(inputs[2], [1, -1] + [1] * (nd - 2)))
    return out
