"""Pooling in the canonical layout (N, C, *spatial): max / average pooling with strides, padding,
dilation, ceil_mode and count_include_pad (TVM's semantics: ceil_mode adds stride-1 to the
padded extent; the average's divisor counts the window's taps inside the input, or inside the
padded input when count_include_pad), adaptive average pooling. Reductions are stages of their
own; padded taps are never read (the reductions' where=)."""

from .. import te, tir
from ..tir import expr as _e
from ._layout import all_of, clamp, i64, in_range
from ._util import const_int


def _out_extent(n, k, s, d, pb, pa, ceil_mode):
    num = i64(n) + pb + pa - ((k - 1) * d + 1)
    if ceil_mode:
        num = num + (s - 1)
    return num // s + 1


class _Axes:
    """Where the channels are: (N, C, *spatial), or (N, *spatial, C) when channels_last (the
    layout ConvertLayout gives CNNs). Kernels are written for (nn, cc, ys) and laid out here."""

    def __init__(self, data, channels_last):
        self.last = channels_last
        shape = list(data.shape)
        self.nc = [shape[0], shape[-1]] if channels_last else shape[:2]
        self.sp = shape[1:-1] if channels_last else shape[2:]

    def shape(self, out_sp):
        return [self.nc[0]] + list(out_sp) + [self.nc[1]] if self.last else self.nc + list(out_sp)

    def index(self, nn, cc, ys):
        return tuple([nn] + list(ys) + [cc]) if self.last else tuple([nn, cc] + list(ys))

    def kernel(self, f):
        """f(nn, cc, *ys) as a compute body taking the output's indices in this layout."""
        if self.last:
            return lambda nn, *rest: f(nn, rest[-1], *rest[:-1])
        return f


def pool(data, kind, pool_size, strides, padding, dilation, ceil_mode=False, count_include_pad=False,
         channels_last=False):
    ax = _Axes(data, channels_last)
    nsp = len(data.shape) - 2
    pb, pa = list(padding[:nsp]), list(padding[nsp:])
    sp = ax.sp
    out_sp = [_out_extent(sp[k], pool_size[k], strides[k], dilation[k], pb[k], pa[k], ceil_mode)
              for k in range(nsp)]
    shape = ax.shape(out_sp)

    def taps(ys, rk):
        return [i64(ys[k]) * strides[k] + i64(rk[k]) * dilation[k] - pb[k] for k in range(nsp)]

    def read(nn, cc, pos):
        return data[ax.index(nn, cc, [clamp(pos[k], 0, i64(sp[k]) - 1) for k in range(nsp)])]

    rk = [te.reduce_axis((0, pool_size[k]), "rk%d" % k) for k in range(nsp)]
    if kind == "max":
        def fmax(nn, cc, *ys):
            pos = taps(ys, rk)
            return te.max(read(nn, cc, pos), axis=rk,
                          where=all_of([in_range(pos[k], 0, sp[k]) for k in range(nsp)]))
        return te.compute(shape, ax.kernel(fmax), name="max_pool")

    def fsum(nn, cc, *ys):
        pos = taps(ys, rk)
        return te.sum(read(nn, cc, pos), axis=rk, where=all_of([in_range(pos[k], 0, sp[k]) for k in range(nsp)]))
    total = te.compute(shape, ax.kernel(fsum), name="avg_pool_sum")
    dt = str(data.dtype)

    def count(ys):
        # The divisor in closed form (no reduction stage: it was a kernel of its own, a third
        # of a small pool's code): per axis, the taps r in [0, K) whose position
        # y*s + r*d - pb lies in [lo, hi), i.e. ceil((lo - base) / d) <= r < ceil((hi - base) / d).
        total_taps = None
        for k in range(nsp):
            lo, hi = (-pb[k], i64(sp[k]) + pa[k]) if count_include_pad else (0, i64(sp[k]))
            base = i64(ys[k]) * strides[k] - pb[k]
            d = dilation[k]
            first = tir.max((lo - base + (d - 1)) // d, i64(0))
            end = tir.min((hi - base + (d - 1)) // d, i64(pool_size[k]))
            taps_k = tir.max(end - first, i64(0))
            total_taps = taps_k if total_taps is None else total_taps * taps_k
        return total_taps

    return te.compute(shape, ax.kernel(lambda nn, cc, *ys: total[ax.index(nn, cc, ys)] / tir.cast(count(ys), dt)),
                      name="avg_pool")


def adaptive_avg_pool(data, output_size, channels_last=False):
    """Window o of an axis of length n into m outputs: [floor(o*n/m), ceil((o+1)*n/m))."""
    ax = _Axes(data, channels_last)
    nsp = len(data.shape) - 2
    sp = ax.sp
    out = [sp[k] if output_size is None or output_size[k] is None else output_size[k] for k in range(nsp)]

    def start(o, n, m):
        return (i64(o) * i64(n)) // i64(m)

    def end(o, n, m):
        return ((i64(o) + 1) * i64(n) + i64(m) - 1) // i64(m)
    widths = []
    for k in range(nsp):
        n, m = const_int(sp[k]), const_int(out[k])
        if n is not None and m is not None:
            widths.append(max(-(-(o + 1) * n // m) - (o * n) // m for o in range(m)))
        else:
            widths.append((i64(sp[k]) + i64(out[k]) - 1) // i64(out[k]) + 1)
    rk = [te.reduce_axis((0, widths[k]), "rk%d" % k) for k in range(nsp)]

    def fsum(nn, cc, *ys):
        pos = [start(ys[k], sp[k], out[k]) + i64(rk[k]) for k in range(nsp)]
        ok = all_of([pos[k] < end(ys[k], sp[k], out[k]) for k in range(nsp)])
        return te.sum(data[ax.index(nn, cc, [clamp(pos[k], 0, i64(sp[k]) - 1) for k in range(nsp)])], axis=rk, where=ok)
    shape = ax.shape([i64(o) for o in out])
    total = te.compute(shape, ax.kernel(fsum), name="adaptive_pool_sum")
    dt = str(data.dtype)

    def favg(nn, cc, *ys):
        cnt = None
        for k in range(nsp):
            w = end(ys[k], sp[k], out[k]) - start(ys[k], sp[k], out[k])
            cnt = w if cnt is None else cnt * w
        return total[ax.index(nn, cc, ys)] / tir.cast(cnt, dt)
    return te.compute(shape, ax.kernel(favg), name="adaptive_avg_pool")
