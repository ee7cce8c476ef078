"""tvm.s_tir: the name newer TVM releases give the schedulable TensorIR API (tvm.s_tir.Schedule,
`get_sblock`); here the same objects as tvm.tir's."""

from .._compiler_guard import require_compiler

require_compiler("tvm.s_tir")

from ..tir import BlockRV, LoopRV, Schedule, ScheduleError, Trace  # noqa: E402,F401
from ..tir import transform  # noqa: E402,F401

SBlockRV = BlockRV
