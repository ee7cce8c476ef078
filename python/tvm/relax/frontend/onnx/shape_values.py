"""Shape values known symbolically at import (TVM's frontend keeps them as ShapeExpr/PrimValue).

Exporters compute the targets of Reshape/Expand/ConstantOfShape from Shape nodes: with a
dynamic batch, Shape(x) = [batch, 16, 64] is not a constant, but each element is a TIR
expression of the input's symbolic dimensions. Such int 1-d (or 0-d) values are tracked here
through the ops exporters wrap around them (Gather, Slice, Squeeze/Unsqueeze, Concat, Cast,
Reshape, Identity, scalar arithmetic, Equal/Where), so the consumers get the shape itself
(`ShapeExpr`, symbolic dims) instead of a tensor whose values only the run time knows. A value
that feeds an op needing a tensor is materialized by `relax.shape_to_tensor`.

`propagate` returns a SymShape (or a numpy array when every element folded to a constant), or
None when the node is not a shape computation (the op's converter then runs).
"""

import numpy as np

from ... import expr as _expr
from ... import op as R
from .... import tir
from ....arith import Analyzer

_INT_DTYPES = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")


class SymShape:
    """An integer (or bool) value of rank 0 or 1 whose elements are int64 PrimExprs."""

    def __init__(self, elems, scalar=False, dtype="int64"):
        self.elems = [_simplify(e) for e in elems]  # ints -> IntImm; simplified in propagate
        self.scalar = scalar
        self.dtype = dtype
        if scalar and len(self.elems) != 1:
            raise ValueError("a 0-d shape value has one element, got %d" % len(self.elems))

    def constant(self):
        """The numpy value when every element is a constant, else None."""
        if not all(isinstance(e, tir.IntImm) for e in self.elems):
            return None
        arr = np.array([int(e.value) for e in self.elems], dtype=self.dtype)
        return arr.reshape(()) if self.scalar else arr

    def materialize(self):
        """The value as a relax tensor (the run time computes the symbolic elements)."""
        elems = [tir.Cast("int64", e) if e.dtype != "int64" else e for e in self.elems]
        t = R.shape_to_tensor(_expr.ShapeExpr(elems))
        if self.scalar:
            t = R.reshape(t, [])
        return t if self.dtype == "int64" else R.astype(t, self.dtype)


def _simplify(e, analyzer=None):
    if isinstance(e, (int, np.integer)):
        return tir.IntImm("int64", int(e))
    if not isinstance(e, tir.PrimExpr):
        raise TypeError("a shape element must be an int or a PrimExpr, got %r" % type(e).__name__)
    return e if analyzer is None else analyzer.simplify(e)


def analyzer_of(ctx):
    """The importer's Analyzer: it knows the dimensions read by Shape are >= 0, so the
    exporters' `Where(Equal(dim, -1), ...)` guards of Reshape's -1 fold away."""
    imp = ctx.importer
    if not hasattr(imp, "shape_analyzer"):
        imp.shape_analyzer = Analyzer()
    return imp.shape_analyzer


def _as_sym(ctx, i):
    """Input i as a SymShape: tracked, or an integer constant of rank <= 1; else None."""
    name = ctx.node.input[i] if i < len(ctx.node.input) else ""
    if not name:
        return None
    sym = ctx.importer.shape_values.get(name)
    if sym is not None:
        return sym
    c = ctx.consts[i]
    if c is None or c.ndim > 1 or str(c.dtype) not in _INT_DTYPES + ("bool",):
        return None
    return SymShape([int(v) for v in c.reshape(-1)], c.ndim == 0,
                    "int64" if str(c.dtype) == "bool" else str(c.dtype))


def _ints_input(ctx, i, default=None):
    if i >= len(ctx.node.input) or not ctx.node.input[i]:
        return default
    c = ctx.consts[i]
    return None if c is None else [int(v) for v in np.asarray(c).reshape(-1)]


def _shape(ctx, attrs):
    dims = ctx.shape_of(ctx.input(0))
    if dims is None:
        return None
    start, end = attrs.get("start", 0), attrs.get("end", None)
    for d in dims:
        if isinstance(d, tir.Var):
            analyzer_of(ctx).update(d, (0, 2 ** 62))
    return SymShape(list(dims)[start:end])


def _gather(ctx, syms, attrs):
    data, idx = syms
    if data.scalar or attrs.get("axis", 0) != 0 or ctx.importer.shape_values.get(ctx.node.input[1]):
        return None
    n = len(data.elems)
    picked = []
    for k in _ints_input(ctx, 1):
        if not -n <= k < n:
            raise ValueError("Gather index %d out of range for a shape of %d elements" % (k, n))
        picked.append(data.elems[k % n])
    return SymShape(picked, idx.scalar, data.dtype)


def _slice(ctx, syms, attrs):
    data = syms[0]
    if ctx.opset < 10:
        starts, ends, axes, steps = attrs["starts"], attrs["ends"], attrs.get("axes"), None
    else:
        starts, ends = _ints_input(ctx, 1), _ints_input(ctx, 2)
        axes, steps = _ints_input(ctx, 3, [0]), _ints_input(ctx, 4, [1])
    if data.scalar or None in (starts, ends, axes, steps) or list(axes or [0]) not in ([0], [-1]):
        return None
    # Python's slice clamps exactly as ONNX does for either sign of the step
    return SymShape(data.elems[starts[0]:ends[0]:steps[0]], False, data.dtype)


def _squeeze(ctx, syms, attrs):
    data = syms[0]
    if data.scalar or len(data.elems) != 1:
        return None
    return SymShape(data.elems, True, data.dtype)


def _unsqueeze(ctx, syms, attrs):
    data = syms[0]
    axes = attrs.get("axes") if ctx.opset < 13 else _ints_input(ctx, 1)
    if not data.scalar or axes is None or list(axes) not in ([0], [-1]):
        return None
    return SymShape(data.elems, False, data.dtype)


def _concat(ctx, syms, attrs):
    if any(s.scalar for s in syms):
        return None
    return SymShape([e for s in syms for e in s.elems], False, syms[0].dtype)


def _cast(ctx, syms, attrs):
    from onnx import helper
    dt = str(np.dtype(helper.tensor_dtype_to_np_dtype(attrs["to"])))
    if dt not in _INT_DTYPES:
        return None
    return SymShape(syms[0].elems, syms[0].scalar, dt)


def _reshape(ctx, syms, attrs):
    data = syms[0]
    target = _ints_input(ctx, 1)
    if target is None or len(target) > 1:
        return None
    return SymShape(data.elems, len(target) == 0, data.dtype)


def _broadcast(syms):
    """The element lists of the operands broadcast against each other (rank <= 1)."""
    n = max(len(s.elems) for s in syms)
    if any(len(s.elems) not in (1, n) for s in syms):
        raise ValueError("shape values of %s elements do not broadcast" % [len(s.elems) for s in syms])
    return [s.elems * n if len(s.elems) == 1 else s.elems for s in syms], all(s.scalar for s in syms)


def _binary(fn):
    def go(ctx, syms, attrs):
        if len(syms) < 2:
            return None
        lists, scalar = _broadcast(syms)
        out = lists[0]
        for other in lists[1:]:
            out = [fn(a, b) for a, b in zip(out, other)]
        return SymShape(out, scalar, syms[0].dtype)
    return go


def _equal(ctx, syms, attrs):
    (a, b), scalar = _broadcast(syms)
    # kept as int64 0/1 (a bool cannot sit in a ShapeExpr); materialized as a bool tensor
    one, zero = tir.IntImm("int64", 1), tir.IntImm("int64", 0)
    an = analyzer_of(ctx)

    def eq(x, y):
        # The simplifier folds `P == -1` for a dimension P >= 0 but not `P + S == -1`: decide
        # from the difference's bounds, so exporters' -1 guards on sums of dimensions fold.
        d = an.const_int_bound(_simplify(x) - _simplify(y))
        if d.min_value > 0 or d.max_value < 0:
            return zero
        return tir.Select(tir.EQ(x, y), one, zero)
    return SymShape([eq(x, y) for x, y in zip(a, b)], scalar, "bool")


def _where(ctx, syms, attrs):
    (c, a, b), scalar = _broadcast(syms)
    zero = tir.IntImm("int64", 0)
    return SymShape([tir.Select(tir.NE(k, zero), x, y) for k, x, y in zip(c, a, b)],
                    scalar, syms[1].dtype)


_RULES = {
    "Gather": _gather, "Slice": _slice, "Squeeze": _squeeze, "Unsqueeze": _unsqueeze,
    "Concat": _concat, "Cast": _cast, "Reshape": _reshape, "Identity": lambda c, s, a: s[0],
    "Add": _binary(lambda a, b: a + b), "Sub": _binary(lambda a, b: a - b),
    "Mul": _binary(lambda a, b: a * b), "Div": _binary(tir.truncdiv),
    "Max": _binary(tir.max), "Min": _binary(tir.min), "Equal": _equal, "Where": _where,
}
# the inputs a rule reads as shape values; the others must be constants it reads itself
_DATA_INPUTS = {"Gather": 1, "Slice": 1, "Squeeze": 1, "Unsqueeze": 1, "Cast": 1, "Reshape": 1,
                "Identity": 1}


def propagate(ctx, attrs):
    """The node's output as a SymShape / numpy array, or None when it is not tracked."""
    op = ctx.node.op_type
    if ctx.node.domain not in ("", "ai.onnx") or len([o for o in ctx.node.output if o]) != 1:
        return None
    if op == "Shape":
        sym = ctx.shape_value(0)
        if sym is not None:  # the shape of a shape value: its length, without materializing it
            dims = np.array([] if sym.scalar else [len(sym.elems)], "int64")
            return dims[attrs.get("start", 0):attrs.get("end")]
        out = _shape(ctx, attrs) if ctx.static_shape(ctx.input(0)) is None else None
    elif op in _RULES:
        tracked = ctx.importer.shape_values
        n = _DATA_INPUTS.get(op, len(ctx.node.input))
        names = [x for x in ctx.node.input[:n]]
        if not any(x in tracked for x in names):
            return None
        syms = [_as_sym(ctx, i) for i in range(n)]
        if any(s is None for s in syms):
            return None
        if op == "Gather":
            syms.append(_as_sym(ctx, 1))
            if syms[1] is None:
                return None
        out = _RULES[op](ctx, syms, attrs)
    else:
        return None
    if out is None:
        return None
    out.elems = [_simplify(e, analyzer_of(ctx)) for e in out.elems]
    const = out.constant()
    return const if const is not None else out


# ---------------------------------------------------------------- consumers

def simplify(ctx, e):
    """e simplified knowing the importer's dimensions are >= 0 (an int stays an int)."""
    return _int(analyzer_of(ctx).simplify(_simplify(e)))


def _int(e):
    """e as a Python int when it is a constant, else the PrimExpr."""
    return int(e.value) if isinstance(e, tir.IntImm) else e


def dims_of(ctx, i):
    """Input i's elements when they are known at import (a constant or a SymShape): a list of
    ints and PrimExprs; None when only the run time knows them."""
    if ctx.consts[i] is not None:
        return [int(v) for v in np.asarray(ctx.consts[i]).reshape(-1)]
    sym = ctx.shape_value(i)
    return None if sym is None else [_int(e) for e in sym.elems]


def reshape_dims(src, target, allowzero):
    """ONNX Reshape's output shape: 0 copies the input's dimension (unless allowzero), one -1
    is inferred from the element count. A symbolic target element is taken as a dimension."""
    out = [src[k] if (isinstance(t, int) and t == 0 and not allowzero) else t
           for k, t in enumerate(target)]
    holes = [k for k, t in enumerate(out) if isinstance(t, int) and t == -1]
    if len(holes) > 1:
        raise ValueError("Reshape target %s has more than one -1" % target)
    if holes:
        out[holes[0]] = _quotient(list(src), [t for k, t in enumerate(out) if k != holes[0]])
    return out


def _quotient(num, den):
    """prod(num) // prod(den) with equal symbolic factors cancelled first (the simplifier
    cannot cancel n*6 // n, and the run time would divide by n = 0)."""
    from ....ir import structural_equal
    num, den = list(num), list(den)
    cn = int(np.prod([int(d) for d in num if not isinstance(d, tir.PrimExpr) or isinstance(d, tir.IntImm)]))
    cd = int(np.prod([int(d) for d in den if not isinstance(d, tir.PrimExpr) or isinstance(d, tir.IntImm)]))
    num = [d for d in num if isinstance(d, tir.PrimExpr) and not isinstance(d, tir.IntImm)]
    rest = []
    for d in den:
        if not isinstance(d, tir.PrimExpr) or isinstance(d, tir.IntImm):
            continue
        match = next((k for k, x in enumerate(num) if structural_equal(x, d)), None)
        if match is None:
            rest.append(d)
        else:
            num.pop(match)
    total, known = tir.IntImm("int64", cn), tir.IntImm("int64", cd)
    for d in num:
        total = total * d
    for d in rest:
        known = known * d
    if not rest and cd != 0 and cn % cd == 0:
        total, known = tir.IntImm("int64", cn // cd), tir.IntImm("int64", 1)
        for d in num:
            total = total * d
        return _int(Analyzer().simplify(total))
    return _int(Analyzer().simplify(tir.floordiv(total, known)))


def expand_dims_to(src, target):
    """ONNX Expand's (bidirectional broadcast) output shape; a target element 1 keeps the
    input's dimension, so does a static input dimension other than 1 (the target's element
    is then 1 or equal to it); otherwise the target's element is the output's."""
    n = max(len(src), len(target))
    src = [1] * (n - len(src)) + list(src)
    target = [1] * (n - len(target)) + list(target)
    return [s if (isinstance(t, int) and t == 1) or (isinstance(s, int) and s != 1) else t
            for s, t in zip(src, target)]
