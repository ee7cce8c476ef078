"""The default build pipeline for CPU targets, in TVM's four stages; relax.build runs it for
relax_pipeline="default" with an "llvm" target.

  library_dispatch_passes  none yet (no vendor library calls on the CPU)
  legalize_passes          graph simplifications, LegalizeOps, fusion, and DefaultSchedule
                           (a schedule for every kernel, found without search)
  dataflow_lower_passes    ToNonDataflow, RemovePurityChecking, CallTIRRewrite
  finalize_passes          StaticPlanBlockMemory, LowerAllocTensor, KillAfterLastUse,
                           LowerRuntimeBuiltin, VMShapeLower, AttachGlobalSymbol

Unlike TVM's CPU pipeline, ours schedules the kernels (TVM leaves them as plain loop nests
unless tuned), and runs the simplifications before legalization.
"""

from .. import lowering


def library_dispatch_passes(target):  # noqa: ARG001 - same signature for every backend
    return []


def legalize_passes(target):  # noqa: ARG001
    from ...transform import DefaultSchedule

    return lowering.graph_passes() + [DefaultSchedule()]


def dataflow_lower_passes(target):  # noqa: ARG001
    return lowering.dataflow_lower_passes()


def finalize_passes(target):  # noqa: ARG001
    return lowering.finalize_passes()


def get_default_pipeline(target):
    """The four stages as one pass, run under `target` (DefaultSchedule sizes tiles by it)."""
    return lowering.staged_pipeline(target, library_dispatch_passes(target) + legalize_passes(target)
                                    + dataflow_lower_passes(target) + finalize_passes(target),
                                    "relax.cpu_generic")
