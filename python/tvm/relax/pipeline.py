"""Named Relax pipelines (relax.get_pipeline), all passes through tvm.transform:

  "zero"     LegalizeOps: every operator becomes a call_tir of its TE definition; the kernels
             keep their plain loop nests.
  "default"  first the graph simplifications, then LegalizeOps, AnnotateTIROpPattern, FuseOps,
             FuseTIR (chains of elementwise/broadcast kernels after a matmul, conv, reduction
             or each other become one kernel) and DefaultSchedule (each PrimFunc gets a
             schedule that needs no tuning: elementwise stages inlined, register-tiled matmul
             with its epilogue in the write-back, parallel outer loops). The simplifications,
             in this order: CanonicalizeBindings (aliases out of the way of the pattern
             matches below), FoldBatchnormToConv2D (inference BN into the conv weight + a bias
             add), FoldConstant (weight-only work such as transposes and the folded BN's
             results, computed once at build), EliminateCommonSubexpr, DeadCodeElimination
             (the bindings the folds left unused, functions nothing calls).

Memory planning and shape lowering happen in relax.build's lowering (vm_build.py).
"""

from ..ir.transform import Sequential
from .transform import (AnnotateTIROpPattern, CanonicalizeBindings, DeadCodeElimination,
                        DefaultSchedule, EliminateCommonSubexpr, FoldBatchnormToConv2D, FoldConstant,
                        FuseOps, FuseTIR, LegalizeOps)


def get_pipeline(name="default"):
    if name == "zero":
        return Sequential([LegalizeOps()], name="relax.zero")
    if name == "default":
        return Sequential([CanonicalizeBindings(), FoldBatchnormToConv2D(), FoldConstant(),
                           EliminateCommonSubexpr(), DeadCodeElimination(), LegalizeOps(),
                           AnnotateTIROpPattern(), FuseOps(), FuseTIR(), DefaultSchedule()],
                          name="relax.default")
    raise ValueError("unknown relax pipeline %r (zero, default)" % (name,))


def get_default_pipeline(target):
    """The pipeline relax.build runs for `target` (TVM's relax.get_default_pipeline): "llvm"
    gets get_pipeline("default"); GPU targets (cuda, nvptx) get the same simplifications and
    fusion, then dlight's GPU schedules (Matmul, then Fallback) instead of the CPU
    DefaultSchedule (every kernel's loops bound to blockIdx/threadIdx), under the target."""
    from ..target import Target

    target = Target(target)
    if not target.is_device:
        return get_pipeline("default")
    from .. import dlight as dl
    from ..ir.transform import ModulePass, PassInfo

    passes = [CanonicalizeBindings(), FoldBatchnormToConv2D(), FoldConstant(),
              EliminateCommonSubexpr(), DeadCodeElimination(), LegalizeOps(),
              AnnotateTIROpPattern(), FuseOps(), FuseTIR()]
    schedule = dl.ApplyDefaultSchedule(dl.gpu.Matmul(), dl.gpu.Fallback())

    def run(mod, ctx):
        with target:
            return schedule(Sequential(passes)(mod))
    return ModulePass(run, PassInfo(0, "relax.default_%s" % target.kind_name))
