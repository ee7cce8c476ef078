"""The default build pipeline for CPU targets, in TVM's four stages; relax.build runs it for
relax_pipeline="default" with an "llvm" target.

  library_dispatch_passes  RunCodegen: functions a partition pass marked "Codegen" (e.g.
                           partition_for_cublas) become registered packed-function calls
  legalize_passes          graph simplifications, ConvertLayout (convolutions and what
                           lies between them channels-last), LegalizeOps, fusion, and DefaultSchedule
                           (a schedule for every kernel, found without search)
  dataflow_lower_passes    ToNonDataflow, RemovePurityChecking, CallTIRRewrite
  finalize_passes          StaticPlanBlockMemory, LowerAllocTensor, KillAfterLastUse,
                           LowerRuntimeBuiltin, VMShapeLower, AttachGlobalSymbol

Unlike TVM's CPU pipeline, ours schedules the kernels (TVM leaves them as plain loop nests
unless tuned), and runs the simplifications before legalization.
"""

import sys

from .. import lowering

# The stages this backend shares with the others (relax/backend/lowering.py).
library_dispatch_passes = lowering.library_dispatch_passes
dataflow_lower_passes = lowering.dataflow_lower_passes
finalize_passes = lowering.finalize_passes


def legalize_passes(target):  # noqa: ARG001
    from ...transform import ConvertLayout, DefaultSchedule
    from ..early_kernels import StartKernelBuild

    graph = lowering.graph_passes()
    # CNNs run channels-last end to end (the convolution's register tile runs over output
    # channels): after batch norms are folded into NCHW convolutions, before FoldConstant.
    at = [str(p.info.name) for p in graph].index("relax.FoldConstant")
    # StartKernelBuild: the kernels are final here; relax.build starts their LLVM work now
    # (backend/early_kernels.py), beside the passes that follow.
    return (graph[:at] + [ConvertLayout({"relax.nn.conv2d": ["NHWC", "default"]})] + graph[at:] +
            [DefaultSchedule(), StartKernelBuild()])


def get_default_pipeline(target):
    """The four stages as one pass, run under `target` (schedules size things by it)."""
    return lowering.backend_pipeline(sys.modules[__name__], target, "relax.cpu_generic")
