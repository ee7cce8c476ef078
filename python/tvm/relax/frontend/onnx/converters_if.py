"""If (opsets 1, 11, 13, 16, 19, 21, 23, 24). A condition known at import (often: computed
from static shapes, as AffineGrid's body does) converts only the branch taken. A run-time
condition converts both branches (both run; they must be valid on the data either way, as
side-effect-free ONNX graphs are) and selects each output:
- outputs of the same shape (structurally): elementwise `where`;
- outputs of one rank but shapes that may differ (a guard such as torchvision's
  `if boxes.numel() == 0: return empty`, whose branches are [0] and [n]): the output's
  extents are the taken branch's, computed at run time (where(cond, dims_a, dims_b)) and
  bound to symbolic variables, and a serial kernel copies the taken branch;
- outputs of different ranks (AffineGrid's function body selects between a scalar and a
  [1] tensor): broadcast by `where`, so the output has the broadcast shape, which is the
  taken branch's only when that one has the larger rank (the converter's earlier behaviour,
  kept for those bodies; a Relax value cannot change rank at run time).
Sequences, optionals and outputs of different dtypes are not supported."""

import numpy as np

from ... import expr as _expr
from ... import op as R
from ..kernels import serial as sk
from .converters import Converter, register
from .converters_scan import _run_body
from .run_time_bounds import _dims, bind_lengths


def _select_func(rank, dtype):
    """cond [] bool, a, b (rank `rank`) -> out: a copy of a when cond, else of b."""
    from .... import tir

    cond = sk.buffer("cond", 0, "bool", [])
    a, b, out = sk.buffer("a", rank, dtype), sk.buffer("b", rank, dtype), sk.buffer("out", rank, dtype)
    loc = sk.Locals()

    def copy(src):
        def nest(idx, d):
            if d == rank:
                return sk.store(out, src[tuple(idx)], *idx)
            return loc.loop("i%d" % d, out.shape[d], lambda v: nest(idx + [v], d + 1))
        return nest([], 0)
    body = loc.wrap(sk.when(cond[()], copy(a), copy(b)))
    return sk.prim_func("if_select", [cond, a, b, out], body)


def _select_shapes(ctx, c, x, y, sx, sy):
    from .... import ir

    rank = len(sx.shape)
    if ir.structural_equal(sx.shape, sy.shape) or len(sy.shape) != rank:
        return R.where(c, x, y)
    axes = list(range(rank))
    dims = ctx.bb.emit(R.where(R.reshape(c, [1]), _dims(ctx, x, axes), _dims(ctx, y, axes)))
    out = bind_lengths(ctx, dims, rank, "if")
    return sk.call(ctx, _select_func(rank, str(sx.dtype)), "if_select", [c, x, y],
                   _expr.TensorStructInfo(out, str(sx.dtype)))


@register("If")
class If(Converter):
    @classmethod
    def _impl_v1(cls, ctx, inputs, attrs):
        then_g, else_g = attrs["then_branch"], attrs["else_branch"]
        cond = ctx.consts[0]
        if cond is not None:
            taken = then_g if bool(np.asarray(cond).reshape(-1)[0]) else else_g
            return tuple(_run_body(ctx, taken, []))
        a = _run_body(ctx, then_g, [])
        b = _run_body(ctx, else_g, [])
        c = ctx.bb.emit(R.reshape(inputs[0], []))
        if ctx.dtype_of(c) != "bool":
            c = ctx.bb.emit(R.not_equal(c, _expr.const(np.zeros((), ctx.dtype_of(c)))))
        outs = []
        for x, y in zip(a, b):
            sx = ctx.bb.normalize(x).struct_info
            sy = ctx.bb.normalize(y).struct_info
            if not isinstance(sx, _expr.TensorStructInfo) or not isinstance(sy, _expr.TensorStructInfo):
                raise NotImplementedError("If with a run-time condition and non-tensor outputs")
            if str(sx.dtype) != str(sy.dtype):
                raise NotImplementedError("If with a run-time condition: branches of dtypes %s "
                                          "and %s" % (sx.dtype, sy.dtype))
            if not sx.shape_known or not sy.shape_known:
                raise NotImplementedError("If with a run-time condition: a branch output of "
                                          "unknown shape")
            outs.append(_select_shapes(ctx, c, ctx.bb.emit(x), ctx.bb.emit(y), sx, sy))
        return tuple(outs)
