"""Integer shape expressions (PrimExprs of symbolic dimensions): structural keys and free
variables. Used by VMShapeLower, StaticPlanBlockMemory, FuseTIR and BlockBuilder.call_te;
depends on tvm.tir only, so the BlockBuilder can use it without importing the passes."""

from .. import tir
from ..tir import expr as _te

_BINARY = {_te.Add: "+", _te.Sub: "-", _te.Mul: "*", _te.FloorDiv: "//", _te.FloorMod: "%",
           _te.Div: "/", _te.Mod: "mod", _te.Min: "min", _te.Max: "max"}
_DIVISIONS = (_te.FloorDiv, _te.FloorMod, _te.Div, _te.Mod)
# Comparisons, logic and Select: shape arithmetic from frontends that resolve ONNX's "-1 /
# 0 means ..." conventions on symbolic values (Where(Equal(shape, -1), 1, shape)).
_BINARY.update({_te.EQ: "==", _te.NE: "!=", _te.LT: "<", _te.LE: "<=", _te.GT: ">", _te.GE: ">=",
                _te.And: "and", _te.Or: "or"})


def _children(e):
    """The operand expressions of a supported non-leaf shape expression, else None."""
    if type(e) in _BINARY:
        return [e.a, e.b]
    if isinstance(e, _te.Cast):
        return [e.value]
    if isinstance(e, _te.Not):
        return [e.a]
    if isinstance(e, _te.Select):
        return [e.condition, e.true_value, e.false_value]
    return None


def expr_key(e):
    """A hashable structural key of an integer PrimExpr (variables by identity)."""
    if isinstance(e, _te.IntImm):
        return ("imm", int(e.value))
    if isinstance(e, tir.Var):
        return ("var", e._h)
    if type(e) in _BINARY:
        return (_BINARY[type(e)], expr_key(e.a), expr_key(e.b))
    if isinstance(e, _te.Cast):
        return ("cast", str(e.dtype), expr_key(e.value))
    if isinstance(e, (_te.Not, _te.Select)):
        return (type(e).__name__,) + tuple(expr_key(c) for c in _children(e))
    raise NotImplementedError("relax.build: shape expression %s (%s) is not supported"
                              % (e, type(e).__name__))


def prim_free_vars(e, out):
    """Collects the variables of `e` into the dict `out` (key -> Var)."""
    if isinstance(e, tir.Var):
        out[expr_key(e)] = e
    else:
        for c in _children(e) or []:
            prim_free_vars(c, out)
    return out
