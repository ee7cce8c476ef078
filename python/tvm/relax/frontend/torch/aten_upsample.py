"""ATen converters for F.interpolate's 2-d modes: upsample_bilinear2d and upsample_nearest2d
(.vec: output_size or scale_factors; .default: output_size with optional scales), the
upsampling of segmentation heads (DeepLabV3, FCN) and FPNs.

Torch's index mapping (aten/src/ATen/native/UpSample.h), per axis with input extent `n_in`
and output extent `n_out`:
- the scale is 1 / scale_factor when a scale factor is given, else n_in / n_out;
  align_corners=True uses (n_in - 1) / (n_out - 1) (0 when n_out == 1) instead;
- bilinear: src = scale * (dst + 0.5) - 0.5 clamped at 0 (align_corners: scale * dst);
  i0 = floor(src), i1 = min(i0 + 1, n_in - 1), weights 1 - (src - i0) and src - i0;
- nearest: src = min(floor(dst * scale), n_in - 1).
The output extents are torch's own (the node's meta: ints or symbolic expressions). One TE
kernel reads the input at the two (bilinear: four) source positions; the coordinates are
computed in float32, as torch's CPU kernel does for float32 input.
"""

from .aten_registry import register


def _upsample(x, *, out_h, out_w, mode, align_corners, scale_h, scale_w):
    from .... import te, tir

    n, c, h, w = x.shape
    f32 = "float32"

    def axis_scale(n_in, n_out, factor):
        fi, fo = tir.Cast(f32, n_in), tir.Cast(f32, n_out)
        if align_corners:
            return tir.Select(n_out > 1, (fi - 1.0) / (fo - 1.0), tir.const(0.0, f32))
        if factor is not None:
            return tir.const(1.0 / float(factor), f32)
        return fi / fo

    sh, sw = axis_scale(h, out_h, scale_h), axis_scale(w, out_w, scale_w)

    def clamp(i, n_in):
        return tir.min(tir.max(i, tir.const(0, i.dtype)), n_in - 1)

    def f(b, ch, y, xx):
        if mode == "nearest":
            iy = clamp(tir.Cast(str(y.dtype), tir.floor(tir.Cast(f32, y) * sh)), h)
            ix = clamp(tir.Cast(str(xx.dtype), tir.floor(tir.Cast(f32, xx) * sw)), w)
            return x[b, ch, iy, ix]

        def src(d, s):
            if align_corners:
                return s * tir.Cast(f32, d)
            return tir.max(s * (tir.Cast(f32, d) + 0.5) - 0.5, tir.const(0.0, f32))
        ry, rx = src(y, sh), src(xx, sw)
        y0 = clamp(tir.Cast(str(y.dtype), tir.floor(ry)), h)
        x0 = clamp(tir.Cast(str(xx.dtype), tir.floor(rx)), w)
        y1, x1 = clamp(y0 + 1, h), clamp(x0 + 1, w)
        ly, lx = ry - tir.Cast(f32, y0), rx - tir.Cast(f32, x0)
        hy, hx = 1.0 - ly, 1.0 - lx

        def at(i, j):
            return tir.Cast(f32, x[b, ch, i, j])
        val = hy * (hx * at(y0, x0) + lx * at(y0, x1)) + ly * (hx * at(y1, x0) + lx * at(y1, x1))
        return tir.Cast(str(x.dtype), val)

    return te.compute((n, c, out_h, out_w), f, name="upsample_" + mode)


def _convert(ctx, mode, scales):
    a = ctx.args
    x = a.get("input", a.get("self"))
    if ctx.ndim(x) != 4:
        raise NotImplementedError("upsample_%s2d of a rank-%d input" % (mode, ctx.ndim(x)))
    if ctx.dtype(x) != "float32":
        raise NotImplementedError("upsample_%s2d of %s" % (mode, ctx.dtype(x)))
    from .... import tir

    out = [tir.IntImm("int64", d) if isinstance(d, int) else d for d in ctx.out_shape()]
    sh, sw = scales if scales is not None else (None, None)
    return ctx.bb.emit_te(_upsample, x, out_h=out[2], out_w=out[3], mode=mode,
                          align_corners=bool(a.get("align_corners", False)), scale_h=sh, scale_w=sw,
                          primfunc_name_hint="upsample_" + mode)


def _vec_scales(a):
    s = a.get("scale_factors")
    if s is None or a.get("output_size") is not None:
        return None
    s = [float(v) for v in s]
    return s * 2 if len(s) == 1 else s


@register("aten.upsample_bilinear2d.vec")
def _bilinear_vec(ctx):
    return _convert(ctx, "bilinear", _vec_scales(ctx.args))


@register("aten.upsample_nearest2d.vec")
def _nearest_vec(ctx):
    return _convert(ctx, "nearest", _vec_scales(ctx.args))


def _default_scales(a):
    sh, sw = a.get("scales_h"), a.get("scales_w")
    return None if sh is None and sw is None else (sh, sw)


@register("aten.upsample_bilinear2d.default")
def _bilinear(ctx):
    return _convert(ctx, "bilinear", _default_scales(ctx.args))


@register("aten.upsample_nearest2d.default")
def _nearest(ctx):
    return _convert(ctx, "nearest", _default_scales(ctx.args))
