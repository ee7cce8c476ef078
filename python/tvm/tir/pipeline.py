"""The TIR pipelines (TVM's tvm.tirx.pipeline names), what tvm.tir.build runs:

    get_tir_pipeline("default")      lowering: LowerInitBlock, ConvertBlocksToOpaque,
                                     CompactBufferAllocation, LowerOpaqueBlock, Simplify,
                                     HoistIfThenElse, UnrollLoop, FlattenBuffer, VectorizeLoop,
                                     Simplify; then SplitHostDevice (kernels out of functions
                                     bound to a GPU target), ThreadSync("shared") in the
                                     kernels, MakePackedAPI on the host functions
    finalize_host_passes()           LowerTVMBuiltin (workspace calls for large temporaries)
    finalize_device_passes()         nothing yet (the kernels are final after the pipeline)

"default" is also called "s_tir" (TVM's name for it); get_default_tir_pipeline(target) picks
it for every target here. register_tir_pipeline(name, factory) adds a named one.
"""

from ..ir.transform import Sequential
from . import transform as T


def lowering_passes():
    """The block-to-loop lowering, as a list (what tvm.lower ran)."""
    return [T.LowerInitBlock(), T.ConvertBlocksToOpaque(), T.CompactBufferAllocation(),
            T.LowerOpaqueBlock(), T.Simplify(), T.HoistIfThenElse(), T.UnrollLoop(),
            T.FlattenBuffer(), T.VectorizeLoop(), T.Simplify()]


def default_tir_pipeline():
    """The default pipeline as one pass: lowering, then the host/device split and the packed
    calling convention of the host functions."""
    return Sequential(lowering_passes() + [T.SplitHostDevice(), T.ThreadSync("shared"),
                                           T.MakePackedAPI()], name="tir.default")


def finalize_host_passes():
    """What the host functions get after the split."""
    return Sequential([T.LowerTVMBuiltin()], name="tir.finalize_host")


def finalize_device_passes():
    """What each device module gets after the split (nothing yet)."""
    return Sequential([], name="tir.finalize_device")


PIPELINE_MAP = {"default": default_tir_pipeline, "s_tir": default_tir_pipeline}


def register_tir_pipeline(name, pipeline_factory):
    """Makes get_tir_pipeline(name) return pipeline_factory(**kwargs)."""
    PIPELINE_MAP[name] = pipeline_factory


def get_tir_pipeline(name="default", **kwargs):
    """The named pipeline (a tvm.transform.Pass)."""
    if name is None:
        name = "default"
    if name not in PIPELINE_MAP:
        raise ValueError("unknown TIR pipeline %r: the pipelines are %s"
                         % (name, sorted(PIPELINE_MAP)))
    return PIPELINE_MAP[name](**kwargs)


def get_default_tir_pipeline(target):  # noqa: ARG001 - one pipeline serves every target here
    """The pipeline tvm.tir.build runs for `target` when none is named."""
    return get_tir_pipeline("s_tir")


__all__ = ["default_tir_pipeline", "finalize_device_passes", "finalize_host_passes",
           "get_default_tir_pipeline", "get_tir_pipeline", "lowering_passes",
           "register_tir_pipeline"]
