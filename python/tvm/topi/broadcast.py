"""Binary operators with numpy broadcasting."""

from .. import te, tir
from ..tir import expr as _e
from ._util import const_int


def broadcast_shape(sa, sb):
    """The broadcast of two shapes (lists of PrimExpr); ValueError when provably incompatible.
    Symbolic dimensions that are not provably equal are assumed equal (checked by the kernel's
    argument checks at run time)."""
    n = max(len(sa), len(sb))
    out = []
    for k in range(n):
        x = sa[len(sa) - n + k] if len(sa) - n + k >= 0 else None
        y = sb[len(sb) - n + k] if len(sb) - n + k >= 0 else None
        if x is None:
            out.append(y)
        elif y is None:
            out.append(x)
        elif const_int(x) == 1:
            out.append(y)
        elif const_int(y) == 1:
            out.append(x)
        else:
            cx, cy = const_int(x), const_int(y)
            if cx is not None and cy is not None and cx != cy:
                raise ValueError("shapes %s and %s cannot broadcast" % (list(sa), list(sb)))
            out.append(x)
    return out


def _index(t, idx, out_shape):
    """Index of `t` for output index `idx` (broadcast dimensions read element 0). A size-1
    dimension of a size-1 output reads the output's own index (also 0): the read then maps
    output points one to one, which lets the schedule inline this stage into a producer's
    write-back (a bias add after a batch-1 matmul)."""
    shape = list(t.shape)
    off = len(out_shape) - len(shape)
    res = []
    for k, d in enumerate(shape):
        broadcast = const_int(d) == 1 and const_int(out_shape[off + k]) != 1
        res.append(_e.const(0, idx[off + k].dtype) if broadcast else idx[off + k])
    return res


def _read(x, idx, out_shape, dtype=None):
    if isinstance(x, te.Tensor):
        return x[tuple(_index(x, idx, out_shape))] if len(x.shape) else x[()]
    return _e.const(x, dtype) if not isinstance(x, _e.PrimExpr) else x


def _binary(name, fn):
    def op(a, b):
        sa = list(a.shape) if isinstance(a, te.Tensor) else []
        sb = list(b.shape) if isinstance(b, te.Tensor) else []
        shape = broadcast_shape(sa, sb)
        dtype = str(a.dtype) if isinstance(a, te.Tensor) else str(b.dtype)
        return te.compute(shape, lambda *i: fn(_read(a, i, shape, dtype), _read(b, i, shape, dtype)), name=name)
    op.__name__ = name
    return op


add = _binary("add", lambda x, y: x + y)
subtract = _binary("subtract", lambda x, y: x - y)
multiply = _binary("multiply", lambda x, y: x * y)
divide = _binary("divide", lambda x, y: tir.div(x, y) if "int" not in str(x.dtype) else tir.truncdiv(x, y))
floor_divide = _binary("floor_divide", lambda x, y: tir.floordiv(x, y) if "int" in str(x.dtype)
                       else tir.floor(x / y))
floor_mod = _binary("floor_mod", tir.floormod)
def _pow(x, y):
    if "float" in str(x.dtype):
        return tir.pow(x, y)
    # Integers: through float64 (exact for results below 2**53), rounded back.
    r = tir.pow(tir.cast(x, "float64"), tir.cast(y, "float64"))
    return tir.cast(tir.round(r), str(x.dtype))


power = _binary("power", _pow)
maximum = _binary("maximum", tir.max)
minimum = _binary("minimum", tir.min)
equal = _binary("equal", lambda x, y: tir.EQ(x, y))
not_equal = _binary("not_equal", lambda x, y: tir.NE(x, y))
less = _binary("less", lambda x, y: x < y)
less_equal = _binary("less_equal", lambda x, y: x <= y)
greater = _binary("greater", lambda x, y: x > y)
greater_equal = _binary("greater_equal", lambda x, y: x >= y)
logical_and = _binary("logical_and", lambda x, y: tir.And(x, y))
logical_or = _binary("logical_or", lambda x, y: tir.Or(x, y))


def where(cond, a, b):
    shape = broadcast_shape(broadcast_shape(list(cond.shape), list(a.shape)), list(b.shape))
    return te.compute(shape, lambda *i: tir.if_then_else(_read(cond, i, shape), _read(a, i, shape),
                                                          _read(b, i, shape)), name="where")
