"""NonZero (opsets 9, 13), NonMaxSuppression (10, 11) and RoiAlign (10, 16): the ops of
exported detectors (torchvision's Faster R-CNN: the RPN's and the box head's score filters,
batched NMS, MultiScaleRoIAlign), as serial TIR kernels (serial_kernels.py).

- NonZero: the indices of the non-zero elements in row-major order, [rank, count]; count is
  a run-time value (the sum of x != 0) bound to a symbolic variable before the kernel writes
  the indices with a running counter.
- NonMaxSuppression, per batch and class, greedy as onnxruntime does it: the candidates are the
  boxes whose score is > score_threshold (all when it is absent); repeatedly the
  highest-scoring live candidate (the lowest index among equal scores) is selected and every
  live candidate whose IoU with it is > iou_threshold is dropped, until
  max_output_boxes_per_class are selected (0 or absent: none). IoU is onnxruntime's: corners
  [y1, x1, y2, x2] in either order (center_point_box=0) or [x_c, y_c, w, h] (1); an empty
  intersection, an area <= 0 or a union <= 0 never suppresses. The selections are counted
  into a [batch, class] tensor whose sum, bound at run time, is the output's length;
  a second kernel writes the [batch, class, box] triples in batch, class, selection order.
- RoiAlign (avg and max), onnxruntime's algorithm: per roi the box scaled by spatial_scale
  (shifted by -0.5 with coordinate_transformation_mode half_pixel, the opset-16 default;
  output_half_pixel, opset 10's behaviour, instead makes the roi at least 1 x 1), each output
  bin sampled on a grid of sampling_ratio^2 points (0: ceil(roi extent / output extent) per
  axis, a run-time loop extent), each point bilinear with onnxruntime's edge rules (0 outside
  [-1, extent], clamped to the last row/column); avg divides the sum by the grid's size, max
  takes the largest of the four weighted corner values over all points.
"""

import numpy as np

from ... import expr as _expr
from ... import op as R
from . import serial_kernels as sk
from .converters import Converter, register
from .run_time_bounds import _rank, bind_lengths


# ---------------------------------------------------------------- NonZero

def _nonzero_func(rank, dtype):
    from .... import tir

    x = sk.buffer("x", rank, dtype)
    k = tir.Var("k", "int64")
    out = sk.buffer("out", 2, "int64", [sk.i64(rank), k])
    loc = sk.Locals()
    j = loc.new("j", "int64")

    def nest(idx, d):
        if d == rank:
            v = x[tuple(idx)]
            nz = tir.NE(v, tir.const(0, dtype)) if dtype != "bool" else v
            writes = [sk.store(out, idx[a], sk.i64(a), j[0]) for a in range(rank)]
            return sk.when(nz, sk.seq(*writes, sk.store(j, j[0] + sk.i64(1), 0)))
        return loc.loop("i%d" % d, x.shape[d], lambda v: nest(idx + [v], d + 1))
    body = loc.wrap(sk.seq(sk.store(j, sk.i64(0), 0), nest([], 0)))
    return sk.prim_func("nonzero", [x, out], body)


def nonzero(ctx, x):
    rank = _rank(ctx, x, "NonZero")
    if rank == 0:
        raise NotImplementedError("NonZero of a scalar")
    dtype = ctx.dtype_of(x)
    flag = x if dtype == "bool" else R.not_equal(x, _expr.const(np.zeros((), dtype)))
    count = ctx.bb.emit(R.reshape(R.sum(R.astype(flag, "int64")), [1]))
    k = bind_lengths(ctx, count, 1, "nonzero")[0]
    return sk.call(ctx, _nonzero_func(rank, dtype), "nonzero", [x],
                   _expr.TensorStructInfo([rank, k], "int64"))


@register("NonZero")
class NonZero(Converter):
    @classmethod
    def _impl_v9(cls, ctx, inputs, attrs):
        return nonzero(ctx, inputs[0])


# ---------------------------------------------------------------- NonMaxSuppression

def _corners(boxes, b, i, center):
    """(x_min, y_min, x_max, y_max) of box i of batch b, as onnxruntime reads them."""
    from .... import tir

    v = [boxes[b, i, sk.i64(q)] for q in range(4)]
    if center:
        hw, hh = v[2] / 2.0, v[3] / 2.0
        return v[0] - hw, v[1] - hh, v[0] + hw, v[1] + hh
    return tir.min(v[1], v[3]), tir.min(v[0], v[2]), tir.max(v[1], v[3]), tir.max(v[0], v[2])


def _suppresses(boxes, b, i, n, center, thr):
    from .... import tir

    ax0, ay0, ax1, ay1 = _corners(boxes, b, i, center)
    bx0, by0, bx1, by1 = _corners(boxes, b, n, center)
    ix0, ix1 = tir.max(ax0, bx0), tir.min(ax1, bx1)
    iy0, iy1 = tir.max(ay0, by0), tir.min(ay1, by1)
    inter = (ix1 - ix0) * (iy1 - iy0)
    area_a = (ax1 - ax0) * (ay1 - ay0)
    area_b = (bx1 - bx0) * (by1 - by0)
    union = area_a + area_b - inter
    zero = sk.f32(0.0)
    conds = [ix1 > ix0, iy1 > iy0, inter > zero, area_a > zero, area_b > zero, union > zero,
             inter / tir.Select(union > zero, union, sk.f32(1.0)) > thr]
    out = conds[0]
    for c in conds[1:]:
        out = tir.And(out, c)
    return out


def _nms_select_func(center, has_score_threshold):
    """boxes [B, N, 4], scores [B, C, N], limits (max_out int64 [1]), thresholds (iou, score
    float32 [2]) -> sel [B, C, N] (selected box indices in order), cnt [B, C], live [B, C, N]
    (scratch)."""
    from .... import tir

    nb, nn_, nc = (tir.Var(n, "int64") for n in ("B", "N", "C"))
    boxes = sk.buffer("boxes", 3, "float32", [nb, nn_, sk.i64(4)])
    scores = sk.buffer("scores", 3, "float32", [nb, nc, nn_])
    limits = sk.buffer("limits", 1, "int64", [sk.i64(1)])
    thr = sk.buffer("thresholds", 1, "float32", [sk.i64(2)])
    sel = sk.buffer("sel", 3, "int64", [nb, nc, nn_])
    cnt = sk.buffer("cnt", 2, "int64", [nb, nc])
    live = sk.buffer("live", 3, "int32", [nb, nc, nn_])
    loc = sk.Locals()
    best, best_score, done = loc.new("best", "int64"), loc.new("best_score", "float32"), loc.new("done", "int32")
    one, zero = tir.const(1, "int32"), tir.const(0, "int32")

    def per_class(b, c):
        def init(n):
            ok = scores[b, c, n] > thr[sk.i64(1)] if has_score_threshold else tir.const(True, "bool")
            return sk.store(live, tir.Select(ok, one, zero), b, c, n)

        def consider(n):
            s = scores[b, c, n]
            return sk.when(tir.EQ(live[b, c, n], one),
                           sk.when(tir.Or(best[0] < sk.i64(0), s > best_score[0]),
                                   sk.seq(sk.store(best, n, 0), sk.store(best_score, s, 0))))

        def drop(n):
            return sk.when(tir.And(tir.EQ(live[b, c, n], one),
                                   _suppresses(boxes, b, best[0], n, center, thr[sk.i64(0)])),
                           sk.store(live, zero, b, c, n))

        def step(_t):
            pick = sk.seq(sk.store(sel, best[0], b, c, cnt[b, c]),
                          sk.store(cnt, cnt[b, c] + sk.i64(1), b, c),
                          sk.store(live, zero, b, c, best[0]),
                          loc.loop("m", nn_, drop))
            return sk.when(tir.And(tir.EQ(done[0], zero), cnt[b, c] < limits[sk.i64(0)]), sk.seq(
                sk.store(best, sk.i64(-1), 0),
                sk.store(best_score, sk.f32(0.0), 0),
                loc.loop("n", nn_, consider),
                sk.when(best[0] < sk.i64(0), sk.store(done, one, 0), pick)))
        return sk.seq(loc.loop("n0", nn_, init), sk.store(cnt, sk.i64(0), b, c),
                      sk.store(done, zero, 0), loc.loop("t", nn_, step))

    body = loc.wrap(loc.loop("b", nb, lambda b: loc.loop("c", nc, lambda c: per_class(b, c))))
    return sk.prim_func("nms_select", [boxes, scores, limits, thr, sel, cnt, live], body)


def _nms_gather_func():
    """cnt [B, C], sel [B, C, N] -> out [K, 3] (batch, class, box) in order."""
    from .... import tir

    nb, nc, nn_, k = (tir.Var(n, "int64") for n in ("B", "C", "N", "K"))
    cnt = sk.buffer("cnt", 2, "int64", [nb, nc])
    sel = sk.buffer("sel", 3, "int64", [nb, nc, nn_])
    out = sk.buffer("out", 2, "int64", [k, sk.i64(3)])
    loc = sk.Locals()
    j = loc.new("j", "int64")

    def per(b, c):
        return loc.loop("t", cnt[b, c], lambda t: sk.seq(
            sk.store(out, b, j[0], sk.i64(0)), sk.store(out, c, j[0], sk.i64(1)),
            sk.store(out, sel[b, c, t], j[0], sk.i64(2)), sk.store(j, j[0] + sk.i64(1), 0)))
    body = loc.wrap(sk.seq(sk.store(j, sk.i64(0), 0),
                           loc.loop("b", nb, lambda b: loc.loop("c", nc, lambda c: per(b, c)))))
    return sk.prim_func("nms_gather", [cnt, sel, out], body)


def _scalar(ctx, v, dtype, default):
    if v is None:
        return _expr.const(np.asarray([default], dtype))
    return R.reshape(R.astype(v, dtype) if ctx.dtype_of(v) != dtype else v, [1])


def non_max_suppression(ctx, boxes, scores, max_out, iou, score_thr, center):
    for v, what in ((boxes, "boxes"), (scores, "scores")):
        if _rank(ctx, v, "NonMaxSuppression") != 3:
            raise ValueError("NonMaxSuppression: %s must be rank 3" % what)
        if ctx.dtype_of(v) != "float32":
            raise NotImplementedError("NonMaxSuppression: %s of dtype %s" % (what, ctx.dtype_of(v)))
    limits = ctx.bb.emit(_scalar(ctx, max_out, "int64", 0))
    thr = ctx.bb.emit(R.concat([_scalar(ctx, iou, "float32", 0.0),
                                _scalar(ctx, score_thr, "float32", 0.0)], 0))
    bs, ss = ctx.shape_of(boxes), ctx.shape_of(scores)
    b, n, c = bs[0], bs[1], ss[1]
    outs = ctx.bb.emit(sk.call(ctx, _nms_select_func(bool(center), score_thr is not None), "nms_select",
                               [boxes, scores, limits, thr],
                               [_expr.TensorStructInfo([b, c, n], "int64"),
                                _expr.TensorStructInfo([b, c], "int64"),
                                _expr.TensorStructInfo([b, c, n], "int32")]))
    sel, cnt = ctx.bb.emit(_expr.TupleGetItem(outs, 0)), ctx.bb.emit(_expr.TupleGetItem(outs, 1))
    total = ctx.bb.emit(R.reshape(R.sum(cnt), [1]))
    k = bind_lengths(ctx, total, 1, "nms")[0]
    return sk.call(ctx, _nms_gather_func(), "nms_gather", [cnt, sel],
                   _expr.TensorStructInfo([k, 3], "int64"))


@register("NonMaxSuppression")
class NonMaxSuppression(Converter):
    @classmethod
    def _impl_v10(cls, ctx, inputs, attrs):
        get = (lambda i: inputs[i] if len(inputs) > i else None)
        return non_max_suppression(ctx, inputs[0], inputs[1], get(2), get(3), get(4),
                                   int(attrs.get("center_point_box", 0)))


# ---------------------------------------------------------------- RoiAlign

def _roi_align_func(dtype, mode, out_h, out_w, sampling_ratio, spatial_scale, half_pixel):
    from .... import tir

    nr, nc = tir.Var("R", "int64"), tir.Var("C", "int64")
    h, w = tir.Var("H", "int64"), tir.Var("W", "int64")
    nbatch = tir.Var("N", "int64")
    x = sk.buffer("x", 4, dtype, [nbatch, nc, h, w])
    rois = sk.buffer("rois", 2, dtype, [nr, sk.i64(4)])
    bidx = sk.buffer("batch_indices", 1, "int64", [nr])
    out = sk.buffer("out", 4, dtype, [nr, nc, sk.i64(out_h), sk.i64(out_w)])
    loc = sk.Locals()
    start_h, start_w = loc.new("start_h", dtype), loc.new("start_w", dtype)
    bin_h, bin_w = loc.new("bin_h", dtype), loc.new("bin_w", dtype)
    grid_h, grid_w = loc.new("grid_h", "int64"), loc.new("grid_w", "int64")
    acc = loc.new("acc", dtype)
    first = loc.new("first", "int32")

    def c(v):
        return tir.const(float(v), dtype)

    offset = c(0.5 if half_pixel else 0.0)

    def per_roi(r):
        x0 = rois[r, sk.i64(0)] * c(spatial_scale) - offset
        y0 = rois[r, sk.i64(1)] * c(spatial_scale) - offset
        x1 = rois[r, sk.i64(2)] * c(spatial_scale) - offset
        y1 = rois[r, sk.i64(3)] * c(spatial_scale) - offset
        rw, rh = x1 - x0, y1 - y0
        if not half_pixel:
            rw, rh = tir.max(rw, c(1.0)), tir.max(rh, c(1.0))
        setup = [sk.store(start_h, y0, 0), sk.store(start_w, x0, 0),
                 sk.store(bin_h, rh / c(out_h), 0), sk.store(bin_w, rw / c(out_w), 0)]
        if sampling_ratio > 0:
            setup += [sk.store(grid_h, sk.i64(sampling_ratio), 0), sk.store(grid_w, sk.i64(sampling_ratio), 0)]
        else:
            setup += [sk.store(grid_h, tir.Cast("int64", tir.ceil(rh / c(out_h))), 0),
                      sk.store(grid_w, tir.Cast("int64", tir.ceil(rw / c(out_w))), 0)]
        n = tir.min(tir.max(bidx[r], sk.i64(0)), nbatch - sk.i64(1))  # never read out of bounds

        def cell(ch, ph, pw):
            def sample(iy, ix):
                yy = start_h[0] + tir.Cast(dtype, ph) * bin_h[0] + \
                    (tir.Cast(dtype, iy) + c(0.5)) * bin_h[0] / tir.Cast(dtype, grid_h[0])
                xx = start_w[0] + tir.Cast(dtype, pw) * bin_w[0] + \
                    (tir.Cast(dtype, ix) + c(0.5)) * bin_w[0] / tir.Cast(dtype, grid_w[0])
                hf, wf = tir.Cast(dtype, h), tir.Cast(dtype, w)
                outside = tir.Or(tir.Or(yy < c(-1.0), yy > hf), tir.Or(xx < c(-1.0), xx > wf))
                y, xq = tir.max(yy, c(0.0)), tir.max(xx, c(0.0))
                ylo, xlo = tir.Cast("int64", y), tir.Cast("int64", xq)
                ytop, xtop = ylo >= h - sk.i64(1), xlo >= w - sk.i64(1)
                ylo = tir.Select(ytop, h - sk.i64(1), ylo)
                xlo = tir.Select(xtop, w - sk.i64(1), xlo)
                yhi = tir.Select(ytop, ylo, ylo + sk.i64(1))
                xhi = tir.Select(xtop, xlo, xlo + sk.i64(1))
                ly = tir.Select(ytop, c(0.0), y - tir.Cast(dtype, ylo))
                lx = tir.Select(xtop, c(0.0), xq - tir.Cast(dtype, xlo))
                hy, hx = c(1.0) - ly, c(1.0) - lx
                # out-of-range points read row/column 0 with zero weights (in bounds)
                ylo, yhi = tir.Select(outside, sk.i64(0), ylo), tir.Select(outside, sk.i64(0), yhi)
                xlo, xhi = tir.Select(outside, sk.i64(0), xlo), tir.Select(outside, sk.i64(0), xhi)
                z = c(0.0)
                terms = [tir.Select(outside, z, hy * hx) * x[n, ch, ylo, xlo],
                         tir.Select(outside, z, hy * lx) * x[n, ch, ylo, xhi],
                         tir.Select(outside, z, ly * hx) * x[n, ch, yhi, xlo],
                         tir.Select(outside, z, ly * lx) * x[n, ch, yhi, xhi]]
                if mode == "avg":
                    return sk.store(acc, acc[0] + terms[0] + terms[1] + terms[2] + terms[3], 0)
                val = tir.max(tir.max(terms[0], terms[1]), tir.max(terms[2], terms[3]))
                return sk.seq(sk.store(acc, tir.Select(tir.EQ(first[0], tir.const(1, "int32")), val,
                                                       tir.max(acc[0], val)), 0),
                              sk.store(first, tir.const(0, "int32"), 0))
            count = tir.max(grid_h[0] * grid_w[0], sk.i64(1))
            if mode == "avg":
                result = acc[0] / tir.Cast(dtype, count)
            else:
                result = acc[0]
            return sk.seq(sk.store(acc, c(0.0), 0), sk.store(first, tir.const(1, "int32"), 0),
                          loc.loop("iy", grid_h[0], lambda iy: loc.loop("ix", grid_w[0], lambda ix: sample(iy, ix))),
                          sk.store(out, result, r, ch, ph, pw))
        return sk.seq(*setup, loc.loop("ch", nc, lambda ch: loc.loop(
            "ph", sk.i64(out_h), lambda ph: loc.loop("pw", sk.i64(out_w), lambda pw: cell(ch, ph, pw)))))

    body = loc.wrap(loc.loop("r", nr, per_roi))
    return sk.prim_func("roi_align", [x, rois, bidx, out], body)


def roi_align(ctx, x, rois, batch_indices, attrs, half_pixel):
    dtype = ctx.dtype_of(x)
    if dtype not in ("float32", "float64"):
        raise NotImplementedError("RoiAlign of %s" % dtype)
    if _rank(ctx, x, "RoiAlign") != 4:
        raise ValueError("RoiAlign: the input must be rank 4")
    mode = attrs.get("mode", "avg")
    if mode not in ("avg", "max"):
        raise ValueError("RoiAlign: unknown mode %r" % mode)
    out_h, out_w = int(attrs.get("output_height", 1)), int(attrs.get("output_width", 1))
    if ctx.dtype_of(rois) != dtype:
        rois = ctx.bb.emit(R.astype(rois, dtype))
    if ctx.dtype_of(batch_indices) != "int64":
        batch_indices = ctx.bb.emit(R.astype(batch_indices, "int64"))
    func = _roi_align_func(dtype, mode, out_h, out_w, int(attrs.get("sampling_ratio", 0)),
                           float(attrs.get("spatial_scale", 1.0)), half_pixel)
    xs, rs = ctx.shape_of(x), ctx.shape_of(rois)
    return sk.call(ctx, func, "roi_align", [x, rois, batch_indices],
                   _expr.TensorStructInfo([rs[0], xs[1], out_h, out_w], dtype))


@register("RoiAlign")
class RoiAlign(Converter):
    @classmethod
    def _impl_v10(cls, ctx, inputs, attrs):
        return roi_align(ctx, inputs[0], inputs[1], inputs[2], attrs, False)

    @classmethod
    def _impl_v16(cls, ctx, inputs, attrs):
        ctm = attrs.get("coordinate_transformation_mode", "half_pixel")
        if ctm not in ("half_pixel", "output_half_pixel"):
            raise ValueError("RoiAlign: unknown coordinate_transformation_mode %r" % ctm)
        return roi_align(ctx, inputs[0], inputs[1], inputs[2], attrs, ctm == "half_pixel")
