"""EliminateCommonSubexpr: within a dataflow block, a pure value computed twice is bound once
(TVM's pass). Two values are the same when they are the same operator (or callee) with the
same arguments (the same variables and constants, equal shapes/prim values) and structurally
equal attributes and sinfo_args; the later variable is replaced by the earlier one.

call_only=True considers only calls; otherwise tuples and tuple-get-items too. Match casts
(a run-time check each) and calls that are not operator calls (packed or Relax functions,
possibly impure) are never merged. A duplicate that is a dataflow output while the first
binding is a DataflowVar becomes `gv = lv`, so the output stays visible after the block.
"""

from ...ir import structural_equal, structural_hash
from .. import expr as _expr
from ..expr_functor import ExprMutator, key, module_pass


def _arg_key(e):
    """A hashable identity of an argument: variables and constants by object, the rest
    (shapes, prim values, strings, dtypes) by structure."""
    if isinstance(e, (_expr.Var, _expr.Constant)):
        return ("obj", key(e))
    if isinstance(e, _expr.GlobalVar):
        return ("gv", str(e.name_hint))
    if isinstance(e, _expr.Op):
        return ("op", str(e.name))
    if isinstance(e, _expr.Tuple):
        return ("tuple",) + tuple(_arg_key(f) for f in e.fields)
    if isinstance(e, _expr.TupleGetItem):
        return ("item", _arg_key(e.tuple_value), int(e.index))
    return ("struct", type(e).__name__, structural_hash(e))


def _value_key(e, call_only):
    if isinstance(e, _expr.Call):
        if not isinstance(e.op, _expr.Op):
            return None
        return ("call", str(e.op.name), tuple(_arg_key(a) for a in e.args),
                structural_hash(e.attrs), tuple(structural_hash(s) for s in e.sinfo_args))
    if call_only or not isinstance(e, (_expr.Tuple, _expr.TupleGetItem)):
        return None
    return _arg_key(e)


def _same(a, b):
    if isinstance(a, _expr.Call):  # the key compared args; confirm what was only hashed
        return structural_equal(a.attrs, b.attrs) and len(a.sinfo_args) == len(b.sinfo_args) and \
            all(structural_equal(x, y) for x, y in zip(a.sinfo_args, b.sinfo_args))
    return True


class _CSE(ExprMutator):
    def __init__(self, mod, call_only):
        super().__init__(mod)
        self.call_only = call_only

    def visit_dataflow_block_(self, block):
        seen = {}  # value key -> (value, variable bound to it)
        for b in block.bindings:
            value = self.visit_expr(b.value)
            k = None if isinstance(b, _expr.MatchCast) else _value_key(value, self.call_only)
            hit = seen.get(k) if k is not None else None
            if hit is not None and _same(hit[0], value):
                first = hit[1]
                if isinstance(b.var, _expr.DataflowVar) or not isinstance(first, _expr.DataflowVar):
                    self.var_remap_[key(b.var)] = first
                else:
                    self.emit_binding(b, first)
                continue
            new = self.emit_binding(b, value)
            if k is not None:
                seen[k] = (value, new)


def EliminateCommonSubexpr(call_only=False):  # noqa: N802 (TVM's name)
    """The pass: repeated pure computations in each dataflow block bound once."""
    if not isinstance(call_only, bool):
        raise TypeError("EliminateCommonSubexpr: call_only must be a bool, got %r" % (call_only,))
    return module_pass(lambda mod: _CSE(mod, call_only), "relax.EliminateCommonSubexpr")
