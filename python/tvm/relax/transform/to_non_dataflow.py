"""ToNonDataflow (TVM's pass): dataflow blocks become plain binding blocks and their
DataflowVars plain Vars. The lowering after it inserts effects (allocations, kills, run-time
checks) that a dataflow block, which holds pure bindings only, cannot contain."""

from .. import expr as _expr
from ..expr_functor import ExprMutator, module_pass


class _ToNonDataflow(ExprMutator):
    def visit_binding_block(self, block):
        self.visit_binding_block_(block)     # never opens a dataflow scope: every var is a Var


def ToNonDataflow():  # noqa: N802 - TVM's pass name
    return module_pass(_ToNonDataflow, "relax.ToNonDataflow")


def RemovePurityChecking():  # noqa: N802 - TVM's pass name
    """Marks every pure Relax function `relax.force_pure` (TVM's pass): after ToNonDataflow
    their bodies hold effects (allocations, kills) that are not visible to callers, so purity
    is asserted rather than checked from here on."""
    from ...ir.transform import ModulePass, PassInfo

    def run(mod, ctx):
        funcs = {}
        for name, f in mod.functions.items():
            if isinstance(f, _expr.Function) and bool(f.is_pure) and "relax.force_pure" not in f.attrs:
                f = f.with_attr("relax.force_pure", True)
            funcs[str(name)] = f
        return type(mod)(funcs)
    return ModulePass(run, PassInfo(0, "relax.RemovePurityChecking"))
