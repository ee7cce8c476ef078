"""Convolution (1-d / 2-d, any number of spatial dims: strides, padding, dilation, groups) in the
canonical layout: data (N, C, *spatial), weight (O, C/groups, *kernel). Padding is an explicit
stage (a reduction must be its stage's whole body), reads are clamped so that no index is ever
out of bounds."""

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
