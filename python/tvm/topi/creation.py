"""Creation: full (a constant or a 0-d tensor's value), full_like, arange."""

from .. import te, tir
from ..tir import expr as _e


def full(shape, dtype, fill_value):
    """A tensor of `shape` filled with `fill_value` (a number, or a 0-d te.Tensor)."""
    if isinstance(fill_value, te.Tensor):
        return te.compute(list(shape), lambda *i: tir.cast(fill_value[()], dtype), name="full")
    v = _e.const(fill_value if "float" in dtype else int(fill_value), dtype) if dtype != "bool" \
        else _e.const(bool(fill_value), "bool")
    return te.compute(list(shape), lambda *i: v, name="full")


def arange(start, step, num, dtype):
    """[start + k*step for k < num] in `dtype` (computed in float64 for floats, as numpy)."""
    if "float" in dtype:
        return te.compute([num], lambda k: tir.cast(_e.const(float(start), "float64") + tir.cast(k, "float64")
                                                     * _e.const(float(step), "float64"), dtype), name="arange")
    s = start if isinstance(start, _e.PrimExpr) else _e.const(int(start), "int64")
    return te.compute([num], lambda k: tir.cast(tir.cast(s, "int64") + tir.cast(k, "int64") * int(step), dtype),
                      name="arange")
