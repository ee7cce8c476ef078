"""The rank sort: the k largest (or smallest) elements along an axis and their indices,
ties to the lower index (a stable sort), in three TE stages: each element's rank = how many
elements come before it (greater, or equal at a lower index; smaller for largest=False),
the index whose rank is r, then its value. k may be symbolic (a run-time extent) and equal
to the axis' extent (a full sort). Quadratic in the axis' extent, which suits the axes
detectors and models sort (a few thousand at most). NaN is not ordered (torch sorts it
last / first; here a NaN compares false with everything). Used by ONNX TopK
(onnx/converters_topk.py) and torch topk / sort / argsort (torch/aten_sort.py)."""


def rank_sort(x, *, axis, k, largest):
    """[values, indices] of the k first elements along `axis` in sorted order (TE tensors)."""
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
