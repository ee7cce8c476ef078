"""ATen converters for tensor manipulations that exported models leave in their graphs:
flip (the reverse direction of a decomposed bidirectional LSTM/GRU) and index.Tensor with
several index tensors (x[i, j], x[:, i, j]; Hugging Face BERT's position/token-type lookups).

Several index tensors (numpy's advanced indexing): they broadcast to one shape B; the
indexed axes are moved to the front and gathered at once (gather_nd on the stacked indices,
negative indices wrapped by the axis extent); the result is B followed by the other axes,
with B moved to where the first indexed axis was when the indexed axes are adjacent.

flip is a take along each flipped axis with the indices extent-1 ... 0 (a constant for a
static extent, an arange of the symbolic extent otherwise).

tril / triu keep the elements with col - row <= diagonal (>= for triu) of the last two axes,
zero elsewhere (one TE kernel; symbolic extents allowed). einsum (seen without the
decomposition, which turns it into bmm) is the einsum TE kernel ONNX Einsum uses too
(kernels/einsum.py; static shapes)."""

import numpy as np

from ... import expr as _expr
from ... import op as R
from ..kernels.einsum import einsum, parse
from .aten_registry import register


@register("aten.flip.default")
def _flip(ctx):
    a = ctx.args
    x = a["self"]
    shape = ctx.shape(x)
    nd = len(shape)
    for d in sorted({int(d) % nd for d in a["dims"]}):
        n = shape[d]
        if isinstance(n, int):
            idx = _expr.const(np.arange(n - 1, -1, -1, dtype="int64"))
        else:
            idx = ctx.emit(R.arange(n - 1, -1, -1, "int64"))
        x = ctx.emit(R.take(x, idx, axis=d))
    return x


def _broadcast_shape(shapes):
    nd = max(len(sh) for sh in shapes)
    out = []
    for k in range(nd):
        dims = [sh[k - nd + len(sh)] for sh in shapes if k - nd + len(sh) >= 0]
        non_one = [d for d in dims if not (isinstance(d, int) and d == 1)]
        out.append(non_one[0] if non_one else 1)
    return out


def advanced_index(ctx, x, idx, used):
    xshape = ctx.shape(x)
    nd = len(xshape)
    rest = [i for i in range(nd) if i not in used]
    bshape = _broadcast_shape([ctx.shape(idx[i]) for i in used])
    cols = []
    for i in used:
        t = idx[i]
        if ctx.dtype(t) != "int64":
            t = R.astype(t, "int64")
        ext = xshape[i]
        if isinstance(ext, int):
            ext_t = _expr.const(np.array(ext, "int64"))
        else:
            ext_t = R.reshape(R.shape_to_tensor(_expr.ShapeExpr([ext])), [])
        t = R.where(R.less(t, _expr.const(np.array(0, "int64"))), R.add(t, ext_t), t)
        t = R.broadcast_to(t, bshape)
        cols.append(ctx.emit(R.expand_dims(t, [len(bshape)])))
    stacked = ctx.emit(R.concat(cols, axis=len(bshape)))
    xt = ctx.emit(R.permute_dims(x, used + rest)) if used + rest != list(range(nd)) else x
    y = ctx.emit(R.gather_nd(xt, stacked))  # B + rest
    adjacent = used == list(range(used[0], used[-1] + 1))
    if adjacent and used[0] > 0:
        nb, pre = len(bshape), used[0]
        # rest = pre axes then post axes: [B, pre, post] -> [pre, B, post]
        order = list(range(nb, nb + pre)) + list(range(nb)) + list(range(nb + pre, nb + len(rest)))
        y = ctx.emit(R.permute_dims(y, order))
    return y


def _tri_te(x, *, diagonal, upper):
    from .... import te, tir

    def f(*i):
        d = i[-1] - i[-2]
        keep = d >= diagonal if upper else d <= diagonal
        return tir.Select(keep, x[i], tir.const(0, str(x.dtype)))
    return te.compute(x.shape, f, name="triu" if upper else "tril")


@register("aten.tril.default", "aten.triu.default")
def _tri(ctx):
    a = ctx.args
    x = a["self"]
    if ctx.ndim(x) < 2:
        raise ValueError("%s needs a tensor of rank 2 or more" % ctx.node.target)
    upper = "triu" in str(ctx.node.target)
    return ctx.bb.emit_te(_tri_te, x, diagonal=int(a["diagonal"]), upper=upper,
                          primfunc_name_hint="triu" if upper else "tril")


@register("aten.einsum.default")
def _einsum(ctx):
    a = ctx.args
    xs = list(a["tensors"])
    shapes = [ctx.shape(x) for x in xs]
    if not all(isinstance(d, int) for s in shapes for d in s):
        raise NotImplementedError("einsum of operands with symbolic shapes")
    dts = {ctx.dtype(x) for x in xs}
    if len(dts) != 1:
        raise NotImplementedError("einsum of mixed dtypes %s" % sorted(dts))
    ops, out, extents = parse(a["equation"], shapes)
    return ctx.bb.emit_te(einsum, *xs, ops=ops, out=out, extents=extents, primfunc_name_hint="einsum")


def _diagonal_te(x, *, offset, d1, d2, length):
    from .... import te, tir

    nd = len(x.shape)
    rest = [d for d in range(nd) if d not in (d1, d2)]

    def f(*i):
        k = i[-1]
        idx = [None] * nd
        for d, v in zip(rest, i[:-1]):
            idx[d] = v
        idx[d1] = k + tir.const(max(0, -offset), k.dtype)
        idx[d2] = k + tir.const(max(0, offset), k.dtype)
        return x[tuple(idx)]
    return te.compute([x.shape[d] for d in rest] + [tir.IntImm("int64", length)], f, name="diagonal")


@register("aten.diagonal.default")
def _diagonal(ctx):
    """diagonal(offset, dim1, dim2): the diagonal as the last axis (einsum "ii->i" becomes it)."""
    a = ctx.args
    x = a["self"]
    nd = ctx.ndim(x)
    d1, d2, off = int(a["dim1"]) % nd, int(a["dim2"]) % nd, int(a["offset"])
    if d1 == d2:
        raise ValueError("diagonal: dim1 and dim2 are both %d" % d1)
    n1, n2 = ctx.shape(x)[d1], ctx.shape(x)[d2]
    if not isinstance(n1, int) or not isinstance(n2, int):
        raise NotImplementedError("diagonal of symbolic extents")
    length = max(0, min(n1, n2 - off) if off >= 0 else min(n1 + off, n2))
    return ctx.bb.emit_te(_diagonal_te, x, offset=off, d1=d1, d2=d2, length=length, primfunc_name_hint="diagonal")
