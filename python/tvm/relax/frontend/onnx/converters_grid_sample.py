"""GridSample (opsets 16, 20, 22): 2-d and 3-d (volumetric), nearest / (bi)linear /
(bi)cubic, padding zeros / border / reflection, align_corners, as one TE kernel following
onnx's reference (onnx/reference/ops/op_grid_sample.py) step by step:

- the grid's last axis holds the coordinates in reverse order (x for the last spatial
  axis first), denormalized per axis: (g + 1) / 2 * (d - 1) with align_corners, else
  ((g + 1) * d - 1) / 2 (in the grid's type, as the reference's float32 array);
- nearest rounds half to even first; a coordinate outside [-0.5, d - 0.5] ([0, d - 1] with
  align_corners) is clamped into [0, d - 1] (border) or reflected at those bounds;
- the value is separable: taps floor(x) .. +1 (linear) or -1 .. +2 (cubic, Keys' kernel
  with A = -0.75), and each tap's pixel is 0 outside (zeros), clamped (border), or its index
  reflected and truncated (reflection)."""

from .converters import Converter, register

_MODES = {"bilinear": "linear", "linear": "linear", "bicubic": "cubic", "cubic": "cubic",
          "nearest": "nearest"}


def _grid_sample(x, grid, *, mode, padding, align):
    from .... import te, tir

    nsp = len(x.shape) - 2
    gdt = str(grid.dtype)
    dims = list(x.shape[2:])

    def c(v):
        return tir.const(v, gdt)

    def rint(v):
        f = tir.floor(v)
        d = v - f
        odd = tir.floormod(f, c(2.0))
        return tir.Select(d > c(0.5), f + c(1.0),
                          tir.Select(d < c(0.5), f, f + odd))

    def reflect(v, lo, hi):
        rng = hi - lo
        below, above = lo - v, v - hi
        dx = tir.Select(v < lo, below, above)
        n = tir.floor(dx / rng)
        r = dx - n * rng
        even = tir.EQ(tir.floormod(n, c(2.0)), c(0.0))
        from_lo = tir.Select(even, lo + r, hi - r)
        from_hi = tir.Select(even, hi - r, lo + r)
        return tir.Select(v < lo, from_lo, tir.Select(v > hi, from_hi, v))

    def bounds(i):
        d = tir.Cast(gdt, dims[i])
        return (c(0.0), d - c(1.0)) if align else (c(-0.5), d - c(0.5))

    def keys(t):
        a = -0.75
        t = tir.abs(t)
        return [((a * (t + 1) - 5 * a) * (t + 1) + 8 * a) * (t + 1) - 4 * a,
                ((a + 2) * t - (a + 3)) * t * t + 1,
                ((a + 2) * (1 - t) - (a + 3)) * (1 - t) * (1 - t) + 1,
                ((a * (2 - t) - 5 * a) * (2 - t) + 8 * a) * (2 - t) - 4 * a]

    def f(n, ch, *o):
        coords = []
        for i in range(nsp):
            g = grid[(n,) + tuple(o) + (nsp - 1 - i,)]
            d = tir.Cast(gdt, dims[i])
            v = (g + c(1.0)) / c(2.0) * (d - c(1.0)) if align else ((g + c(1.0)) * d - c(1.0)) / c(2.0)
            if mode == "nearest":
                v = rint(v)
            lo, hi = bounds(i)
            if padding == "border":
                v = tir.Select(tir.Or(v < lo, v > hi), tir.max(tir.min(v, d - c(1.0)), c(0.0)), v)
            elif padding == "reflection":
                v = reflect(v, lo, hi)
            coords.append(v)

        def pixel(idx):
            """x at integer positions idx (int64), with the padding rule; (value, inside)."""
            ok, src = [], []
            for i, k in enumerate(idx):
                last = dims[i] - 1
                if padding == "zeros":
                    ok.append(tir.And(k >= 0, k <= last))
                    src.append(tir.max(tir.min(k, last), tir.const(0, "int64")))
                elif padding == "border":
                    src.append(tir.max(tir.min(k, last), tir.const(0, "int64")))
                else:
                    lo, hi = bounds(i)
                    r = tir.Cast("int64", reflect(tir.Cast(gdt, k), lo, hi))  # int(): truncates
                    src.append(tir.max(tir.min(r, last), tir.const(0, "int64")))
            val = x[(n, ch) + tuple(src)]
            if ok:
                val = tir.Select(tir.all(*ok), val, tir.const(0, str(x.dtype)))
            return val

        if mode == "nearest":
            return pixel([tir.Cast("int64", v) for v in coords])
        taps = [0, 1] if mode == "linear" else [-1, 0, 1, 2]
        weights, bases = [], []
        for v in coords:
            x0 = tir.floor(v)
            t = v - x0
            weights.append([c(1.0) - t, t] if mode == "linear" else keys(t))
            bases.append(tir.Cast("int64", x0))
        total = None

        def visit(i, idx, w):
            nonlocal total
            if i == nsp:
                term = w * tir.Cast(gdt, pixel(idx))
                total = term if total is None else total + term
                return
            for j, k in enumerate(taps):
                visit(i + 1, idx + [bases[i] + k], weights[i][j] if w is None else w * weights[i][j])
        visit(0, [], None)
        return tir.Cast(str(x.dtype), total)

    shape = [x.shape[0], x.shape[1]] + list(grid.shape[1:-1])
    return te.compute(shape, f, name="grid_sample")


@register("GridSample")
class GridSample(Converter):
    @classmethod
    def _impl_v16(cls, ctx, inputs, attrs):
        x, grid = inputs
        mode = _MODES.get(attrs.get("mode", "bilinear" if ctx.opset < 20 else "linear"))
        padding = attrs.get("padding_mode", "zeros")
        if mode is None or padding not in ("zeros", "border", "reflection"):
            raise ValueError("GridSample: mode %r, padding_mode %r"
                             % (attrs.get("mode"), padding))
        xs = ctx.shape_of(x)
        if xs is None or len(xs) not in (4, 5):
            raise NotImplementedError("GridSample: inputs of rank 4 or 5 only")
        return ctx.bb.emit_te(_grid_sample, x, grid, mode=mode, padding=padding,
                              align=bool(attrs.get("align_corners", 0)),
                              primfunc_name_hint="grid_sample")
