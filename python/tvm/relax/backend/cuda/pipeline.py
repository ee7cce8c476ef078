"""The default build pipeline for CUDA targets, in TVM's four stages: the CPU pipeline's
graph passes, then dlight's GPU schedules (Matmul, then Fallback: every kernel's loops bound
to blockIdx/threadIdx) instead of DefaultSchedule; the same lowering. Shape functions made by
VMShapeLower are host code (their target is the target's host)."""

import sys

from .. import lowering

# The stages this backend shares with the others (relax/backend/lowering.py).
library_dispatch_passes = lowering.library_dispatch_passes
dataflow_lower_passes = lowering.dataflow_lower_passes
finalize_passes = lowering.finalize_passes


def legalize_passes(target):  # noqa: ARG001
    from .... import dlight as dl

    return lowering.graph_passes() + [dl.ApplyDefaultSchedule(dl.gpu.Matmul(), dl.gpu.Fallback())]


def get_default_pipeline(target):
    """The four stages as one pass, run under `target` (schedules size things by it)."""
    return lowering.backend_pipeline(sys.modules[__name__], target, "relax.cuda")
