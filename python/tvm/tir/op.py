"""TIR operators: math intrinsics, min/max, floordiv/floormod, casts, select."""

from .expr import Call, Cast, Select, _binary, _promote, convert, const


def _unary(name):
    def f(x):
        x = convert(x)
        return Call(x.dtype, "tir." + name, [x])
    f.__name__ = name
    f.__doc__ = "Elementwise %s (an intrinsic Call)." % name
    return f


exp = _unary("exp")
exp2 = _unary("exp2")
log = _unary("log")
log2 = _unary("log2")
log10 = _unary("log10")
sqrt = _unary("sqrt")
sin = _unary("sin")
cos = _unary("cos")
tan = _unary("tan")
tanh = _unary("tanh")
sigmoid = _unary("sigmoid")
floor = _unary("floor")
ceil = _unary("ceil")
trunc = _unary("trunc")
round = _unary("round")  # noqa: A001
abs = _unary("abs")  # noqa: A001
erf = _unary("erf")


def _bitwise(name):
    def f(x, y):
        x, y = _promote(x, y)
        return Call(x.dtype, "tir." + name, [x, y])
    f.__name__ = name
    f.__doc__ = "Bitwise %s of two integers (an intrinsic Call; shifts by >= the width are defined)." % name
    return f


bitwise_and = _bitwise("bitwise_and")
bitwise_or = _bitwise("bitwise_or")
bitwise_xor = _bitwise("bitwise_xor")
shift_left = _bitwise("shift_left")
shift_right = _bitwise("shift_right")
bitwise_not = _unary("bitwise_not")


def pow(x, y):  # noqa: A001
    x, y = _promote(x, y)
    return Call(x.dtype, "tir.pow", [x, y])


def floordiv(a, b):
    return _binary("tir.FloorDiv", a, b)


def floormod(a, b):
    return _binary("tir.FloorMod", a, b)


def truncdiv(a, b):
    return _binary("tir.Div", a, b)


def truncmod(a, b):
    return _binary("tir.Mod", a, b)


def div(a, b):
    return _binary("tir.Div", a, b)


def min(a, b):  # noqa: A001
    return _binary("tir.Min", a, b)


def max(a, b):  # noqa: A001
    return _binary("tir.Max", a, b)


def all(*conds):  # noqa: A001
    out = convert(conds[0])
    for c in conds[1:]:
        out = _binary("tir.And", out, c)
    return out


def any(*conds):  # noqa: A001
    out = convert(conds[0])
    for c in conds[1:]:
        out = _binary("tir.Or", out, c)
    return out


def if_then_else(cond, t, f):
    t, f = _promote(t, f)
    return Call(t.dtype, "tir.if_then_else", [convert(cond), t, f])


def cast(value, dtype):
    return Cast(dtype, value)


def min_value(dtype):
    import numpy as np
    d = np.dtype(str(dtype))
    return const(np.finfo(d).min if d.kind == "f" else np.iinfo(d).min, str(dtype))


def max_value(dtype):
    import numpy as np
    d = np.dtype(str(dtype))
    return const(np.finfo(d).max if d.kind == "f" else np.iinfo(d).max, str(dtype))
