"""TopK (opsets 1, 10, 11): the k largest (or smallest) elements along an axis and their
indices, ties to the lower index (the order onnx's reference and onnxruntime give).

k is a run-time input from opset 10 on, so the output extent along the axis is bound to a
symbolic variable (run_time_bounds.bind_lengths). The kernel is a rank sort in three TE
stages: each element's rank = how many elements come before it (greater, or equal at a
lower index; smaller for largest=0), the index whose rank is r, then its value. Quadratic
in the axis' extent, which suits the short axes TopK is used on here."""

import numpy as np

from ... import op as R
from .converters import Converter, register
from .run_time_bounds import _rank, bind_lengths


def _topk(x, *, axis, k, largest):
    from .... import te, tir

    n = x.shape[axis]
    nd = len(x.shape)

    def at(i, pos):
        return x[tuple(pos if d == axis else i[d] for d in range(nd))]

    def rank(*i):
        m = te.reduce_axis((0, n), "m")
        a, b = at(i, m), at(i, i[axis])
        first = (a > b) if largest else (a < b)
        before = tir.Or(first, tir.And(tir.EQ(a, b), m < i[axis]))
        return te.sum(tir.Select(before, tir.const(1, "int64"), tir.const(0, "int64")), axis=m)
    r = te.compute(x.shape, rank, name="topk_rank")

    out_shape = [k if d == axis else x.shape[d] for d in range(nd)]

    def index(*i):
        j = te.reduce_axis((0, n), "j")
        ri = r[tuple(j if d == axis else i[d] for d in range(nd))]
        return te.sum(tir.Select(tir.EQ(ri, tir.Cast("int64", i[axis])), tir.Cast("int64", j),
                                 tir.const(0, "int64")), axis=j)
    idx = te.compute(out_shape, index, name="topk_indices")
    val = te.compute(out_shape, lambda *i: at(i, idx[i]), name="topk_values")
    return [val, idx]


def topk(ctx, x, k, axis, largest):
    nd = _rank(ctx, x, "TopK")
    axis = axis % nd
    if isinstance(k, int):
        kv = k
    else:
        kv = bind_lengths(ctx, ctx.bb.emit(R.reshape(R.astype(k, "int64"), [1])), 1, "topk")[0]
    return ctx.bb.emit_te(_topk, x, axis=axis, k=kv, largest=largest, primfunc_name_hint="topk")


@register("TopK")
class TopK(Converter):
    @classmethod
    def _impl_v1(cls, ctx, inputs, attrs):
        return topk(ctx, inputs[0], int(attrs["k"]), int(attrs.get("axis", -1)), True)

    @classmethod
    def _impl_v10(cls, ctx, inputs, attrs):
        k = ctx.consts[1]
        k = int(np.asarray(k).reshape(-1)[0]) if k is not None else inputs[1]
        return topk(ctx, inputs[0], k, int(attrs.get("axis", -1)),
                    bool(attrs.get("largest", 1)))

