"""Identical PrimFuncs kept once: after fusion a network's repeated layers (DenseNet's 3x3
convolutions of one block, a transformer's layers, ResNet's identical bottlenecks) are
separate but structurally equal kernels; scheduling and compiling each again is most of a
CNN's build time. Functions equal under tvm.ir.structural_equal (hashed first) are merged
into the first of them, and every call of the others is redirected."""

from ...ir import IRModule, structural_equal, structural_hash
from .. import expr as _expr
from ..expr_functor import ExprMutator


class _Redirect(ExprMutator):
    def __init__(self, mod, target_of):
        super().__init__(mod)
        self._target_of = target_of

    def visit_global_var_(self, g):
        name = self._target_of.get(str(g.name_hint))
        return _expr.GlobalVar(name) if name is not None else g


def deduplicate_prim_funcs(mod):
    """`mod` with each group of structurally equal PrimFuncs reduced to one; `mod` itself
    when there are none."""
    funcs = {str(gv): f for gv, f in mod.functions.items()}
    # Compared without their names: each carries its own global_symbol.
    anonymous = {n: f.with_attr("global_symbol", "_") for n, f in funcs.items()
                 if not isinstance(f, _expr.Function) and "global_symbol" in f.attrs}
    buckets = {}  # structural hash -> names of the functions kept
    target_of = {}  # name of a merged function -> the kept twin
    for name, func in funcs.items():
        if isinstance(func, _expr.Function):
            continue
        func = anonymous.get(name, func)
        kept = buckets.setdefault(structural_hash(func), [])
        twin = next((k for k in kept if structural_equal(anonymous.get(k, funcs[k]), func)), None)
        if twin is None:
            kept.append(name)
        else:
            target_of[name] = twin
    if not target_of:
        return mod
    new = _Redirect(mod, target_of).transform_module()
    return IRModule({str(gv): f for gv, f in new.functions.items() if str(gv) not in target_of})
