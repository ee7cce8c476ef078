"""AnnotateTIROpPattern: every PrimFunc of the module gets attr "op_pattern" (TVM's
OpPatternKind: 0 elementwise, 1 broadcast, 2 injective, 3 reduction, 4 out-elementwise-
fusable such as matmul/conv, 8 opaque), read from its blocks by the C++ analysis
relax.analysis.PrimFuncOpPattern (compiler/src/relax/transform/op_pattern.cc). FuseOps groups
call_tir bindings by it. Functions that already carry the attr keep it (a user's word wins)."""

from ...ir import IRModule, _api
from .. import expr as _expr


def AnnotateTIROpPattern():  # noqa: N802 (TVM's name)
    from ...ir.transform import ModulePass, PassInfo

    def run(mod, ctx):
        analyze = _api("relax.analysis.PrimFuncOpPattern")
        out = {}
        for name, f in mod.functions.items():
            if not isinstance(f, _expr.Function) and "op_pattern" not in f.attrs:
                f = f.with_attr("op_pattern", int(analyze(f)))
            out[str(name)] = f
        return IRModule(out)
    return ModulePass(run, PassInfo(0, "relax.AnnotateTIROpPattern"))
