"""TopK (opsets 1, 10, 11): the k largest (or smallest) elements along an axis and their
indices, ties to the lower index (the order onnx's reference and onnxruntime give).

k is a run-time input from opset 10 on, so the output extent along the axis is bound to a
symbolic variable (run_time_bounds.bind_lengths). The kernel is kernels/sorting.rank_sort
(shared with torch's topk and sort)."""

import numpy as np

from ... import op as R
from ..kernels.sorting import rank_sort
from .converters import Converter, register
from .run_time_bounds import _rank, bind_lengths


def topk(ctx, x, k, axis, largest):
    nd = _rank(ctx, x, "TopK")
    axis = axis % nd
    if isinstance(k, int):
        kv = k
    else:
        kv = bind_lengths(ctx, ctx.bb.emit(R.reshape(R.astype(k, "int64"), [1])), 1, "topk")[0]
    return ctx.bb.emit_te(rank_sort, x, axis=axis, k=kv, largest=largest, primfunc_name_hint="topk")


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

