"""Relax build pipelines by name (TVM's tvm.relax.pipeline). Every pipeline is a tvm.transform
pass over the IRModule; relax.build(mod, target, relax_pipeline=...) runs the one it is given
(a name, a pass, or None), then VMCodeGen.

  get_pipeline("default") / default_build_pipeline()
        the CPU backend's pipeline for the current (or host) target: graph simplifications,
        LegalizeOps, fusion, DefaultSchedule, then the dataflow lowering and the finalize
        passes (relax.backend.cpu_generic; the stages are listed there)
  get_pipeline("zero") / zero_pipeline()
        TVM's minimal one: LegalizeOps, AnnotateTIROpPattern, FoldConstant, FuseOps, FuseTIR
        (kernels keep their plain loop nests); relax.build adds the lowering
  get_default_pipeline(target)
        the pipeline of `target`'s backend: relax.backend.cpu_generic for CPU targets,
        relax.backend.cuda for GPU targets (dlight schedules instead of DefaultSchedule)

The lowering and its order, written once in relax/backend/lowering.py:
  ToNonDataflow, RemovePurityChecking, CallTIRRewrite,                (dataflow_lower_passes)
  StaticPlanBlockMemory, LowerAllocTensor, KillAfterLastUse,
  LowerRuntimeBuiltin, VMShapeLower, AttachGlobalSymbol                (finalize_passes)
"""

from ..ir.transform import Sequential


def zero_pipeline():
    from .transform import AnnotateTIROpPattern, FoldConstant, FuseOps, FuseTIR, LegalizeOps

    return Sequential([LegalizeOps(), AnnotateTIROpPattern(), FoldConstant(), FuseOps(), FuseTIR()],
                      name="relax.zero")


def default_build_pipeline():
    """The CPU build pipeline for the current target (`with target:`), else the host."""
    from ..target import Target
    from .backend import cpu_generic

    return cpu_generic.get_default_pipeline(Target.current() or Target("llvm"))


_PIPELINES = {"zero": zero_pipeline, "default": default_build_pipeline,
              "default_build": default_build_pipeline}


def get_pipeline(name="default"):
    if name not in _PIPELINES:
        raise ValueError("unknown relax pipeline %r (%s)" % (name, ", ".join(sorted(_PIPELINES))))
    return _PIPELINES[name]()


def get_default_pipeline(target):
    """The build pipeline of `target`'s backend (TVM's relax.get_default_pipeline)."""
    from ..target import Target
    from .backend import cpu_generic, cuda

    target = Target(target)
    return (cuda if target.is_device else cpu_generic).get_default_pipeline(target)
