"""dlight.gpu.Fallback: a schedule for any PrimFunc in block form, so that nothing runs as a
serial loop on the host.

  - spatial blocks that are not the function's output are inlined into their consumers (a
    bias add / activation / padding is recomputed where it is read instead of written to
    global memory and launched as a kernel of its own);
  - every other block gets its leading spatial loops fused and split into
    [blockIdx.x, threadIdx.x] (threads = min(extent, max_threads)); the loops under them
    (reductions, and spatial loops after a reduction) run serially in that thread: one
    thread per output element, so a row reduction (softmax, mean) is one thread per row;
  - a [spatial..., reduction...] block accumulates in a register (cache_write "local") and
    its elementwise consumers join the write-back (matmul + bias + relu: one kernel);
  - a block with no spatial loop (a reduction to a scalar) runs in one thread: its first loop
    is split [1, extent] and the unit loop bound to blockIdx.x.
"""

from ... import tir
from ..base import ScheduleRule, device_schedule


def _is_spatial(sch, block):
    return all(int(iv.kind) == 0 for iv in sch.get(block).iter_vars)


def _leading_spatial(sch, block, loops):
    """How many of `loops` (outermost first) come before the first loop that carries a
    reduction. A block as TE or FuseTIR made it has one loop per iter var, in order, so the
    iter vars' kinds say it; otherwise a loop is a reduction when `parallel` refuses it
    (tried on a copy of the schedule)."""
    ivs = sch.get(block).iter_vars
    if len(ivs) == len(loops):
        kinds = [int(iv.kind) != 0 for iv in ivs]
    else:
        kinds = []
        for loop in loops:
            trial = tir.Schedule(sch.mod)
            try:
                trial.parallel(loop)
                kinds.append(False)
            except tir.ScheduleError:
                kinds.append(True)
    return kinds.index(True) if True in kinds else len(kinds)


class Fallback(ScheduleRule):
    def __init__(self, max_threads=256):
        self.max_threads = max_threads

    def apply(self, func, target, tunable):
        found = device_schedule(func, target)
        if found is None:
            return None
        sch, root = found
        names = [str(b) for b in sch.get_child_blocks(root)]
        for name in names[:-1]:
            block = sch.get_block(name)
            if _is_spatial(sch, block):
                try:
                    sch.compute_inline(block)
                except tir.ScheduleError:
                    pass  # e.g. its consumer cannot take it: it keeps a kernel of its own
        done = set()
        for name in [str(b) for b in sch.get_child_blocks(sch.get_block("root"))]:
            if name in done:
                continue
            trial = tir.Schedule(sch.mod)
            try:
                done |= self._reduction_in_registers(trial, name)
                sch = trial
                continue
            except tir.ScheduleError:
                pass  # not a [spatial..., reduction...] nest, or its write-back cannot move
            block = sch.get_block(name)
            loops = sch.get_loops(block)
            if not loops:
                return None  # a 0-d block has no loop to bind
            nsp = _leading_spatial(sch, block, loops)
            if nsp == 0:
                unit, _ = sch.split(loops[0], [1, None])
                sch.bind(unit, "blockIdx.x")
                continue
            self._bind_spatial(sch, loops[:nsp])
        return sch

    def _bind_spatial(self, sch, loops):
        """Fuses `loops` and binds them to [blockIdx.x, threadIdx.x]; the threadIdx loop."""
        fused = sch.fuse(*loops) if len(loops) > 1 else loops[0]
        ext = sch.get(fused).extent
        threads = self.max_threads
        if isinstance(ext, tir.IntImm) and int(ext.value) < threads:
            threads = int(ext.value)
        bx, tx = sch.split(fused, [None, threads])
        sch.bind(bx, "blockIdx.x")
        sch.bind(tx, "threadIdx.x")
        return tx

    def _reduction_in_registers(self, sch, name):
        """A [spatial..., reduction...] block: one thread per output element accumulating in a
        register (cache_write "local"), its elementwise consumers (bias add, activation)
        folded into the write-back, so a fused matmul + bias + relu is one kernel and the
        intermediate never reaches global memory. The names of the blocks it took."""
        block = sch.get_block(name)
        loops = sch.get_loops(block)
        nsp = _leading_spatial(sch, block, loops)
        if nsp == 0 or nsp == len(loops):
            raise tir.ScheduleError("not a [spatial..., reduction...] nest")
        acc = sch.cache_write(block, 0, "local")
        taken = {name, str(acc)}
        for consumer in sch.get_consumers(acc):
            try:
                cname = str(consumer)
                sch.reverse_compute_inline(consumer)
                taken.add(cname)
            except tir.ScheduleError:
                pass
        tx = self._bind_spatial(sch, sch.get_loops(sch.get_block(name))[:nsp])
        sch.reverse_compute_at(acc, tx)
        return taken
