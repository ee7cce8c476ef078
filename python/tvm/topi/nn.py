"""matmul (numpy semantics), softmax, layer_norm and activations."""

import math

from .. import te, tir
from ..tir import expr as _e
from .broadcast import broadcast_shape
from ._util import const_int


def matmul(a, b, out_dtype=None):
    """numpy.matmul: batched with broadcast batch dims; 1-d operands are promoted."""
    sa, sb = list(a.shape), list(b.shape)
    a1, b1 = len(sa) == 1, len(sb) == 1
    if a1:
        sa = [_e.const(1, "int64")] + sa
    if b1:
        sb = sb + [_e.const(1, "int64")]
    batch = broadcast_shape(sa[:-2], sb[:-2])
    m, k, n = sa[-2], sa[-1], sb[-1]
    kk = te.reduce_axis((0, k), "k")
    dtype = out_dtype or str(a.dtype)
    shape = batch + ([] if a1 else [m]) + ([] if b1 else [n])
    nb = len(batch)

    def f(*i):
        bi = list(i[:nb])
        rest = list(i[nb:])
        mi = _e.const(0, "int64") if a1 else rest.pop(0)
        ni = _e.const(0, "int64") if b1 else rest.pop(0)

        def batch_idx(s):
            off = nb - (len(s) - 2)
            return [(_e.const(0, "int64") if const_int(d) == 1 else bi[off + j]) for j, d in enumerate(s[:-2])]
        ia = batch_idx(list(a.shape) if not a1 else sa) + ([mi] if not a1 else []) + [kk]
        ib = batch_idx(list(b.shape) if not b1 else sb) + [kk] + ([ni] if not b1 else [])
        x, y = a[tuple(ia)], b[tuple(ib)]
        if str(x.dtype) != dtype:
            x, y = tir.cast(x, dtype), tir.cast(y, dtype)
        return te.sum(x * y, axis=kk)
    return te.compute(shape, f, name="matmul")


def softmax(x, axis=-1):
    nd = len(x.shape)
    axis = axis % nd
    k1 = te.reduce_axis((0, x.shape[axis]), "k")
    red = list(x.shape)
    del red[axis]

    def at(i, v):
        i = list(i)
        i.insert(axis, v)
        return tuple(i)
    mx = te.compute(red, lambda *i: te.max(x[at(i, k1)], axis=k1), name="softmax_max")
    ex = te.compute(list(x.shape), lambda *i: tir.exp(x[i] - mx[tuple(i[:axis] + i[axis + 1:])]),
                    name="softmax_exp")
    k2 = te.reduce_axis((0, x.shape[axis]), "k")
    sm = te.compute(red, lambda *i: te.sum(ex[at(i, k2)], axis=k2), name="softmax_sum")
    return te.compute(list(x.shape), lambda *i: ex[i] / sm[tuple(i[:axis] + i[axis + 1:])], name="softmax")


def log_softmax(x, axis=-1):
    nd = len(x.shape)
    axis = axis % nd
    k1 = te.reduce_axis((0, x.shape[axis]), "k")
    red = list(x.shape)
    del red[axis]

    def at(i, v):
        i = list(i)
        i.insert(axis, v)
        return tuple(i)
    mx = te.compute(red, lambda *i: te.max(x[at(i, k1)], axis=k1), name="lsm_max")
    k2 = te.reduce_axis((0, x.shape[axis]), "k")
    sm = te.compute(red, lambda *i: te.sum(tir.exp(x[at(i, k2)] - mx[i]), axis=k2), name="lsm_sum")
    return te.compute(list(x.shape), lambda *i: x[i] - mx[tuple(i[:axis] + i[axis + 1:])]
                      - tir.log(sm[tuple(i[:axis] + i[axis + 1:])]), name="log_softmax")


def layer_norm(x, gamma, beta, axes=(-1,), epsilon=1e-5):
    nd = len(x.shape)
    axes = sorted(a % nd for a in axes)
    red = [x.shape[k] for k in range(nd) if k not in axes]
    n = None
    for a in axes:
        n = x.shape[a] if n is None else n * x.shape[a]
    dt = str(x.dtype)

    def full(i, rv):
        idx, it, r = [], iter(i), iter(rv)
        for k in range(nd):
            idx.append(next(r) if k in axes else next(it))
        return tuple(idx)
    # Each reduction is a stage of its own (a reduction must be its stage's whole body).
    ks = [te.reduce_axis((0, x.shape[a]), "k%d" % a) for a in axes]
    total = te.compute(red, lambda *i: te.sum(x[full(i, ks)], axis=ks), name="ln_sum")
    mean = te.compute(red, lambda *i: total[i] / tir.cast(n, dt), name="ln_mean")
    ks2 = [te.reduce_axis((0, x.shape[a]), "v%d" % a) for a in axes]

    def sq(*i):
        d = x[full(i, ks2)] - mean[i]
        return te.sum(d * d, axis=ks2)
    sqsum = te.compute(red, sq, name="ln_sqsum")
    variance = te.compute(red, lambda *i: sqsum[i] / tir.cast(n, dt), name="ln_var")

    def out(*i):
        keep = tuple(i[k] for k in range(nd) if k not in axes)
        gi = tuple(i[a] for a in axes)
        return (x[i] - mean[keep]) / tir.sqrt(variance[keep] + _e.const(epsilon, dt)) * gamma[gi] + beta[gi]
    return te.compute(list(x.shape), out, name="layer_norm")


def gelu(x):
    dt = str(x.dtype)
    c = _e.const(1.0 / math.sqrt(2.0), dt)
    return te.compute(list(x.shape), lambda *i: x[i] * _e.const(0.5, dt) *
                      (_e.const(1.0, dt) + tir.erf(x[i] * c)), name="gelu")


def gelu_tanh(x):
    dt = str(x.dtype)
    c = _e.const(math.sqrt(2.0 / math.pi), dt)
    return te.compute(list(x.shape), lambda *i: _e.const(0.5, dt) * x[i] * (_e.const(1.0, dt) + tir.tanh(
        c * (x[i] + _e.const(0.044715, dt) * x[i] * x[i] * x[i]))), name="gelu_tanh")


def silu(x):
    return te.compute(list(x.shape), lambda *i: x[i] * tir.sigmoid(x[i]), name="silu")
