"""tvm.dlight: default schedules that need no tuning, chosen per PrimFunc by a list of rules
(TVM's names and meaning):

    import tvm.dlight as dl
    with tvm.target.Target("cuda -arch=sm_80"):
        mod = dl.ApplyDefaultSchedule(dl.gpu.Fallback())(mod)

ApplyDefaultSchedule tries the rules in order on each PrimFunc not yet scheduled (attr
"tir.is_scheduled") and keeps the first schedule a rule returns; the result is marked
scheduled. relax.get_default_pipeline(target) applies it for GPU targets.
"""

from . import gpu
from .base import ApplyDefaultSchedule, ScheduleRule

__all__ = ["ApplyDefaultSchedule", "ScheduleRule", "gpu"]
