"""FoldBatchnormToConv2D: inference batch norm after a conv2d folded into the conv's weight
and a bias add (TVM's pass, relax.transform.FoldBatchnormToConv2D).

    c = conv2d(x, W)                      c = conv2d(x, W * s[:, None, None, None])
    bn = batch_norm(c, g, b, m, v)   ->   bn = (add(c, (b - m * s)[None, :, None, None]), m, v)
    y = bn[0]                             y = bn[0]  (read through: y is the add)

with s = g / sqrt(v + epsilon) (g = 1 when scale=False, b = 0 when center=False). Matched
only when it is exact: a conv2d with data_layout NCHW, kernel_layout OIHW, out_layout NCHW,
no out_dtype change and a constant float weight; batch_norm with training=False on axis 1
(the channels) whose gamma, beta, moving mean and variance are constants; the conv's result
used by nothing else (so no unscaled copy is needed). Anything else is left as it was. The
new weight and bias are computed here in float64 and stored in the weight's dtype; the
moving statistics in the tuple are what inference batch_norm returns unchanged.
"""

import numpy as np

from .. import expr as _expr
from .. import op as _op
from ..expr_functor import ExprMutator, ExprVisitor, key, module_pass
from .lowering_common import op_name


class _UseCount(ExprVisitor):
    def __init__(self):
        self.counts = {}

    def visit_var_(self, v):
        self.counts[key(v)] = self.counts.get(key(v), 0) + 1

    visit_dataflow_var_ = visit_var_


def _attr(call, name, default=None):
    a = call.attrs
    return a[name] if name in a and a[name] is not None else default


class _Folder(ExprMutator):
    def visit_function(self, name, func):
        if not _calls(func, "relax.nn.batch_norm"):
            return func  # nothing to fold: not rebuilt (a transformer's ~300 bindings: ~10 ms)
        uses = _UseCount()
        uses.visit_expr(func)
        self._uses = uses.counts
        self._folded = {}  # conv var handle -> (new weight, bias), filled at its batch_norm
        self._plan(func)
        return super().visit_function(name, func)

    def _plan(self, func):
        """Finds the conv2d -> batch_norm pairs to fold (on the original bindings)."""
        binding_of = {}
        for block in func.body.blocks:
            for b in block.bindings:
                binding_of[key(b.var)] = b
        for block in func.body.blocks:
            if not isinstance(block, _expr.DataflowBlock):
                continue
            for b in block.bindings:
                bn = b.value
                if not (isinstance(b, _expr.VarBinding) and _is_op(bn, "relax.nn.batch_norm")):
                    continue
                src = bn.args[0]
                conv_b = binding_of.get(key(src)) if isinstance(src, _expr.Var) else None
                if conv_b is None or not isinstance(conv_b, _expr.VarBinding) or \
                        self._uses.get(key(src), 0) != 1:
                    continue
                folded = _fold(conv_b.value, bn, lambda e: _constant(e, binding_of))
                if folded is not None:
                    self._folded[key(conv_b.var)] = folded
                    self._folded[key(b.var)] = folded

    def visit_binding(self, b):
        plan = self._folded.get(key(b.var))
        if plan is None:
            value = b.value
            if isinstance(b.var, _expr.DataflowVar) and isinstance(value, _expr.TupleGetItem) and \
                    key(value.tuple_value) in self._folded:
                new = self.visit_expr(value)
                if isinstance(new, _expr.DataflowVar):  # lv = bn[0]: lv is the add
                    self.var_remap_[key(b.var)] = new
                    return new
            return super().visit_binding(b)
        weight, bias = plan
        call = b.value
        if _is_op(call, "relax.nn.conv2d"):
            conv = _expr.Call(call.op, [self.visit_expr(call.args[0]), _expr.const(weight)],
                              dict(call.attrs), list(call.sinfo_args))
            return self.emit_binding(b, conv)
        conv = self.visit_expr(call.args[0])
        out = self.builder_.emit(_op.add(conv, _expr.const(bias)), str(b.var.name_hint) + "_out")
        return self.emit_binding(b, _expr.Tuple([out, self.visit_expr(call.args[3]),
                                                 self.visit_expr(call.args[4])]))

    def visit_tuple_getitem_(self, e):
        new = super().visit_tuple_getitem_(e)
        t = new.tuple_value
        bound = self.lookup_binding(t) if isinstance(t, _expr.Var) else None
        if isinstance(bound, _expr.Tuple) and isinstance(bound.fields[new.index], _expr.DataflowVar) \
                and key(e.tuple_value) in self._folded:
            return bound.fields[new.index]  # bn[0] of a folded batch norm: the add itself
        return new


def _calls(func, name):
    """Whether a binding of `func`'s body calls operator `name`."""
    body = func.body
    return any(_is_op(b.value, name) for block in (body.blocks if isinstance(body, _expr.SeqExpr) else [])
               for b in block.bindings)


def _is_op(e, name):
    return op_name(e) == name


def _constant(e, binding_of):
    while isinstance(e, _expr.Var) and key(e) in binding_of and \
            isinstance(binding_of[key(e)], _expr.VarBinding):
        e = binding_of[key(e)].value
    return e.data.numpy() if isinstance(e, _expr.Constant) else None


def _fold(conv, bn, constant):
    """(new weight, bias) for conv2d `conv` followed by batch_norm `bn`, or None."""
    if not _is_op(conv, "relax.nn.conv2d"):
        return None
    if (_attr(conv, "data_layout"), _attr(conv, "kernel_layout"), _attr(conv, "out_layout")) != \
            ("NCHW", "OIHW", "NCHW"):
        return None
    w = constant(conv.args[1])
    if w is None or w.dtype.kind != "f":
        return None
    out_dtype = _attr(conv, "out_dtype")
    if out_dtype is not None and str(out_dtype) not in ("", "void", str(w.dtype)):
        return None
    if bool(_attr(bn, "training", True)) or int(_attr(bn, "axis", 1)) not in (1, -3):
        return None
    stats = [constant(a) for a in bn.args[1:5]]
    if any(s is None for s in stats) or any(s.shape != (w.shape[0],) for s in stats):
        return None
    gamma, beta, mean, var = (s.astype("float64") for s in stats)
    if not bool(_attr(bn, "scale", True)):
        gamma = np.ones_like(gamma)
    if not bool(_attr(bn, "center", True)):
        beta = np.zeros_like(beta)
    s = gamma / np.sqrt(var + float(_attr(bn, "epsilon", 1e-5)))
    weight = (w.astype("float64") * s[:, None, None, None]).astype(w.dtype)
    bias = (beta - mean * s).reshape(1, -1, 1, 1).astype(w.dtype)
    return weight, bias


def FoldBatchnormToConv2D():  # noqa: N802 (TVM's name)
    """The pass: conv2d + inference batch_norm with constant parameters -> conv2d + add."""
    return module_pass(_Folder, "relax.FoldBatchnormToConv2D")
