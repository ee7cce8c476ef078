"""tvm.s_tir: the name TVM 0.27 gives the schedulable TensorIR API (tvm.s_tir.Schedule,
`get_sblock`, s_tir.pipeline, s_tir.dlight); here the same objects as tvm.tir's and
tvm.dlight's: s_tir.schedule is tvm.tir.schedule, s_tir.pipeline is tvm.tir.pipeline (the
"s_tir" pipeline is the default one), s_tir.dlight is tvm.dlight."""

import sys

from .. import dlight  # noqa: F401
from ..tir import BlockRV, LoopRV, Schedule, ScheduleError, Trace  # noqa: F401
from ..tir import pipeline, schedule, transform  # noqa: F401

SBlockRV = BlockRV

for _name, _module in (("pipeline", pipeline), ("schedule", schedule), ("transform", transform),
                       ("dlight", dlight)):
    sys.modules[__name__ + "." + _name] = _module
for _name, _module in list(sys.modules.items()):
    if _name.startswith(dlight.__name__ + "."):
        sys.modules[__name__ + ".dlight." + _name[len(dlight.__name__) + 1:]] = _module
