"""The default build pipeline for CUDA targets, in TVM's four stages: the CPU pipeline's
graph passes, then dlight's GPU schedules (Matmul, then Fallback: every kernel's loops bound
to blockIdx/threadIdx) instead of DefaultSchedule; the same lowering. Shape functions made by
VMShapeLower are host code (their target is the target's host)."""

from .. import lowering


def library_dispatch_passes(target):  # noqa: ARG001
    return []


def legalize_passes(target):  # noqa: ARG001
    from .... import dlight as dl

    return lowering.graph_passes() + [dl.ApplyDefaultSchedule(dl.gpu.Matmul(), dl.gpu.Fallback())]


def dataflow_lower_passes(target):  # noqa: ARG001
    return lowering.dataflow_lower_passes()


def finalize_passes(target):  # noqa: ARG001
    return lowering.finalize_passes()


def get_default_pipeline(target):
    return lowering.staged_pipeline(target, library_dispatch_passes(target) + legalize_passes(target)
                                    + dataflow_lower_passes(target) + finalize_passes(target),
                                    "relax.cuda")
