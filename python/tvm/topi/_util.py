"""Helpers shared by the operator definitions."""

from ..tir import expr as _e


def const_int(v):
    """The int value of a constant PrimExpr (or int), else None."""
    if isinstance(v, int):
        return v
    return int(v.value) if isinstance(v, _e.IntImm) else None


def as_expr(v, dtype):
    return v if isinstance(v, _e.PrimExpr) else _e.const(v, dtype)


def normalize_axes(axis, ndim):
    if axis is None:
        return list(range(ndim))
    axes = [axis] if isinstance(axis, int) else list(axis)
    out = []
    for a in axes:
        a = int(a)
        if not -ndim <= a < ndim:
            raise ValueError("axis %d out of range for %d dimensions" % (a, ndim))
        out.append(a % ndim)
    return sorted(set(out))
