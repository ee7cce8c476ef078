"""Activations: selu, softplus (beta, threshold: linear above it, as torch), prelu."""

from .. import te, tir
from ..tir import expr as _e

_SELU_ALPHA = 1.6732632423543772
_SELU_SCALE = 1.0507009873554805


def selu(x):
    dt = str(x.dtype)
    a, s, zero, one = (_e.const(v, dt) for v in (_SELU_ALPHA, _SELU_SCALE, 0.0, 1.0))
    return te.compute(list(x.shape), lambda *i: s * tir.if_then_else(
        x[i] > zero, x[i], a * (tir.exp(x[i]) - one)), name="selu")


def softplus(x, beta=1.0, threshold=20.0):
    dt = str(x.dtype)
    b, t, one = _e.const(beta, dt), _e.const(threshold, dt), _e.const(1.0, dt)
    return te.compute(list(x.shape), lambda *i: tir.if_then_else(
        x[i] * b > t, x[i], tir.log(one + tir.exp(x[i] * b)) / b), name="softplus")


def prelu(x, alpha, axis=1):
    axis = axis % len(x.shape)
    zero = _e.const(0.0, str(x.dtype))
    one_slope = len(alpha.shape) == 1 and isinstance(alpha.shape[0], _e.IntImm) and int(alpha.shape[0].value) == 1

    def f(*i):
        a = alpha[(_e.const(0, "int64"),)] if one_slope else alpha[(i[axis],)]
        return tir.if_then_else(x[i] > zero, x[i], x[i] * a)
    return te.compute(list(x.shape), f, name="prelu")
