"""DefaultSchedule: a schedule for every PrimFunc that has none, with no tuning.

For each block, outermost first: the run of spatial loops at the top of its nest is fused
and made parallel (a block whose outer loop is a reduction keeps it serial). Functions with
the attr "tir.is_scheduled" are left alone; the result carries it.
"""

from ... import tir
from ...ir import IRModule


def _schedule(func):
    sch = tir.Schedule(func)
    for block in sch.get_child_blocks(sch.get_block("root")) if _has_root(sch) else []:
        loops = sch.get_loops(block)
        if not loops:
            continue
        try:
            sch.parallel(loops[0])
        except tir.ScheduleError:
            continue  # the outer loop is a reduction (or binds one): leave it serial
    return sch.mod["main"] if "main" in sch.mod else list(sch.mod.functions.values())[0]


def _has_root(sch):
    try:
        sch.get_block("root")
        return True
    except Exception:  # noqa: BLE001 - a function without the root block has nothing to do
        return False


def DefaultSchedule():  # noqa: N802 (TVM's naming of passes)
    from ...ir.transform import ModulePass, PassInfo
    from .. import expr as _expr

    def run(mod, ctx):
        out = {}
        for name, f in mod.functions.items():
            if isinstance(f, _expr.Function) or "tir.is_scheduled" in f.attrs:
                out[str(name)] = f
                continue
            out[str(name)] = _schedule(f).with_attr("tir.is_scheduled", True)
        return IRModule(out)
    return ModulePass(run, PassInfo(0, "relax.DefaultSchedule"))
