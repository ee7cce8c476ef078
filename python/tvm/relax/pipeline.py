"""Named Relax pipelines (relax.get_pipeline), all passes through tvm.transform:

  "zero"     LegalizeOps: every operator becomes a call_tir of its TE definition; the kernels
             keep their plain loop nests.
  "default"  LegalizeOps, then DefaultSchedule: each generated PrimFunc gets a schedule that
             needs no tuning (parallel outer loop over the first block's spatial loops), so
             nothing runs as a serial scalar loop nest.

Fusion (FuseOps/FuseTIR), constant folding and memory planning are not in the pipelines yet
(docs/relax.md).
"""

from ..ir.transform import Sequential
from .transform import DefaultSchedule, LegalizeOps


def get_pipeline(name="default"):
    if name == "zero":
        return Sequential([LegalizeOps()], name="relax.zero")
    if name == "default":
        return Sequential([LegalizeOps(), DefaultSchedule()], name="relax.default")
    raise ValueError("unknown relax pipeline %r (zero, default)" % (name,))
