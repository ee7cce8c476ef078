"""Shape operators: reshape, transpose, expand_dims, squeeze, flatten, concatenate."""

from .. import te, tir
from ..tir import expr as _e
from ._util import const_int, normalize_axes


def _flat_index(idx, shape):
    flat = None
    for i, d in zip(idx, shape):
        i = tir.cast(i, "int64") if str(i.dtype) != "int64" else i
        d = tir.cast(d, "int64") if str(d.dtype) != "int64" else d
        flat = i if flat is None else flat * d + i
    return flat if flat is not None else _e.const(0, "int64")


def _unflatten(flat, shape):
    out = []
    for d in reversed(list(shape)):
        d = tir.cast(d, "int64") if str(d.dtype) != "int64" else d
        out.append(tir.floormod(flat, d))
        flat = tir.floordiv(flat, d)
    return list(reversed(out))


def reshape(x, newshape):
    """Row-major reshape (a copy); one -1 is inferred."""
    newshape = list(newshape)
    total = None
    for d in x.shape:
        total = d if total is None else total * d
    if any(const_int(d) == -1 for d in newshape):
        rest = None
        for d in newshape:
            if const_int(d) != -1:
                rest = d if rest is None else rest * d
        k = [const_int(d) for d in newshape].index(-1)
        newshape[k] = tir.floordiv(total, rest) if rest is not None else total
    return te.compute(newshape, lambda *i: x[tuple(_unflatten(_flat_index(i, newshape), x.shape))],
                      name="reshape")


def transpose(x, axes=None):
    nd = len(x.shape)
    axes = list(range(nd))[::-1] if axes is None else [int(a) % nd for a in axes]
    shape = [x.shape[a] for a in axes]

    def f(*i):
        src = [None] * nd
        for k, a in enumerate(axes):
            src[a] = i[k]
        return x[tuple(src)]
    return te.compute(shape, f, name="transpose")


def expand_dims(x, axis, num_newaxis=1):
    """New unit dimensions: at `axis` (num_newaxis of them, TVM's form), or at every position
    of the list `axis` (positions in the output)."""
    if isinstance(axis, (list, tuple)):
        nd = len(x.shape) + len(axis)
        axes = sorted(int(a) % nd for a in axis)
    else:
        nd = len(x.shape) + num_newaxis
        start = int(axis) % nd
        axes = list(range(start, start + num_newaxis))
    shape, src_pos = [], []
    it = iter(range(len(x.shape)))
    for k in range(nd):
        if k in axes:
            shape.append(_e.const(1, "int64"))
        else:
            s = next(it)
            shape.append(x.shape[s])
            src_pos.append(k)
    return te.compute(shape, lambda *i: x[tuple(i[p] for p in src_pos)] if src_pos else x[()],
                      name="expand_dims")


def squeeze(x, axis=None):
    nd = len(x.shape)
    axes = [k for k in range(nd) if const_int(x.shape[k]) == 1] if axis is None else normalize_axes(axis, nd)
    keep = [k for k in range(nd) if k not in axes]
    shape = [x.shape[k] for k in keep]

    def f(*i):
        src = [_e.const(0, "int64")] * nd
        for j, k in enumerate(keep):
            src[k] = i[j]
        return x[tuple(src)]
    return te.compute(shape, f, name="squeeze")


def flatten(x):
    total = None
    for d in x.shape:
        total = d if total is None else total * d
    return reshape(x, [total])


def concatenate(tensors, axis=0):
    tensors = list(tensors)
    nd = len(tensors[0].shape)
    axis = axis % nd
    offsets, total = [], None
    for t in tensors:
        offsets.append(total)
        d = t.shape[axis]
        total = d if total is None else total + d
    shape = list(tensors[0].shape)
    shape[axis] = total

    def f(*i):
        ax = i[axis]

        def start(k):  # where tensor k starts along the axis (in the index's type)
            return tir.cast(offsets[k], str(ax.dtype))

        def read(k):
            idx = list(i)
            if offsets[k] is not None:
                idx[axis] = ax - start(k)
            return tensors[k][tuple(idx)]
        out = read(len(tensors) - 1)
        for k in range(len(tensors) - 2, -1, -1):
            out = tir.if_then_else(ax < start(k + 1), read(k), out)
        return out
    return te.compute(shape, f, name="concatenate")
