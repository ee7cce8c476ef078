"""NonZero (opsets 9, 13), NonMaxSuppression (10, 11) and RoiAlign (10, 16): the ops of
exported detectors (torchvision's Faster R-CNN: the RPN's and the box head's score filters,
batched NMS, MultiScaleRoIAlign), as serial TIR kernels (kernels/detection.py, shared with the torch frontend).

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
from ..kernels import detection as dk
from ..kernels import serial as sk
from .converters import Converter, register
from .run_time_bounds import _rank, bind_lengths


# ---------------------------------------------------------------- NonZero

def nonzero(ctx, x):
    rank = _rank(ctx, x, "NonZero")
    if rank == 0:
        raise NotImplementedError("NonZero of a scalar")
    dtype = ctx.dtype_of(x)
    flag = x if dtype == "bool" else R.not_equal(x, _expr.const(np.zeros((), dtype)))
    count = ctx.bb.emit(R.reshape(R.sum(R.astype(flag, "int64")), [1]))
    k = bind_lengths(ctx, count, 1, "nonzero")[0]
    return sk.call(ctx, dk.nonzero_func(rank, dtype), "nonzero", [x],
                   _expr.TensorStructInfo([rank, k], "int64"))


@register("NonZero")
class NonZero(Converter):
    @classmethod
    def _impl_v9(cls, ctx, inputs, attrs):
        return nonzero(ctx, inputs[0])


# ---------------------------------------------------------------- NonMaxSuppression

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
    thr = ctx.bb.emit(R.concat([_scalar(ctx, iou, "float64", 0.0),
                                _scalar(ctx, score_thr, "float64", 0.0)], 0))
    bs, ss = ctx.shape_of(boxes), ctx.shape_of(scores)
    b, n, c = bs[0], bs[1], ss[1]
    outs = ctx.bb.emit(sk.call(ctx, dk.nms_select_func("onnx_center" if center else "onnx", score_thr is not None), "nms_select",
                               [boxes, scores, limits, thr],
                               [_expr.TensorStructInfo([b, c, n], "int64"),
                                _expr.TensorStructInfo([b, c], "int64"),
                                _expr.TensorStructInfo([b, c, n], "int32")]))
    sel, cnt = ctx.bb.emit(_expr.TupleGetItem(outs, 0)), ctx.bb.emit(_expr.TupleGetItem(outs, 1))
    total = ctx.bb.emit(R.reshape(R.sum(cnt), [1]))
    k = bind_lengths(ctx, total, 1, "nms")[0]
    return sk.call(ctx, dk.nms_gather_func(), "nms_gather", [cnt, sel],
                   _expr.TensorStructInfo([k, 3], "int64"))


@register("NonMaxSuppression")
class NonMaxSuppression(Converter):
    @classmethod
    def _impl_v10(cls, ctx, inputs, attrs):
        get = (lambda i: inputs[i] if len(inputs) > i else None)
        return non_max_suppression(ctx, inputs[0], inputs[1], get(2), get(3), get(4),
                                   int(attrs.get("center_point_box", 0)))


# ---------------------------------------------------------------- RoiAlign

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
    func = dk.roi_align_func(dtype, mode, out_h, out_w, int(attrs.get("sampling_ratio", 0)),
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
