"""tvm.relax.analysis: questions about Relax functions, each answered by one ExprVisitor walk
(TVM's names). Variables are keyed by identity: a returned dict's keys are the Var objects of
the function asked about.

    free_vars(expr)       Vars used in `expr` but bound outside it (parameters of an enclosing
                          function, earlier bindings), in first-use order
    bound_vars(expr)      Vars bound inside `expr` (function parameters, binding variables)
    all_vars(expr)        both, in first-appearance order
    get_var2val(func)     {binding Var: its bound value}
    udchain(func_or_block)  {Var: [Vars of the bindings that use it]} (the function's result is
                          not a binding: check `free_vars(body.body)` for it)
    use_counts(func)      {Var: number of reads by the bindings and the result}
    last_uses(func)       {Var: index of the last binding (in function order) that reads it};
                          the result's Vars map to the number of bindings (live to the end)
    well_formed(mod_or_func)  True when every Var is bound once and used only where bound
                          (after its binding; DataflowVars inside their block) and every
                          GlobalVar callee exists in the module
"""

from .. import expr as _expr
from ..expr_functor import ExprVisitor


class _VarCollector(ExprVisitor):
    def __init__(self):
        self.used, self.bound = {}, {}

    def visit_var_(self, v):
        self.used.setdefault(v, None)

    visit_dataflow_var_ = visit_var_

    def visit_var_def(self, v):
        self.bound.setdefault(v, None)


def _collect(e):
    c = _VarCollector()
    c.visit_expr(e)
    return c


def free_vars(e):
    c = _collect(e)
    return [v for v in c.used if v not in c.bound]


def bound_vars(e):
    return list(_collect(e).bound)


def all_vars(e):
    c = _collect(e)
    out = dict.fromkeys(c.bound)
    out.update(dict.fromkeys(c.used))
    return list(out)


def function_bindings(func):
    """The bindings of a function body in order (across its blocks)."""
    body = func.body
    if not isinstance(body, _expr.SeqExpr):
        return []
    return [b for block in body.blocks for b in block.bindings]


def function_result(func):
    body = func.body
    return body.body if isinstance(body, _expr.SeqExpr) else body


def get_var2val(func):
    return {b.var: b.value for b in function_bindings(func)}


def udchain(func_or_block):
    if isinstance(func_or_block, _expr.Function):
        bindings = function_bindings(func_or_block)
    else:
        bindings = list(func_or_block.bindings)
    chain = {b.var: [] for b in bindings}
    for b in bindings:
        for v in free_vars(b.value):
            if v in chain and b.var not in chain[v]:
                chain[v].append(b.var)
    return chain


def use_counts(func):
    """{Var: how many times the function's bindings and result read it}."""
    counts = {}
    for e in [b.value for b in function_bindings(func)] + [function_result(func)]:
        c = _UseCounter()
        c.visit_expr(e)
        for v, n in c.counts.items():
            counts[v] = counts.get(v, 0) + n
    return counts


class _UseCounter(ExprVisitor):
    def __init__(self):
        self.counts = {}

    def visit_var_(self, v):
        self.counts[v] = self.counts.get(v, 0) + 1

    visit_dataflow_var_ = visit_var_


def last_uses(func):
    bindings = function_bindings(func)
    last = {}
    for i, b in enumerate(bindings):
        last.setdefault(b.var, i)
        for v in free_vars(b.value):
            last[v] = i
    for v in free_vars(function_result(func)):
        last[v] = len(bindings)
    return last


class _WellFormed(ExprVisitor):
    def __init__(self, mod_names):
        self.mod_names = mod_names
        self.defined, self.errors, self.block_vars, self.expired = set(), [], None, set()

    def visit_var_(self, v):
        if v not in self.defined:
            self.errors.append("%s is used before it is bound (or outside its scope)" % v.name_hint)

    def visit_dataflow_var_(self, v):
        self.visit_var_(v)
        if v in self.expired:
            self.errors.append("dataflow var %s is used outside its dataflow block" % v.name_hint)

    def visit_global_var_(self, g):
        if self.mod_names is not None and str(g.name_hint) not in self.mod_names:
            self.errors.append("@%s is not a function of the module" % g.name_hint)

    def visit_var_def(self, v):
        if v in self.defined:
            self.errors.append("%s is bound twice" % v.name_hint)
        self.defined.add(v)
        if self.block_vars is not None and isinstance(v, _expr.DataflowVar):
            self.block_vars.add(v)

    def visit_binding_block(self, block):
        if isinstance(block, _expr.DataflowBlock):
            self.block_vars = set()
            super().visit_binding_block(block)
            self.expired |= self.block_vars
            self.block_vars = None
        else:
            super().visit_binding_block(block)


def well_formed_errors(obj):
    """What well_formed found wrong, as messages (empty when well formed)."""
    funcs, names = [], None
    if isinstance(obj, _expr.Function):
        funcs = [("<function>", obj)]
    else:
        names = {str(k) for k in obj.functions.keys()}
        funcs = [(str(k), f) for k, f in obj.functions.items() if isinstance(f, _expr.Function)]
    errors = []
    for name, f in funcs:
        w = _WellFormed(names)
        w.visit_expr(f)
        errors += ["%s: %s" % (name, e) for e in w.errors]
    return errors


def well_formed(obj):
    return not well_formed_errors(obj)


__all__ = ["all_vars", "bound_vars", "free_vars", "get_var2val", "last_uses", "udchain", "use_counts",
           "well_formed", "well_formed_errors"]
