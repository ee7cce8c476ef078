"""ATen / torchvision converters of the detector ops, on the serial TIR kernels the ONNX
frontend uses too (kernels/detection.py): aten.nonzero, torchvision.nms, torchvision.roi_align
(torchvision's Faster R-CNN through torch.export.draft_export: the RPN's and the box head's
score filters, batched NMS, MultiScaleRoIAlign).

Output extents that depend on the data (the number of non-zero elements, of boxes NMS keeps)
are torch "unbacked" symbols (u0, u1, ...) in the exported graph; the converter computes the
count into an int64 tensor and binds the node's own symbol to it (R.tensor_to_shape +
match_cast, `bind_extent`), so every later shape that torch wrote with that symbol refers to
the bound variable.

- nonzero: [count, rank] int64, row-major order (torch's layout: the kernel's [rank, count]
  transposed).
- torchvision.nms(boxes [N, 4] as (x1, y1, x2, y2), scores [N], iou_threshold): greedy, the
  highest remaining score first (the lowest index among equal scores, as torchvision's stable
  sort gives), every remaining box with IoU > iou_threshold dropped; IoU as torchvision's CPU
  kernel computes it (overlap clamped at 0, inter / (area_a + area_b - inter) in float32,
  compared with the float64 threshold). Returns the kept indices in selection order.
- torchvision.roi_align(input [N, C, H, W], rois [K, 5] = (batch index, x1, y1, x2, y2),
  spatial_scale, pooled_height, pooled_width, sampling_ratio, aligned): the average of
  bilinear samples per bin, torchvision's rules (aligned shifts the box by -0.5 pixel,
  otherwise it is at least 1 x 1; sampling_ratio <= 0 takes ceil(roi extent / bins) points
  per bin axis, per roi; samples outside [-1, extent] count as 0).
"""

import numpy as np

from ... import expr as _expr
from ... import op as R
from ..kernels import detection as dk
from ..kernels import serial as sk
from .aten_registry import register


def bind_extent(ctx, count, meta_dim, hint):
    """The run-time value of int64 tensor `count` ([1]) as a symbolic extent: torch's own
    symbol when the node's meta names one (so later shapes written with it agree), else a
    new variable. A static meta extent (torch specialized it) is checked at run time."""
    import torch
    from .... import tir

    shape = ctx.bb.emit(R.tensor_to_shape(count))
    if isinstance(meta_dim, torch.SymInt) and meta_dim.node.expr.is_Symbol:
        var = ctx.importer.sym_var(str(meta_dim.node.expr))
    elif isinstance(meta_dim, int):
        ctx.bb.match_cast(shape, _expr.ShapeStructInfo([meta_dim]))
        return meta_dim
    else:
        var = tir.Var(hint + "_n", "int64")
    ctx.bb.match_cast(shape, _expr.ShapeStructInfo([var]))
    return var


def _count(ctx, flag):
    return ctx.emit(R.reshape(R.sum(R.astype(flag, "int64")), [1]))


def nonzero_columns(ctx, x, meta_dim=None, hint="nonzero"):
    """The kernel's [rank, count] indices of x's non-zero elements, and count."""
    dtype = ctx.dtype(x)
    rank = ctx.ndim(x)
    if rank == 0:
        raise NotImplementedError("nonzero of a 0-d tensor")
    flag = x if dtype == "bool" else R.not_equal(x, _expr.const(np.zeros((), dtype)))
    k = bind_extent(ctx, _count(ctx, flag), meta_dim, hint)
    cols = ctx.emit(sk.call(ctx, dk.nonzero_func(rank, dtype), "nonzero", [x],
                            _expr.TensorStructInfo([rank, k], "int64")))
    return cols, k


@register("aten.nonzero.default")
def _nonzero(ctx):
    meta = ctx.out_meta
    cols, _ = nonzero_columns(ctx, ctx.arg(0), meta.shape[0] if meta is not None else None)
    return R.permute_dims(cols, [1, 0])


def _float32(ctx, v, what):
    if ctx.dtype(v) != "float32":
        raise NotImplementedError("%s of dtype %s (float32 only)" % (what, ctx.dtype(v)))


@register("torchvision.nms.default")
def _nms(ctx):
    boxes, scores, iou = ctx.arg(0), ctx.arg(1), ctx.arg(2)
    _float32(ctx, boxes, "nms boxes")
    _float32(ctx, scores, "nms scores")
    if ctx.ndim(boxes) != 2 or ctx.shape(boxes)[1] != 4 or ctx.ndim(scores) != 1:
        raise ValueError("nms expects boxes [N, 4] and scores [N], got %s and %s"
                         % (ctx.shape(boxes), ctx.shape(scores)))
    n = ctx.shape(boxes)[0]
    boxes3 = ctx.emit(R.expand_dims(boxes, 0))
    scores3 = ctx.emit(R.expand_dims(scores, [0, 1]))
    limits = _expr.const(np.array([np.iinfo("int64").max], "int64"))
    thr = _expr.const(np.array([float(iou), 0.0], "float64"))
    outs = ctx.emit(sk.call(ctx, dk.nms_select_func("torchvision", False), "nms_select",
                            [boxes3, scores3, limits, thr],
                            [_expr.TensorStructInfo([1, 1, n], "int64"),
                             _expr.TensorStructInfo([1, 1], "int64"),
                             _expr.TensorStructInfo([1, 1, n], "int32")]))
    sel, cnt = ctx.emit(_expr.TupleGetItem(outs, 0)), ctx.emit(_expr.TupleGetItem(outs, 1))
    meta = ctx.out_meta
    k = bind_extent(ctx, ctx.emit(R.reshape(cnt, [1])), meta.shape[0] if meta is not None else None, "nms")
    triples = ctx.emit(sk.call(ctx, dk.nms_gather_func(), "nms_gather", [cnt, sel],
                               _expr.TensorStructInfo([k, 3], "int64")))
    return R.take(triples, _expr.const(np.array(2, "int64")), axis=1)


@register("torchvision.roi_align.default")
def _roi_align(ctx):
    x, rois = ctx.arg(0), ctx.arg(1)
    scale, ph, pw, ratio, aligned = (ctx.arg(i) for i in range(2, 7))
    dtype = ctx.dtype(x)
    if dtype not in ("float32", "float64"):
        raise NotImplementedError("roi_align of %s" % dtype)
    if ctx.ndim(x) != 4 or ctx.ndim(rois) != 2 or ctx.shape(rois)[1] != 5:
        raise ValueError("roi_align expects input [N, C, H, W] and rois [K, 5], got %s and %s"
                         % (ctx.shape(x), ctx.shape(rois)))
    if not all(isinstance(v, int) for v in (ph, pw)):
        raise NotImplementedError("roi_align with a symbolic output size")
    if ctx.dtype(rois) != dtype:
        rois = ctx.emit(R.astype(rois, dtype))
    boxes = ctx.emit(R.strided_slice(rois, [1], [1], [5]))
    batch = ctx.emit(R.astype(R.take(rois, _expr.const(np.array(0, "int64")), axis=1), "int64"))
    func = dk.roi_align_func(dtype, "avg", int(ph), int(pw), int(ratio), float(scale), bool(aligned))
    k, c = ctx.shape(rois)[0], ctx.shape(x)[1]
    return sk.call(ctx, func, "roi_align", [x, boxes, batch],
                   _expr.TensorStructInfo([k, c, int(ph), int(pw)], dtype))
