"""Named Relax pipelines (relax.get_pipeline), all passes through tvm.transform:

  "zero"     LegalizeOps: every operator becomes a call_tir of its TE definition; the kernels
             keep their plain loop nests.
  "default"  LegalizeOps, AnnotateTIROpPattern, FuseOps, FuseTIR (chains of elementwise/
             broadcast kernels after a matmul, conv, reduction or each other become one
             kernel), then DefaultSchedule: each PrimFunc gets a schedule that needs no tuning
             (elementwise stages inlined, register-tiled matmul with its epilogue in the
             write-back, parallel outer loops).

Constant folding and memory planning are not in the pipelines yet (docs/relax.md).
"""

from ..ir.transform import Sequential
from .transform import AnnotateTIROpPattern, DefaultSchedule, FuseOps, FuseTIR, LegalizeOps


def get_pipeline(name="default"):
    if name == "zero":
        return Sequential([LegalizeOps()], name="relax.zero")
    if name == "default":
        return Sequential([LegalizeOps(), AnnotateTIROpPattern(), FuseOps(), FuseTIR(), DefaultSchedule()],
                          name="relax.default")
    raise ValueError("unknown relax pipeline %r (zero, default)" % (name,))
