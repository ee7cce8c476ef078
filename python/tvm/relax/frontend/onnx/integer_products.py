"""Integer matmul / convolution for the quantized operators: (a - za) x (b - zb) computed as
an int8 x int8 (or uint8 x uint8) product accumulated in int32 (relax matmul / conv with
out_dtype="int32", legalized and scheduled like the float ones), then zero-point corrections:

    sum (a - za)(b - zb) = sum a*b - zb * sum a - za * sum b + K * za * zb

so the large product reads the 8-bit tensors themselves; the corrections are a row sum of
the activations (only when zb != 0), a column sum of the weights (folded at import when the
weight is a constant) and a constant. A convolution's padding must contribute (za - za) = 0,
so the input is padded with its zero point (not 0) before a padding-free convolution.

Operands of different 8-bit types (uint8 activations, int8 weights: onnxruntime's default)
are brought to int8 by subtracting 128 from the uint8 one and from its zero point, which
leaves every difference x - z unchanged."""

import numpy as np

from ... import expr as _expr
from ... import op as R

QTYPES = ("int8", "uint8")


def const_of(e):
    """The numpy value of a relax Constant, else None."""
    return e.data.numpy() if isinstance(e, _expr.Constant) else None


def _i32(v):
    return _expr.const(np.asarray(v, dtype="int32"))


def _zero_point(z):
    """The zero point as an int32 expression; None when absent or a constant of zeros."""
    if z is None:
        return None
    c = const_of(z)
    if c is not None:
        return None if not c.any() else _i32(c.astype("int32"))
    return R.astype(z, "int32")


def _to_int8(ctx, x, z):
    """uint8 x with zero point z -> int8 (x - 128) with zero point z - 128."""
    c = const_of(x)
    if c is not None:
        xs = _expr.const((c.astype("int16") - 128).astype("int8"))
    else:
        xs = R.astype(R.subtract(R.astype(x, "int16"), _expr.const(np.array(128, "int16"))), "int8")
    if z is None:
        return xs, _i32(-128)
    zc = const_of(z)
    if zc is not None:
        return xs, _i32(zc.astype("int32") - 128)
    return xs, R.subtract(R.astype(z, "int32"), _i32(128))


def _same_type(ctx, a, za, b, zb, what):
    da, db = ctx.dtype_of(a), ctx.dtype_of(b)
    for dt in (da, db):
        if dt not in QTYPES:
            raise NotImplementedError("%s: %s operands (int8 and uint8 are supported)" % (what, dt))
    if da != db:
        if da == "uint8":
            a, za = _to_int8(ctx, a, za)
        else:
            b, zb = _to_int8(ctx, b, zb)
    return a, _zero_point(za), b, _zero_point(zb)


def _along(ctx, z, axis, nd):
    """A zero point (scalar, one element or 1-d) shaped to broadcast along `axis` of nd dims."""
    shape = ctx.static_shape(z)
    if shape is None:
        raise NotImplementedError("a zero point of unknown shape")
    if int(np.prod(shape)) == 1:
        return R.reshape(z, [])
    if len(shape) != 1:
        raise ValueError("a per-axis zero point must be 1-d, got shape %s" % (shape,))
    dims = [1] * nd
    dims[axis % nd] = shape[0]
    return R.reshape(z, dims)


def _sum32(ctx, x, axes):
    c = const_of(x)
    if c is not None:
        return _i32(c.astype("int64").sum(axis=tuple(axes), keepdims=True).astype("int32"))
    return R.sum(R.astype(x, "int32"), axis=list(axes), keepdims=True)


def matmul_int32(ctx, a, b, za=None, zb=None):
    """int32 (a - za) @ (b - zb), numpy.matmul's broadcasting; za is per tensor or per row of
    a (1-d, length M), zb per tensor or per column of b (1-d, length N)."""
    a, za, b, zb = _same_type(ctx, a, za, b, zb, "integer matmul")
    acc = ctx.bb.emit(R.matmul(a, b, out_dtype="int32"))
    nd = len(ctx.shape_of(acc))
    a_nd, b_nd = len(ctx.shape_of(a)), len(ctx.shape_of(b))
    if zb is not None:
        zbb = _along(ctx, zb, -1, nd) if b_nd > 1 else R.reshape(zb, [])
        rows = _sum32(ctx, a, [-1])  # (..., M, 1), or (1,) for a 1-d a
        if a_nd > 1 and b_nd == 1:
            rows = R.reshape(rows, ctx.shape_of(rows)[:-1])
        acc = ctx.bb.emit(R.subtract(acc, R.multiply(zbb, rows)))
    if za is not None:
        zab = _along(ctx, za, -2 if b_nd > 1 else -1, nd) if a_nd > 1 else R.reshape(za, [])
        cols = _sum32(ctx, b, [-2] if b_nd > 1 else [0])
        if b_nd == 1:
            cols = R.reshape(cols, [])
        acc = ctx.bb.emit(R.subtract(acc, R.multiply(zab, cols)))
    if za is not None and zb is not None:
        k = ctx.static_shape(a)
        if k is None:
            raise NotImplementedError("integer matmul with both zero points needs a static K")
        acc = ctx.bb.emit(R.add(acc, R.multiply(_i32(k[-1]), R.multiply(zab, zbb))))
    return acc


_CONV = {1: R.nn.conv1d, 2: R.nn.conv2d, 3: R.nn.conv3d}


def _pad_with_zero_point(ctx, x, zx, pads, nsp):
    """x padded spatially by pads (begin..., end...) with the value zx (in x's type)."""
    width = [0, 0, 0, 0]
    for k in range(nsp):
        width += [pads[k], pads[nsp + k]]
    c = const_of(zx)
    if c is not None:
        return R.nn.pad(x, width, pad_value=float(c.reshape(-1)[0]))
    shape = ctx.static_shape(x)
    if shape is None:
        raise NotImplementedError("integer conv: a run-time zero point with padding needs static shapes")
    # inside the original extent: the padded tensor; outside: the run-time zero point
    mask = np.zeros([1, 1] + [shape[2 + k] + pads[k] + pads[nsp + k] for k in range(nsp)], "bool")
    mask[tuple([0, 0] + [slice(pads[k], pads[k] + shape[2 + k]) for k in range(nsp)])] = True
    return R.where(_expr.const(mask), R.nn.pad(x, width),
                   R.astype(R.reshape(zx, []), ctx.dtype_of(x)))


def conv_int32(ctx, x, w, zx, zw, strides, pads, dilations, groups):
    """int32 convolution of (x - zx) with (w - zw), NC<spatial> x OI<kernel>; zx per tensor,
    zw per tensor or per output channel; pads (begin..., end...) filled with zx."""
    x, zx, w, zw = _same_type(ctx, x, zx, w, zw, "integer conv")
    ws = ctx.static_shape(w)
    if ws is None:
        raise NotImplementedError("integer conv with a weight of unknown shape")
    nsp = len(ws) - 2
    fn = _CONV.get(nsp)
    if fn is None:
        raise NotImplementedError("integer conv with %d spatial dimensions (1, 2 and 3 are supported)" % nsp)
    if zx is not None and any(pads):
        x = ctx.bb.emit(_pad_with_zero_point(ctx, x, zx, pads, nsp))
        pads = [0] * (2 * nsp)
    args = dict(strides=strides, padding=pads, dilation=dilations, out_dtype="int32")
    acc = ctx.bb.emit(fn(x, w, groups=groups, **args))
    o, ipg = ws[0], ws[1]
    nd = nsp + 2
    zwb = None
    if zw is not None:
        zwb = _along(ctx, zw, 1, nd)
        # window sums of x per group: a convolution with a weight of ones
        ones = _expr.const(np.ones([groups, ipg] + ws[2:], ctx.dtype_of(x)))
        sx = ctx.bb.emit(fn(x, ones, groups=groups, **args))
        if groups > 1 and o != groups:
            sx = R.take(sx, _expr.const(np.arange(o, dtype="int64") // (o // groups)), axis=1)
        acc = ctx.bb.emit(R.subtract(acc, R.multiply(zwb, sx)))
    if zx is not None:
        sw = R.reshape(_sum32(ctx, w, list(range(1, nd))), [1, o] + [1] * nsp)
        acc = ctx.bb.emit(R.subtract(acc, R.multiply(R.reshape(zx, []), sw)))
    if zx is not None and zw is not None:
        n = int(ipg * np.prod(ws[2:]))
        acc = ctx.bb.emit(R.add(acc, R.multiply(_i32(n), R.multiply(R.reshape(zx, []), zwb))))
    return acc
