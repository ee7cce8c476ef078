"""Resize (opsets 10, 11, 13, 18, 19) and Upsample (7, 9), computed as onnx's reference
does: separable, one axis at a time, in float64.

Scales, sizes and roi are run-time tensors in general (the backend suite feeds them as
inputs), so the output extents are computed by relax ops into an int64 tensor and bound to
symbolic variables (run_time_bounds.bind_lengths); each resized axis is then one TE kernel
that reads the axis' scale and roi from a small float64 tensor. Per output position y the
kernel maps y to a source coordinate x (coordinate_transformation_mode), then
- nearest: x0 = floor(x), t = x - x0, index x0 or x0 + 1 by nearest_mode (t == 0 -> x0);
- linear / cubic: taps x0 + i weighted K((i - t) * s) (K the hat or the cubic kernel with
  coefficient A; s = min(scale, 1) with antialias, else 1), indices clamped to the edge
  (the reference pads by edge), weights normalized by their sum (they sum to 1 unless
  exclude_outside zeroes the taps outside the input, or antialias widens the kernel).
Antialias needs the input extent at import (the kernel's width depends on the run-time
scale, so the taps cover the widest kernel any scale producing a non-empty axis needs).
"""

import numpy as np

from ... import expr as _expr
from ... import op as R
from .converters import Converter, register
from .run_time_bounds import _c, _dims, _rank, bind_lengths


def _f64(v):
    return _expr.const(np.asarray(v, "float64"))


def _kernel_weight(d, mode, a):
    """K(d): the hat for linear, Keys' cubic with coefficient a for cubic (float64 d)."""
    from .... import tir

    ad = tir.abs(d)
    if mode == "linear":
        return tir.max(tir.const(1.0, "float64") - ad, tir.const(0.0, "float64"))
    a = tir.const(a, "float64")
    one, two = tir.const(1.0, "float64"), tir.const(2.0, "float64")
    near = ((a + 2.0) * ad - (a + 3.0)) * ad * ad + 1.0
    far = ((a * ad - 5.0 * a) * ad + 8.0 * a) * ad - 4.0 * a
    return tir.Select(ad <= one, near, tir.Select(ad < two, far, tir.const(0.0, "float64")))


def _resize_axis(x, p, *, axis, out_n, mode, ctm, nearest_mode, cubic_a, exclude,
                 extrapolation, antialias, taps):
    """x resized along `axis` to out_n; p = [scale, roi_start, roi_end] (float64)."""
    from .... import te, tir

    f64 = "float64"
    shape = list(x.shape)
    w = shape[axis]
    shape[axis] = out_n

    def f(*i):
        y = tir.Cast(f64, i[axis])
        s = p[0]
        wf = tir.Cast(f64, w)
        owf = s * wf
        one, half, zero = tir.const(1.0, f64), tir.const(0.5, f64), tir.const(0.0, f64)
        is_one = tir.EQ(owf, one)
        outside = None
        if ctm == "align_corners":
            xo = tir.Select(is_one, zero, y * (wf - one) / (owf - one))
        elif ctm == "asymmetric":
            xo = y / s
        elif ctm == "tf_crop_and_resize":
            span = (p[2] - p[1]) * (wf - one)
            xo = tir.Select(is_one, span / 2.0, y * span / (owf - one)) + p[1] * (wf - one)
            outside = tir.Or(xo < zero, xo > wf - one)
        elif ctm == "pytorch_half_pixel":
            xo = tir.Select(is_one, tir.const(-0.5, f64), (y + half) / s - half)
        elif ctm == "half_pixel":
            xo = (y + half) / s - half
        elif ctm == "half_pixel_symmetric":
            adjustment = tir.Cast(f64, out_n) / owf
            xo = wf / 2.0 * (one - adjustment) + (y + half) / s - half
        else:
            raise ValueError("Resize: unknown coordinate_transformation_mode %r" % ctm)
        x0f = tir.floor(xo)
        t = xo - x0f
        x0 = tir.Cast("int64", x0f)
        last = w - 1

        def at(k):
            idx = list(i)
            idx[axis] = tir.max(tir.min(k, last), tir.const(0, "int64"))
            return tir.Cast(f64, x[tuple(idx)])

        if mode == "nearest":
            up = {"round_prefer_floor": t > half, "round_prefer_ceil": t >= half,
                  "floor": tir.const(False, "bool"), "ceil": t > zero}.get(nearest_mode)
            if up is None:
                raise ValueError("Resize: unknown nearest_mode %r" % nearest_mode)
            val = at(x0 + tir.Select(up, tir.const(1, "int64"), tir.const(0, "int64")))
        else:
            scale = tir.min(s, one) if antialias else one
            num, den = zero, zero
            for k in taps:
                wk = _kernel_weight((tir.const(float(k), f64) - t) * scale, mode, cubic_a)
                src = x0 + k
                if exclude:
                    wk = tir.Select(tir.Or(src < 0, src > last), zero, wk)
                num = num + wk * at(src)
                den = den + wk
            val = num / tir.Select(tir.EQ(den, zero), one, den)
        if outside is not None:
            val = tir.Select(outside, tir.const(float(extrapolation), f64), val)
        return tir.Cast(str(x.dtype), val)

    return te.compute(shape, f, name="resize_axis%d" % axis)


def _taps(mode, antialias, width):
    if mode == "nearest":
        return []
    if not antialias:
        return [0, 1] if mode == "linear" else [-1, 0, 1, 2]
    if width is None:
        raise NotImplementedError("Resize: antialias needs the input extent at import")
    # the antialiased kernel spans 2/s (linear) or 4/s (cubic) input positions; s >= 1/width
    # for any axis that keeps a position, so 2 * width + 3 taps either side cover it
    reach = 2 * width + 3
    return list(range(-reach, reach + 1))


def resize(ctx, x, roi, scales, sizes, attrs, opset):
    """The Resize node's output (relax expression)."""
    mode = attrs.get("mode", "nearest")
    if mode not in ("nearest", "linear", "cubic"):
        raise ValueError("Resize: unknown mode %r" % mode)
    default_ctm = "asymmetric" if opset < 11 else "half_pixel"
    ctm = attrs.get("coordinate_transformation_mode", default_ctm)
    nearest_mode = attrs.get("nearest_mode", "floor" if opset < 11 else "round_prefer_floor")
    antialias = bool(attrs.get("antialias", 0)) and mode != "nearest"
    policy = attrs.get("keep_aspect_ratio_policy", "stretch")
    nd = _rank(ctx, x, "Resize")
    axes = [int(a) % nd for a in attrs.get("axes", list(range(nd)))]
    k = len(axes)
    dims = _dims(ctx, x, axes)
    dims_f = R.astype(dims, "float64")

    def length(v):
        if v is None:
            return 0
        s = ctx.static_shape(v)
        if s is None:
            raise NotImplementedError("Resize: scales/sizes of a length unknown at import")
        return s[0] if s else 0

    if length(scales) > 0:
        sc = ctx.bb.emit(R.astype(R.reshape(scales, [-1]), "float64"))
        # the reference: (scale_factors * shape).astype(int), i.e. floor
        out = R.astype(R.floor(R.multiply(sc, dims_f)), "int64")
    elif length(sizes) > 0:
        sz = R.astype(R.reshape(sizes, [-1]), "int64")
        sc = R.divide(R.astype(sz, "float64"), dims_f)
        if policy in ("not_larger", "not_smaller"):
            one = R.min(sc, 0) if policy == "not_larger" else R.max(sc, 0)
            sc = R.multiply(R.ones([k], "float64"), one)
            # round half up
            out = R.astype(R.floor(R.add(R.multiply(sc, dims_f), _f64(0.5))), "int64")
        elif policy == "stretch":
            out = sz
        else:
            raise ValueError("Resize: unknown keep_aspect_ratio_policy %r" % policy)
        sc = ctx.bb.emit(sc)
    else:
        raise ValueError("Resize: neither scales nor sizes is given")
    ns = bind_lengths(ctx, ctx.bb.emit(out), k, "resize")
    if ctm == "tf_crop_and_resize":
        if length(roi) != 2 * k:
            raise ValueError("Resize: tf_crop_and_resize needs a roi of 2 * %d values" % k)
        roi = ctx.bb.emit(R.astype(R.reshape(roi, [-1]), "float64"))
    static = ctx.static_shape(x)
    cur = x
    for j, a in enumerate(axes):
        parts = [R.take(sc, _c([j]), 0)]
        if ctm == "tf_crop_and_resize":
            parts += [R.take(roi, _c([j]), 0), R.take(roi, _c([j + k]), 0)]
        else:
            parts += [_f64([0.0]), _f64([1.0])]
        p = ctx.bb.emit(R.concat(parts, 0))
        taps = _taps(mode, antialias, static[a] if static is not None else None)
        cur = ctx.bb.emit_te(
            _resize_axis, cur, p, axis=a, out_n=ns[j], mode=mode, ctm=ctm,
            nearest_mode=nearest_mode, cubic_a=float(attrs.get("cubic_coeff_a", -0.75)),
            exclude=bool(attrs.get("exclude_outside", 0)),
            extrapolation=float(attrs.get("extrapolation_value", 0.0)), antialias=antialias,
            taps=taps, primfunc_name_hint="resize_axis")
    return cur


@register("Resize")
class Resize(Converter):
    @classmethod
    def _impl_v10(cls, ctx, inputs, attrs):
        return resize(ctx, inputs[0], None, inputs[1], None, attrs, 10)

    @classmethod
    def _impl_v11(cls, ctx, inputs, attrs):
        get = (lambda i: inputs[i] if len(inputs) > i else None)
        return resize(ctx, inputs[0], get(1), get(2), get(3), attrs, ctx.opset)


@register("Upsample")
class Upsample(Converter):
    """Upsample: Resize with asymmetric coordinates, nearest rounding down (the reference
    repeats each element scale times)."""

    @classmethod
    def _impl_v7(cls, ctx, inputs, attrs):
        scales = _f64(np.asarray(attrs["scales"], "float64"))
        return resize(ctx, inputs[0], None, scales, None, attrs, 10)

    @classmethod
    def _impl_v9(cls, ctx, inputs, attrs):
        return resize(ctx, inputs[0], None, inputs[1], None, attrs, 10)
