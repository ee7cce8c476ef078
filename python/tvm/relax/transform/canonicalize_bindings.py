"""CanonicalizeBindings: trivial bindings removed (TVM's pass).

- `y = x` (a variable bound to another variable): the binding goes, uses of y read x.
- `y = R.match_cast(v, S)` where v's struct info already is S: a plain binding of v (and so
  removed as above when v is a variable).
- `y = t[i]` where t is bound to a tuple literal: y is that field.

Dataflow outputs stay visible after their block: an output `gv = lv` of a DataflowVar lv is not
simply dropped (lv does not exist after the block); instead lv's own binding is emitted as the
output variable gv, and every use of lv or gv reads it.
"""

from ...ir import structural_equal
from .. import expr as _expr
from ..expr_functor import ExprMutator, key, module_pass


def _trivial_cast(b, value):
    return isinstance(b, _expr.MatchCast) and structural_equal(value.struct_info, b.struct_info)


def _alias(b):
    """The DataflowVar that binding `b` merely renames, or None."""
    v = b.value
    if not isinstance(v, _expr.DataflowVar):
        return None
    if isinstance(b, _expr.MatchCast) and not _trivial_cast(b, v):
        return None
    return v


class _Canonicalizer(ExprMutator):
    def visit_dataflow_block_(self, block):
        # Outputs that alias a DataflowVar bound in this block take over that binding.
        bound_here = {key(b.var): b for b in block.bindings}
        self._promote = {}   # DataflowVar handle -> the output binding that takes its place
        for b in block.bindings:
            src = b.value
            if isinstance(b.var, _expr.DataflowVar) or not isinstance(src, _expr.DataflowVar):
                continue
            if isinstance(b, _expr.MatchCast) and not _trivial_cast(b, src):
                continue
            while key(src) in bound_here and _alias(bound_here[key(src)]) is not None:
                src = _alias(bound_here[key(src)])  # lv2 = lv1; gv = lv2: lv1 becomes gv
            root = bound_here.get(key(src))
            if isinstance(root, _expr.VarBinding) and key(src) not in self._promote:
                self._promote[key(src)] = b
        super().visit_dataflow_block_(block)
        self._promote = {}

    def visit_tuple_getitem_(self, e):
        new = super().visit_tuple_getitem_(e)
        t = new.tuple_value
        bound = self.lookup_binding(t) if isinstance(t, _expr.Var) else None
        if isinstance(bound, _expr.Tuple):
            return bound.fields[new.index]
        return new

    def visit_binding(self, b):
        value = self.visit_expr(b.value)
        promoted = getattr(self, "_promote", {}).get(key(b.var))
        if promoted is not None:  # this DataflowVar's value is bound to the output directly
            if isinstance(value, _expr.Var) and not isinstance(value, _expr.DataflowVar):
                new = value  # lv = x; gv = lv: both are x (visible everywhere)
            else:
                new = self.builder_.emit_output(value, str(promoted.var.name_hint))
                self._bound[key(new)] = self.builder_._scope.bindings[-1].value
            self.var_remap_[key(b.var)] = new
            self.var_remap_[key(promoted.var)] = new
            return
        if key(b.var) in self.var_remap_:
            return  # an output whose DataflowVar was promoted in its place
        if isinstance(b, _expr.MatchCast) and _trivial_cast(b, value):
            b = _expr.VarBinding(b.var, value)  # nothing to check at run time
        if isinstance(b, _expr.VarBinding) and isinstance(value, _expr.Var) and \
                not self._hides_output(b.var, value):
            self.var_remap_[key(b.var)] = value
            return
        self.emit_binding(b, value)

    def _hides_output(self, var, value):
        """Replacing output `var` by DataflowVar `value` would leave its uses after the block
        without a definition."""
        in_dataflow = self.builder_._scope.dataflow
        return in_dataflow and not isinstance(var, _expr.DataflowVar) and isinstance(value, _expr.DataflowVar)


def CanonicalizeBindings():  # noqa: N802 (TVM's name)
    """The pass: var-to-var bindings and trivial match_casts removed in every Relax function."""
    return module_pass(_Canonicalizer, "relax.CanonicalizeBindings")
