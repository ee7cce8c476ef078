"""Scatter kernels in gather form, for ONNX ScatterElements / Scatter / ScatterND
(onnx/converters_scatter.py) and torch scatter / scatter_add / scatter_reduce
(torch/aten_scatter.py): each output element looks for the updates aimed at it (indices are
run-time values).

- reduction none: onnx's reference assigns the updates in C order, so the LAST update aimed
  at a position wins: one stage finds the largest (flattened) update position that matches,
  the next reads it (or keeps the data where none does);
- add / mul / max / min: the data combined with every matching update (their order does not
  matter for these).
Negative indices count from the end of the axis, as numpy's indexing does in the reference.
"""


def _norm(idx, dim):
    from .... import tir

    idx = tir.Cast("int64", idx)
    return tir.Select(idx < 0, idx + dim, idx)


def _reduce(te, tir, reduction, upd_val, match, axes, dtype):
    """The matching updates folded by the reduction (its identity where none matches); a
    reduction must be a stage's whole body, so the data is combined in the next stage."""
    if reduction == "add":
        return te.sum(tir.Select(match, upd_val, tir.const(0, dtype)), axis=axes)
    if reduction == "mul":
        return te.prod(tir.Select(match, upd_val, tir.const(1, dtype)), axis=axes)
    if reduction == "max":
        return te.max(tir.Select(match, upd_val, tir.min_value(dtype)), axis=axes)
    return te.min(tir.Select(match, upd_val, tir.max_value(dtype)), axis=axes)


def _combine(te, tir, reduction, data, acc, name):
    fn = {"add": lambda a, b: a + b, "mul": lambda a, b: a * b, "max": tir.max,
          "min": tir.min}[reduction]
    return te.compute(data.shape, lambda *i: fn(data[i], acc[i]), name=name)


def scatter_elements(data, indices, updates, *, axis, reduction):
    """`data` with `updates` written along `axis` at the positions `indices` names (indices
    and updates of one shape), folded by `reduction` ("none", "add", "mul", "max", "min")."""
    from .... import te, tir

    dt = str(data.dtype)
    nd = len(data.shape)

    def inside(i):
        return tir.all(*[i[d] < indices.shape[d] for d in range(nd) if d != axis]) \
            if nd > 1 else tir.const(True, "bool")

    def match_at(i, k):
        src = [k if d == axis else i[d] for d in range(nd)]
        ok = tir.all(*[i[d] < indices.shape[d] for d in range(nd) if d != axis]) if nd > 1 \
            else tir.const(True, "bool")
        # positions outside the indices' extent never match (their reads are guarded)
        src = [tir.Select(ok, s, tir.const(0, "int64")) if d != axis else s
               for d, s in enumerate(src)]
        return tir.And(ok, tir.EQ(_norm(indices[tuple(src)], data.shape[axis]), i[axis])), src

    if reduction == "none":
        def last(*i):
            k = te.reduce_axis((0, indices.shape[axis]), "k")
            m, _ = match_at(i, k)
            return te.max(tir.Select(m, tir.Cast("int64", k), tir.const(-1, "int64")), axis=k)
        lk = te.compute(data.shape, last, name="scatter_last")

        def out(*i):
            k = lk[i]
            src = [tir.max(k, tir.const(0, "int64")) if d == axis else
                   tir.Select(inside(i), i[d], tir.const(0, "int64")) for d in range(nd)]
            return tir.Select(k >= 0, updates[tuple(src)], data[i])
        return te.compute(data.shape, out, name="scatter_elements")

    def red(*i):
        k = te.reduce_axis((0, indices.shape[axis]), "k")
        m, src = match_at(i, k)
        return _reduce(te, tir, reduction, updates[tuple(src)], m, [k], dt)
    acc = te.compute(data.shape, red, name="scatter_acc")
    return _combine(te, tir, reduction, data, acc, "scatter_elements")


def scatter_nd(data, indices, updates, *, reduction):
    """`data` with each slice of `updates` written at the index tuple in the last axis of
    `indices`, folded by `reduction`."""
    from .... import te, tir

    q = int(indices.shape[-1])
    bdims = list(indices.shape[:-1])
    nd = len(data.shape)
    dt = str(data.dtype)

    def match_at(i, u):
        conds = [tir.EQ(_norm(indices[tuple(u) + (j,)], data.shape[j]), i[j]) for j in range(q)]
        return tir.all(*conds) if conds else tir.const(True, "bool")

    def axes():
        return [te.reduce_axis((0, b), "u%d" % n) for n, b in enumerate(bdims)]

    def upd(u, i):
        return updates[tuple(u) + tuple(i[q:nd])]

    if reduction == "none":
        def last(*i):
            u = axes()
            lin = tir.const(0, "int64")
            for n, b in enumerate(bdims):
                lin = lin * b + tir.Cast("int64", u[n])
            return te.max(tir.Select(match_at(i, u), lin, tir.const(-1, "int64")), axis=u)
        lk = te.compute(data.shape, last, name="scatter_last")

        def out(*i):
            lin = tir.max(lk[i], tir.const(0, "int64"))
            u = []
            for b in reversed(bdims):
                u.insert(0, tir.floormod(lin, b))
                lin = tir.floordiv(lin, b)
            return tir.Select(lk[i] >= 0, upd(u, i), data[i])
        return te.compute(data.shape, out, name="scatter_nd")

    def red(*i):
        u = axes()
        return _reduce(te, tir, reduction, upd(u, i), match_at(i, u), u, dt)
    acc = te.compute(data.shape, red, name="scatter_acc")
    return _combine(te, tir, reduction, data, acc, "scatter_nd")
