"""Index helpers shared by the nn / indexing definitions (int64 index arithmetic)."""

from .. import tir
from ..tir import expr as _e
from ._util import const_int


def i64(v):
    """`v` (int or PrimExpr) as an int64 expression."""
    if isinstance(v, int):
        return _e.const(v, "int64")
    if isinstance(v, tir.IterVar):
        v = v.var
    return v if str(v.dtype) == "int64" else tir.cast(v, "int64")


def clamp(v, lo, hi):
    """min(max(v, lo), hi) in int64."""
    return tir.min(tir.max(i64(v), i64(lo)), i64(hi))


def in_range(v, lo, hi):
    """lo <= v < hi (a bool expression)."""
    return tir.And(i64(v) >= i64(lo), i64(v) < i64(hi))


def all_of(conds):
    out = None
    for c in conds:
        out = c if out is None else tir.And(out, c)
    return out if out is not None else _e.const(True, "bool")


def prod(dims):
    out = None
    for d in dims:
        out = d if out is None else out * d
    return out if out is not None else _e.const(1, "int64")


def transpose_to(x, layout, canonical):
    """`x` (in `layout`) transposed to the canonical letter order (no stage when equal)."""
    from .transform import transpose
    if layout == canonical:
        return x
    return transpose(x, [layout.index(c) for c in canonical])


def transpose_from(x, canonical, layout):
    """`x` (canonical order) transposed to `layout`."""
    from .transform import transpose
    if layout == canonical:
        return x
    return transpose(x, [canonical.index(c) for c in layout])


__all__ = ["i64", "clamp", "in_range", "all_of", "prod", "const_int", "transpose_to", "transpose_from"]
