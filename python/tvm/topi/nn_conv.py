"""Convolution (1-d / 2-d, any number of spatial dims: strides, padding, dilation, groups) in the
canonical layout: data (N, C, *spatial), weight (O, C/groups, *kernel). Padding is an explicit
stage (a reduction must be its stage's whole body), reads are clamped so that no index is ever
out of bounds."""

import numpy as np

from .. import te, tir
from ..tir import expr as _e
from ._layout import all_of, clamp, i64, in_range
from ._util import const_int


def pad_constant(x, before, after, value=0.0, name="pad"):
    """`x` padded with `value` (`before`/`after` per dimension); `x` itself when no padding."""
    if all(const_int(p) == 0 for p in list(before) + list(after)):
        return x
    nd = len(x.shape)
    shape = [x.shape[k] + before[k] + after[k] for k in range(nd)]
    fill = _e.const(value, str(x.dtype))

    def f(*i):
        src = [i64(i[k]) - before[k] for k in range(nd)]
        ok = all_of([in_range(src[k], 0, x.shape[k]) for k in range(nd) if before[k] or after[k]])
        safe = [clamp(src[k], 0, i64(x.shape[k]) - 1) if (before[k] or after[k]) else i[k] for k in range(nd)]
        return tir.if_then_else(ok, x[tuple(safe)], fill)
    return te.compute(shape, f, name=name)


def conv(data, weight, strides, padding, dilation, groups=1, out_dtype=None):
    """N-d convolution, NC<spatial> x OI<kernel>; padding = (before..., after...)."""
    nsp = len(data.shape) - 2
    strides, dilation = list(strides), list(dilation)
    pb, pa = list(padding[:nsp]), list(padding[nsp:])
    out_dtype = out_dtype or str(data.dtype)
    padded = pad_constant(data, [0, 0] + pb, [0, 0] + pa, 0.0, name="conv_pad")
    n, c = data.shape[0], data.shape[1]
    o, ipg = weight.shape[0], weight.shape[1]
    ks = list(weight.shape[2:])
    out_sp = []
    for k in range(nsp):
        eff = (i64(ks[k]) - 1) * dilation[k] + 1
        out_sp.append((i64(data.shape[2 + k]) + pb[k] + pa[k] - eff) // strides[k] + 1)
    rc = te.reduce_axis((0, ipg), "rc")
    rk = [te.reduce_axis((0, ks[k]), "rk%d" % k) for k in range(nsp)]
    opg = None if groups == 1 else i64(o) // groups

    def f(nn, oo, *ys):
        ch = rc if groups == 1 else (oo // opg) * i64(ipg) + rc
        idx = [nn, ch] + [ys[k] * strides[k] + rk[k] * dilation[k] for k in range(nsp)]
        a, b = padded[tuple(idx)], weight[tuple([oo, rc] + rk)]
        if str(a.dtype) != out_dtype:
            a, b = tir.cast(a, out_dtype), tir.cast(b, out_dtype)
        return te.sum(a * b, axis=[rc] + rk)
    del c
    return te.compute([n, o] + out_sp, f, name="conv%dd" % nsp)


def pad_channels_last(data, layout, before, after, name="conv_pad_nhwc", channels_to=None):
    """`data` (in `layout`, e.g. "NCHW") as a zero-padded channels-last tensor (N, *spatial, C)
    in ONE stage: the layout change rides on the padding copy the convolution needs anyway.
    `channels_to` (static, >= C): zero channels appended up to that count."""
    nsp = len(data.shape) - 2
    canon = "N" + "".join(layout[2:]) + "C" if layout[1] == "C" else layout
    perm = [layout.index(ch) for ch in canon]  # output axis k reads input axis perm[k]
    src_shape = [data.shape[p] for p in perm]
    extra = 0 if channels_to is None else int(channels_to) - int(const_int(src_shape[-1]))
    shape = [src_shape[0]] + [src_shape[1 + k] + before[k] + after[k] for k in range(nsp)] + \
        [src_shape[-1] + extra if extra else src_shape[-1]]
    zero = _e.const(0.0, str(data.dtype))
    padded_axes = [k for k in range(nsp) if const_int(before[k]) != 0 or const_int(after[k]) != 0]

    def f(*i):
        idx = [None] * len(perm)
        conds = []
        if extra:
            conds.append(i64(i[-1]) < i64(src_shape[-1]))
        for k, p in enumerate(perm):
            if 1 <= k <= nsp and (k - 1) in padded_axes:
                s = i64(i[k]) - before[k - 1]
                conds.append(in_range(s, 0, data.shape[p]))
                idx[p] = clamp(s, 0, i64(data.shape[p]) - 1)
            elif 1 <= k <= nsp:
                idx[p] = i64(i[k]) - before[k - 1]
            elif k == len(perm) - 1 and extra:
                idx[p] = clamp(i64(i[k]), 0, i64(src_shape[-1]) - 1)
            else:
                idx[p] = i[k]
        v = data[tuple(idx)]
        return tir.if_then_else(all_of(conds), v, zero) if conds else v
    return te.compute(shape, f, name=name)


def conv_channels_last(padded, weight, strides, dilation, out_dtype=None):
    """Convolution of a padded channels-last input (N, *spatial, C) with a (*kernel, C, O)
    weight (HWIO), groups = 1; output (N, *out_spatial, O). The output channel is the innermost
    axis, so a register tile over (last spatial, O) reads the weight as contiguous vectors and
    the input as scalars: the matmul micro-kernel (DefaultSchedule's tile rule)."""
    nsp = len(padded.shape) - 2
    ks = list(weight.shape[:nsp])
    out_dtype = out_dtype or str(padded.dtype)
    out_sp = [(i64(padded.shape[1 + k]) - ((i64(ks[k]) - 1) * dilation[k] + 1)) // strides[k] + 1
              for k in range(nsp)]
    rk = [te.reduce_axis((0, ks[k]), "rk%d" % k) for k in range(nsp)]
    rc = te.reduce_axis((0, weight.shape[nsp]), "rc")

    def f(nn, *rest):
        ys, oo = rest[:nsp], rest[nsp]
        a = padded[tuple([nn] + [ys[k] * strides[k] + rk[k] * dilation[k] for k in range(nsp)] + [rc])]
        b = weight[tuple(rk + [rc, oo])]
        if str(a.dtype) != out_dtype:
            a, b = tir.cast(a, out_dtype), tir.cast(b, out_dtype)
        return te.sum(a * b, axis=rk + [rc])
    return te.compute([padded.shape[0]] + out_sp + [weight.shape[nsp + 1]], f, name="conv%dd_nhwc" % nsp)


def _pixel_coords(p, out_spatial):
    """The output coordinates of flattened pixel `p` (the last axis fastest); pixels past the
    last one (the tile's padding) read the last pixel again, so every index stays in bounds."""
    npix = 1
    for e in out_spatial:
        npix *= int(e)
    rest, ys = tir.min(i64(p), i64(npix - 1)), []
    for k in range(len(out_spatial) - 1, -1, -1):
        e = int(out_spatial[k])
        ys.insert(0, rest % e if k else rest)
        rest = rest // e
    return ys


def _pixel_index(ys, dims):
    """The flattened pixel of output coordinates `ys` (the inverse of _pixel_coords)."""
    p = i64(0)
    for k, y in enumerate(ys):
        p = p * dims[k] + i64(y)
    return p


def conv_pixels_last(padded, weight, out_spatial, strides, dilation, pixels, out_dtype=None):
    """The channels-last convolution (see conv_channels_last) as a product over flattened
    output pixels: output (N, pixels, O_w) where `pixels` >= prod(out_spatial) and O_w is the
    weight's (padded) output-channel count. Rows past the last pixel read the last pixel
    again and weight columns past the real O are zeros: the register tile then divides both
    extents exactly and its loops carry no predicate (a predicated tile is not vectorized).
    `out_spatial` must be static; conv_pixels_unflatten takes the real part back.

    The weight is (*kernel, I, O_w), or packed for the register tile's `cols` output columns
    as (O_w / cols, *kernel, I, cols) (pack_conv_weight): a tile then reads its weights as one
    contiguous stream along the reduction, where the unpacked form reads one cache line per
    reduction step, each O_w floats from the last (a 512-channel 3x3 layer touched 4608 lines
    on 2304 pages per tile: TLB misses, 30-40 GFLOP/s)."""
    nsp = len(padded.shape) - 2
    packed = len(weight.shape) == nsp + 3
    ks = list(weight.shape[1:nsp + 1] if packed else weight.shape[:nsp])
    out_dtype = out_dtype or str(padded.dtype)
    rk = [te.reduce_axis((0, ks[k]), "rk%d" % k) for k in range(nsp)]
    rc = te.reduce_axis((0, weight.shape[nsp + 1] if packed else weight.shape[nsp]), "rc")
    cols = weight.shape[-1]
    o_w = weight.shape[0] * cols if packed else weight.shape[nsp + 1]

    def f(nn, p, oo):
        ys = _pixel_coords(p, out_spatial)
        a = padded[tuple([nn] + [ys[k] * strides[k] + rk[k] * dilation[k] for k in range(nsp)] + [rc])]
        b = weight[tuple([oo // cols] + rk + [rc, oo % cols])] if packed else weight[tuple(rk + [rc, oo])]
        if str(a.dtype) != out_dtype:
            a, b = tir.cast(a, out_dtype), tir.cast(b, out_dtype)
        return te.sum(a * b, axis=rk + [rc])
    return te.compute([padded.shape[0], i64(pixels), o_w], f, name="conv%dd_pixels" % nsp)


def pack_conv_weight(w, cols):
    """numpy (*kernel, I, O) -> (O / cols, *kernel, I, cols); O must be a multiple of cols."""
    nsp = w.ndim - 2
    split = w.reshape(w.shape[:-1] + (w.shape[-1] // cols, cols))
    return np.ascontiguousarray(split.transpose([nsp + 1] + list(range(nsp + 1)) + [nsp + 2]))


def conv_pixels_unflatten(out, out_spatial, channels):
    """(N, *out_spatial, channels) from conv_pixels_last's (N, pixels, O_w) output."""
    dims = [int(e) for e in out_spatial]

    def f(nn, *rest):
        return out[nn, _pixel_index(rest[:-1], dims), rest[-1]]
    return te.compute([out.shape[0]] + [i64(d) for d in dims] + [i64(channels)], f, name="conv_unflatten")


def depthwise_pixels_last(padded, weight, out_spatial, strides, dilation, pixels, out_dtype=None):
    """A depthwise convolution (groups = channels, one filter each) of a padded channels-last
    input (N, *spatial, C) with a (*kernel, C_w) weight, C_w >= C padded with zero filters, as
    (N, pixels, C_w) over flattened output pixels like conv_pixels_last. The channel is the
    innermost axis of input, weight and output, so the register tile over (pixels, channels)
    loads all three as contiguous vectors. The input's channels are padded like the weight's
    (pad_channels_last's channels_to), so no index is clamped in the tile."""
    nsp = len(padded.shape) - 2
    ks = list(weight.shape[:nsp])
    out_dtype = out_dtype or str(padded.dtype)
    rk = [te.reduce_axis((0, ks[k]), "rk%d" % k) for k in range(nsp)]

    def f(nn, p, oo):
        ys = _pixel_coords(p, out_spatial)
        a = padded[tuple([nn] + [ys[k] * strides[k] + rk[k] * dilation[k] for k in range(nsp)] + [oo])]
        b = weight[tuple(rk + [oo])]
        if str(a.dtype) != out_dtype:
            a, b = tir.cast(a, out_dtype), tir.cast(b, out_dtype)
        return te.sum(a * b, axis=rk)
    return te.compute([padded.shape[0], i64(pixels), weight.shape[nsp]], f, name="depthwise%dd_pixels" % nsp)


def grouped_pixels_last(padded, weight, out_spatial, strides, dilation, pixels, out_dtype=None):
    """A grouped convolution of a padded channels-last input (N, *spatial, G * I) with a
    (G, *kernel, I, O_w) weight (O_w >= O / G per group, padded with zero filters), as
    (N, G, pixels, O_w) over flattened output pixels like conv_pixels_last: each group is a
    product over pixels x its own output channels, the group an outer axis, so the register
    tile runs over pixels x channels of one group with that group's weights (I x O_w) in
    cache for all its pixels. (With the group inside the pixel, the tile's rows were the 4
    groups of one pixel: every pixel re-read every weight.) conv_groups_unflatten takes the
    real channels back."""
    nsp = len(padded.shape) - 2
    ks = list(weight.shape[1:1 + nsp])
    ipg = weight.shape[1 + nsp]
    out_dtype = out_dtype or str(padded.dtype)
    rk = [te.reduce_axis((0, ks[k]), "rk%d" % k) for k in range(nsp)]
    rc = te.reduce_axis((0, ipg), "rc")

    def f(nn, g, p, oo):
        ys = _pixel_coords(p, out_spatial)
        ch = i64(g) * i64(ipg) + rc
        a = padded[tuple([nn] + [ys[k] * strides[k] + rk[k] * dilation[k] for k in range(nsp)] + [ch])]
        b = weight[tuple([g] + rk + [rc, oo])]
        if str(a.dtype) != out_dtype:
            a, b = tir.cast(a, out_dtype), tir.cast(b, out_dtype)
        return te.sum(a * b, axis=rk + [rc])
    return te.compute([padded.shape[0], weight.shape[0], i64(pixels), weight.shape[nsp + 2]], f,
                      name="grouped%dd_pixels" % nsp)


def conv_groups_unflatten(out, out_spatial, groups, per_group):
    """(N, *out_spatial, groups * per_group) from grouped_pixels_last's (N, G, pixels, O_w)."""
    dims = [int(e) for e in out_spatial]

    def f(nn, *rest):
        oo = i64(rest[-1])
        return out[nn, oo // per_group, _pixel_index(rest[:-1], dims), oo % per_group]
    return te.compute([out.shape[0]] + [i64(d) for d in dims] + [i64(groups * per_group)], f,
                      name="conv_unflatten")
