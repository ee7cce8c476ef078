"""batch_norm (inference: the moving statistics; training: the batch's, biased variance, and the
moving statistics updated with `momentum` as TVM's) and dropout at inference."""

from .. import te, tir
from ..tir import expr as _e
from ._layout import prod


def batch_norm(data, gamma, beta, moving_mean, moving_var, axis=1, epsilon=1e-5, center=True,
               scale=True, momentum=0.1, training=False):
    nd = len(data.shape)
    axis = axis % nd
    dt = str(data.dtype)
    eps = _e.const(epsilon, dt)
    if training:
        others = [k for k in range(nd) if k != axis]
        count = tir.cast(prod([data.shape[k] for k in others]), dt)
        r1 = [te.reduce_axis((0, data.shape[k]), "r%d" % k) for k in others]

        def full(c, rv):
            idx, it = [], iter(rv)
            for k in range(nd):
                idx.append(c if k == axis else next(it))
            return tuple(idx)
        s = te.compute([data.shape[axis]], lambda c: te.sum(data[full(c, r1)], axis=r1), name="bn_sum")
        mean = te.compute([data.shape[axis]], lambda c: s[c] / count, name="bn_mean")
        r2 = [te.reduce_axis((0, data.shape[k]), "v%d" % k) for k in others]

        def sq(c):
            d = data[full(c, r2)] - mean[c]
            return te.sum(d * d, axis=r2)
        ss = te.compute([data.shape[axis]], sq, name="bn_sqsum")
        var = te.compute([data.shape[axis]], lambda c: ss[c] / count, name="bn_var")
    else:
        mean, var = moving_mean, moving_var

    def f(*i):
        c = i[axis]
        v = (data[i] - mean[c]) / tir.sqrt(var[c] + eps)
        if scale:
            v = v * gamma[c]
        if center:
            v = v + beta[c]
        return v
    out = te.compute(list(data.shape), f, name="batch_norm")
    if training:
        m = _e.const(momentum, dt)
        one_m = _e.const(1.0 - momentum, dt)
        new_mean = te.compute([data.shape[axis]], lambda c: one_m * moving_mean[c] + m * mean[c], name="bn_new_mean")
        new_var = te.compute([data.shape[axis]], lambda c: one_m * moving_var[c] + m * var[c], name="bn_new_var")
    else:
        new_mean = te.compute(list(moving_mean.shape), lambda c: moving_mean[c], name="bn_mean_copy")
        new_var = te.compute(list(moving_var.shape), lambda c: moving_var[c], name="bn_var_copy")
    return [out, new_mean, new_var]


def dropout_inference(data):
    """(data, mask of ones): nothing is dropped at inference."""
    out = te.compute(list(data.shape), lambda *i: data[i], name="dropout")
    mask = te.compute(list(data.shape), lambda *i: _e.const(1.0, str(data.dtype)), name="dropout_mask")
    return [out, mask]
