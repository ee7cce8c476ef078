"""tvm.arith: integer analysis in libtvm_compiler (simplifier, constant bounds, modular sets).

    ana = tvm.arith.Analyzer()
    ana.bind(i, (0, 4))                  # i in [0, 4): a (min, extent) pair
    ana.simplify(tir.floordiv(i * 4 + j, 4))
    ana.const_int_bound(i * 2 + 1)       # ConstIntBound(min_value=1, max_value=7)
    ana.modular_set(i * 8 + 3)           # ModularSet(coeff=8, base=3)
"""

from .._compiler_guard import require_compiler

require_compiler("tvm.arith")

from collections import namedtuple

from ..ir import _api
from ..tir.expr import Var, convert

ConstIntBound = namedtuple("ConstIntBound", ["min_value", "max_value"])
ConstIntBound.POS_INF = 2**63 - 1
ConstIntBound.NEG_INF = -(2**63)
ModularSet = namedtuple("ModularSet", ["coeff", "base"])


class Analyzer:
    """Holds variable ranges; each query runs in libtvm_compiler."""

    def __init__(self):
        self._bounds = {}

    def bind(self, var, rng):
        """var in [min, min + extent): `rng` is a (min, extent) pair of ints."""
        if not isinstance(var, Var):
            raise TypeError("bind expects a tir.Var")
        lo, extent = (int(x) for x in rng)
        if extent <= 0:
            raise ValueError("empty range for %s" % var.name)
        self._bounds[var] = [lo, lo + extent - 1]

    def update(self, var, bound):
        """var in [bound.min_value, bound.max_value] (a ConstIntBound or a pair)."""
        lo, hi = bound
        self._bounds[var] = [int(lo), int(hi)]

    def simplify(self, expr):
        return _api("arith.Simplify")(convert(expr), self._bounds)

    def rewrite_simplify(self, expr):
        return self.simplify(expr)

    def canonical_simplify(self, expr):
        return self.simplify(expr)

    def const_int_bound(self, expr):
        lo, hi = _api("arith.ConstIntBound")(convert(expr), self._bounds)
        return ConstIntBound(int(lo), int(hi))

    def modular_set(self, expr):
        c, b = _api("arith.ModularSet")(convert(expr), self._bounds)
        return ModularSet(int(c), int(b))

    def can_prove(self, cond):
        out = self.simplify(cond)
        return hasattr(out, "value") and not isinstance(out.value, float) and bool(out.value)


__all__ = ["Analyzer", "ConstIntBound", "ModularSet"]
