"""The pass lists every backend shares, written once: the graph simplifications and fusion
before scheduling, the dataflow lowering and the finalize passes after it (the order is
TVM's)."""


def graph_passes():
    """Simplifications, legalization and fusion: CanonicalizeBindings (aliases out of the way
    of the pattern matches below), FoldBatchnormToConv2D, FoldConstant (weight-only work
    computed once at build), EliminateCommonSubexpr, DeadCodeElimination, LegalizeOps,
    AnnotateTIROpPattern, FuseOps, FuseTIR."""
    from .. import transform as T

    return [T.CanonicalizeBindings(), T.FoldBatchnormToConv2D(), T.FoldConstant(),
            T.EliminateCommonSubexpr(), T.DeadCodeElimination(), T.LegalizeOps(),
            T.AnnotateTIROpPattern(), T.FuseOps(), T.FuseTIR()]


def library_dispatch_passes(target=None):  # noqa: ARG001 - every backend's signature
    """Functions a partition pass marked for an external codegen ("Codegen" attr, e.g.
    partition_for_cublas) become calls of registered packed functions (RunCodegen); a module
    without such functions is left as it is."""
    from .. import transform as T

    return [T.RunCodegen()]


def dataflow_lower_passes(target=None):  # noqa: ARG001
    from .. import transform as T

    return [T.ToNonDataflow(), T.RemovePurityChecking(), T.CallTIRRewrite()]


def finalize_passes(target=None):  # noqa: ARG001
    from .. import transform as T

    return [T.StaticPlanBlockMemory(), T.LowerAllocTensor(), T.KillAfterLastUse(),
            T.LowerRuntimeBuiltin(), T.VMShapeLower(), T.AttachGlobalSymbol()]


def vm_lowering():
    """What relax.build runs after any relax_pipeline: the dataflow lowering and finalize
    passes, each of which leaves an already lowered module as it is, so a pipeline that stops
    early (or none) still builds."""
    from ...ir.transform import Sequential

    return Sequential(dataflow_lower_passes() + finalize_passes(), name="relax.vm_lowering")


def backend_pipeline(backend, target, name):
    """A backend module's four stages for `target` as one pass, run under the target."""
    stages = [backend.library_dispatch_passes, backend.legalize_passes,
              backend.dataflow_lower_passes, backend.finalize_passes]
    return staged_pipeline(target, [p for stage in stages for p in stage(target)], name)


def staged_pipeline(target, passes, name):
    from ...ir.transform import ModulePass, PassInfo, Sequential
    from ...target import Target

    target = Target(target)
    seq = Sequential(passes, name=name)

    def run(mod, ctx):
        with target:
            return seq(mod)
    p = ModulePass(run, PassInfo(0, name))
    p.passes = list(passes)
    return p
