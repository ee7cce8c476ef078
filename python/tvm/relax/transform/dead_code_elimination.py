"""DeadCodeElimination(entry_functions=None): unused bindings and unreachable functions go
(TVM's pass).

- In every Relax function, a dataflow-block binding whose variable is never used (by a later
  binding or the function's result) is removed when its
  value is pure: operator calls (call_tir and call_dps_packed included, as TVM declares them),
  tuples, tuple items, leaves, and calls of pure Relax functions of the module. Match casts
  stay (each is a run-time check). Bindings outside dataflow blocks stay (they may be
  impure). Removal repeats through chains (a value used only by dead bindings is dead too).
- Functions (Relax and PrimFunc) not reachable from the entry functions through GlobalVar
  references are dropped. entry_functions: names; by default the Relax functions with a
  "global_symbol" (what the VM exposes). A module without Relax functions keeps its
  PrimFuncs: there the symbols are the interface. (PrimFuncs made by BlockBuilder.call_te
  carry a symbol too, unlike TVM's private ones; in a Relax module they are kernels of its
  functions, kept only while called.)
"""

from .. import expr as _expr
from ..expr_functor import ExprMutator, ExprVisitor, key
from ...tir import PrimFunc


class _Uses(ExprVisitor):
    """Variables and GlobalVar names an expression refers to."""

    def __init__(self):
        self.vars = set()
        self.gvars = set()

    def visit_var_(self, v):
        self.vars.add(key(v))

    visit_dataflow_var_ = visit_var_

    def visit_global_var_(self, g):
        self.gvars.add(str(g.name_hint))


def _uses(e):
    u = _Uses()
    u.visit_expr(e)
    return u


def _pure(value, mod):
    if isinstance(value, _expr.Call):
        if isinstance(value.op, _expr.Op):
            return True
        if isinstance(value.op, _expr.GlobalVar):
            callee = mod.functions_by_name.get(str(value.op.name_hint))
            return isinstance(callee, _expr.Function) and bool(callee.is_pure)
        return False
    return True


class _DCE(ExprMutator):
    def __init__(self, mod):
        super().__init__(mod)
        self.functions_by_name = {str(k): f for k, f in mod.functions.items()}

    def visit_function(self, name, func):
        self._dead = self._dead_bindings(func)
        return super().visit_function(name, func)

    def _dead_bindings(self, func):
        # Backwards over the bindings: a binding is live if something live (or impure) uses it.
        live = set(_uses(func.body.body).vars)
        dead = set()
        blocks = list(func.body.blocks)
        for block in reversed(blocks):
            dataflow = isinstance(block, _expr.DataflowBlock)
            for b in reversed(list(block.bindings)):
                removable = dataflow and isinstance(b, _expr.VarBinding) and _pure(b.value, self)
                if removable and key(b.var) not in live:
                    dead.add(key(b.var))
                    continue
                live |= _uses(b.value).vars
        return dead

    def visit_binding(self, b):
        if key(b.var) not in self._dead:
            super().visit_binding(b)


def _reachable(mod, entries):
    funcs = {str(k): f for k, f in mod.functions.items()}
    seen, todo = set(), list(entries)
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        f = funcs[name]
        if isinstance(f, _expr.Function):
            todo.extend(_uses(f).gvars)
    return seen


def DeadCodeElimination(entry_functions=None):  # noqa: N802 (TVM's name)
    """The pass (see the module's docstring)."""
    from ...ir import IRModule
    from ...ir.transform import ModulePass, PassInfo

    if entry_functions is not None:
        if isinstance(entry_functions, str) or not all(isinstance(n, str) for n in entry_functions):
            raise TypeError("DeadCodeElimination: entry_functions must be a list of names")
        entry_functions = list(entry_functions)

    def run(mod, ctx):
        names = [str(k) for k in mod.functions.keys()]
        if entry_functions is not None:
            missing = [n for n in entry_functions if n not in names]
            if missing:
                raise ValueError("DeadCodeElimination: no function named %s in the module" % missing)
            entries = entry_functions
        else:
            relax_fns = {str(k): f for k, f in mod.functions.items() if isinstance(f, _expr.Function)}
            if not relax_fns:
                return mod
            entries = [n for n, f in relax_fns.items() if "global_symbol" in f.attrs]
        mod = _DCE(mod).transform_module()
        keep = _reachable(mod, entries)
        return IRModule({k: f for k, f in mod.functions.items()
                         if str(k) in keep or not isinstance(f, (_expr.Function, PrimFunc))})
    return ModulePass(run, PassInfo(0, "relax.DeadCodeElimination"))
