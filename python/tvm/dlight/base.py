"""ScheduleRule and ApplyDefaultSchedule (tvm.dlight's driver)."""

from .. import tir
from ..ir import IRModule


class ScheduleRule:
    """A rule: apply(func, target, tunable) -> tir.Schedule, or None when it does not apply
    to this function (the next rule is tried)."""

    def apply(self, func, target, tunable):
        raise NotImplementedError(type(self).__name__ + ".apply")


def device_schedule(func, target):
    """(schedule, root block) of `func` for a GPU rule, or None when the rule has nothing to
    do: a CPU target, or a function not in block form."""
    if target is not None and not getattr(target, "is_device", False):
        return None
    sch = tir.Schedule(func)
    try:
        return sch, sch.get_block("root")
    except Exception:  # noqa: BLE001 - not in block form
        return None


def ApplyDefaultSchedule(*rules):  # noqa: N802 (TVM's naming of passes)
    """A module pass scheduling every PrimFunc that is not marked "tir.is_scheduled" with the
    first rule that applies; the target is the function's attr "target" or the current one
    (`with Target(...)`). A function no rule schedules is left as it was."""
    from ..ir.transform import ModulePass, PassInfo
    from ..target import Target

    def run(mod, ctx):
        out = {}
        for name, f in mod.functions.items():
            if not isinstance(f, tir.PrimFunc) or "tir.is_scheduled" in f.attrs:
                out[str(name)] = f
                continue
            target = f.attrs["target"] if "target" in f.attrs else Target.current(allow_none=False)
            for rule in rules:
                sch = rule.apply(f, target, False)
                if sch is not None:
                    f = sch.mod[sch.func_name].with_attr("tir.is_scheduled", True)
                    break
            out[str(name)] = f
        return IRModule(out)
    return ModulePass(run, PassInfo(0, "dlight.ApplyDefaultSchedule"))
