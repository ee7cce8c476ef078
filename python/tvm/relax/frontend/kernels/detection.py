"""Serial TIR kernels of the detector ops, shared by the ONNX frontend (NonZero,
NonMaxSuppression, RoiAlign: onnx/converters_detection.py) and the torch frontend
(aten.nonzero, torchvision.nms, torchvision.roi_align: torch/aten_detection.py). Each
builder returns a PrimFunc (destination-passing style, symbolic extents of its own) that
the converters call with serial.call; the algorithms are described where the converters
are (the ONNX module's docstring, the torch module's).

- nonzero_func: the indices of the non-zero elements, [rank, count], row-major order.
- nms_select_func / nms_gather_func: greedy suppression per batch and class (highest live
  score first, the lowest index among equal scores), then the selections in order.
- roi_align_func: RoiAlign avg/max with onnxruntime's and torchvision's sampling (the two
  agree: half_pixel is torchvision's aligned=True).
"""

from . import serial as sk


def nonzero_func(rank, dtype):
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


def _corners(boxes, b, i, center):
    """(x_min, y_min, x_max, y_max) of box i of batch b, as onnxruntime reads them."""
    from .... import tir

    v = [boxes[b, i, sk.i64(q)] for q in range(4)]
    if center:
        hw, hh = v[2] / 2.0, v[3] / 2.0
        return v[0] - hw, v[1] - hh, v[0] + hw, v[1] + hh
    return tir.min(v[1], v[3]), tir.min(v[0], v[2]), tir.max(v[1], v[3]), tir.max(v[0], v[2])


def _suppresses(boxes, b, i, n, rule, thr):
    """Whether selected box i suppresses box n: IoU > thr (thr float64; the IoU is computed
    in float32, as onnxruntime and torchvision do, and compared exactly)."""
    from .... import tir

    zero = sk.f32(0.0)
    if rule == "torchvision":
        # torchvision's CPU kernel: corners (x1, y1, x2, y2) as given, the overlap clamped at
        # 0, ovr = inter / (area_i + area_n - inter) in float32; IEEE division: 0 / 0 never
        # suppresses, x / 0 (x > 0) always does
        a = [boxes[b, i, sk.i64(q)] for q in range(4)]
        o = [boxes[b, n, sk.i64(q)] for q in range(4)]
        w = tir.max(tir.min(a[2], o[2]) - tir.max(a[0], o[0]), zero)
        h = tir.max(tir.min(a[3], o[3]) - tir.max(a[1], o[1]), zero)
        inter = w * h
        union = (a[2] - a[0]) * (a[3] - a[1]) + (o[2] - o[0]) * (o[3] - o[1]) - inter
        nz = tir.NE(union, zero)
        ovr = tir.Cast("float64", inter / tir.Select(nz, union, sk.f32(1.0)))
        return tir.Select(nz, ovr > thr, inter > zero)
    center = rule == "onnx_center"
    ax0, ay0, ax1, ay1 = _corners(boxes, b, i, center)
    bx0, by0, bx1, by1 = _corners(boxes, b, n, center)
    ix0, ix1 = tir.max(ax0, bx0), tir.min(ax1, bx1)
    iy0, iy1 = tir.max(ay0, by0), tir.min(ay1, by1)
    inter = (ix1 - ix0) * (iy1 - iy0)
    area_a = (ax1 - ax0) * (ay1 - ay0)
    area_b = (bx1 - bx0) * (by1 - by0)
    union = area_a + area_b - inter
    conds = [ix1 > ix0, iy1 > iy0, inter > zero, area_a > zero, area_b > zero, union > zero,
             tir.Cast("float64", inter / tir.Select(union > zero, union, sk.f32(1.0))) > thr]
    out = conds[0]
    for c in conds[1:]:
        out = tir.And(out, c)
    return out


def nms_select_func(rule, has_score_threshold):
    """boxes [B, N, 4], scores [B, C, N], limits (max_out int64 [1]), thresholds (iou, score
    float64 [2]) -> sel [B, C, N] (selected box indices in order), cnt [B, C], live [B, C, N]
    (scratch). rule: "onnx" (corners [y1, x1, y2, x2] in either order), "onnx_center"
    ([x_c, y_c, w, h]) or "torchvision" ([x1, y1, x2, y2]; torchvision.ops.nms's IoU)."""
    if rule not in ("onnx", "onnx_center", "torchvision"):
        raise ValueError("nms_select_func: unknown IoU rule %r" % rule)
    from .... import tir

    nb, nn_, nc = (tir.Var(n, "int64") for n in ("B", "N", "C"))
    boxes = sk.buffer("boxes", 3, "float32", [nb, nn_, sk.i64(4)])
    scores = sk.buffer("scores", 3, "float32", [nb, nc, nn_])
    limits = sk.buffer("limits", 1, "int64", [sk.i64(1)])
    thr = sk.buffer("thresholds", 1, "float64", [sk.i64(2)])
    sel = sk.buffer("sel", 3, "int64", [nb, nc, nn_])
    cnt = sk.buffer("cnt", 2, "int64", [nb, nc])
    live = sk.buffer("live", 3, "int32", [nb, nc, nn_])
    loc = sk.Locals()
    best, best_score, done = loc.new("best", "int64"), loc.new("best_score", "float32"), loc.new("done", "int32")
    one, zero = tir.const(1, "int32"), tir.const(0, "int32")

    def per_class(b, c):
        def init(n):
            ok = tir.Cast("float64", scores[b, c, n]) > thr[sk.i64(1)] if has_score_threshold else tir.const(True, "bool")
            return sk.store(live, tir.Select(ok, one, zero), b, c, n)

        def consider(n):
            s = scores[b, c, n]
            return sk.when(tir.EQ(live[b, c, n], one),
                           sk.when(tir.Or(best[0] < sk.i64(0), s > best_score[0]),
                                   sk.seq(sk.store(best, n, 0), sk.store(best_score, s, 0))))

        def drop(n):
            return sk.when(tir.And(tir.EQ(live[b, c, n], one),
                                   _suppresses(boxes, b, best[0], n, rule, thr[sk.i64(0)])),
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


def nms_gather_func():
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


def roi_align_func(dtype, mode, out_h, out_w, sampling_ratio, spatial_scale, half_pixel):
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
