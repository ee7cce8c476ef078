"""Unary elementwise operators."""

from .. import te, tir
from ..tir import expr as _e


def _unary(name, fn):
    def op(x):
        return te.compute(list(x.shape), lambda *i: fn(x[i]), name=name)
    op.__name__ = name
    return op


def _c(x, v):
    return _e.const(v, str(x.dtype))


exp = _unary("exp", tir.exp)
log = _unary("log", tir.log)
sqrt = _unary("sqrt", tir.sqrt)
rsqrt = _unary("rsqrt", lambda x: _c(x, 1.0) / tir.sqrt(x))
tanh = _unary("tanh", tir.tanh)
fast_tanh = tanh
sigmoid = _unary("sigmoid", tir.sigmoid)
erf = _unary("erf", tir.erf)
sin = _unary("sin", tir.sin)
cos = _unary("cos", tir.cos)
tan = _unary("tan", tir.tan)
asin = _unary("asin", lambda x: tir.Call(x.dtype, "tir.asin", [x]))
acos = _unary("acos", lambda x: tir.Call(x.dtype, "tir.acos", [x]))
atan = _unary("atan", lambda x: tir.Call(x.dtype, "tir.atan", [x]))
sinh = _unary("sinh", lambda x: tir.Call(x.dtype, "tir.sinh", [x]))
cosh = _unary("cosh", lambda x: tir.Call(x.dtype, "tir.cosh", [x]))
trunc = _unary("trunc", lambda x: tir.trunc(x) if "float" in str(x.dtype) else x)
floor = _unary("floor", tir.floor)
ceil = _unary("ceil", tir.ceil)
round = _unary("round", tir.round)  # noqa: A001
abs = _unary("abs", tir.abs)  # noqa: A001
negative = _unary("negative", lambda x: _c(x, 0) - x)
square = _unary("square", lambda x: x * x)
reciprocal = _unary("reciprocal", lambda x: _c(x, 1.0) / x)
sign = _unary("sign", lambda x: tir.if_then_else(x > _c(x, 0), _c(x, 1),
                                                  tir.if_then_else(x < _c(x, 0), _c(x, -1), _c(x, 0))))
relu = _unary("relu", lambda x: tir.max(x, _c(x, 0)))
identity = _unary("identity", lambda x: x)
logical_not = _unary("logical_not", lambda x: tir.Not(x))


def leaky_relu(x, alpha=0.01):
    return te.compute(list(x.shape), lambda *i: tir.if_then_else(x[i] > _c(x, 0), x[i], x[i] * _c(x, alpha)),
                      name="leaky_relu")


def clip(x, a_min, a_max):
    lo, hi = _c(x, a_min), _c(x, a_max)
    return te.compute(list(x.shape), lambda *i: tir.min(tir.max(x[i], lo), hi), name="clip")


def astype(x, dtype):
    return te.compute(list(x.shape), lambda *i: tir.cast(x[i], str(dtype)), name="astype")

