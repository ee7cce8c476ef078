"""dlight.gpu.Matmul: shared-memory tiling for a function whose reduction block is a matmul
nest [batch..., i, j, k] (one reduction loop, the last), e.g. Relax's matmul, linear and
their fused epilogues. Other functions: None (the next rule, Fallback, takes them).

Each thread block computes a (tile * inner) x (tile * inner) output tile with tile x tile
threads, each thread an inner x inner register tile (cache_write "local"); for every
k-step of `ktile` both inputs' slices are staged in shared memory by all threads together
(cache_read "shared" + compute_at, the copy loop split over threadIdx.y/x; ThreadSync puts
the barriers). Batch loops are fused onto blockIdx.z. Sizes that do not divide the tile are
predicated. Elementwise consumers join the write-back, as in Fallback.
"""

from ... import tir
from ..base import ScheduleRule, device_schedule
from .fallback import Fallback, _is_spatial, _leading_spatial


class Matmul(ScheduleRule):
    def __init__(self, tile=16, inner=4, ktile=16):
        self.tile, self.inner, self.ktile = tile, inner, ktile

    def apply(self, func, target, tunable):
        found = device_schedule(func, target)
        if found is None:
            return None
        sch, root = found
        names = [str(b) for b in sch.get_child_blocks(root)]
        for name in names[:-1]:
            if _is_spatial(sch, sch.get_block(name)):
                try:
                    sch.compute_inline(sch.get_block(name))
                except tir.ScheduleError:
                    pass
        blocks = [str(b) for b in sch.get_child_blocks(sch.get_block("root"))]
        reductions = [b for b in blocks if not _is_spatial(sch, sch.get_block(b))]
        if len(reductions) != 1:
            return None
        name = reductions[0]
        block = sch.get_block(name)
        loops = sch.get_loops(block)
        if len(loops) < 3 or _leading_spatial(sch, block, loops) != len(loops) - 1:
            return None
        if len(sch.get(block).reads) != 2:
            return None     # A and B only (an epilogue's operands are read by its own block)
        try:
            sch = self._tile(sch, name)
        except tir.ScheduleError:
            return None
        # whatever is left (an epilogue that could not join the write-back): Fallback's binding
        for other in [str(b) for b in sch.get_child_blocks(sch.get_block("root"))]:
            if other in self._taken:
                continue
            loops = sch.get_loops(sch.get_block(other))
            if any(int(sch.get(l).kind) == tir.ForKind.THREAD_BINDING for l in loops):
                continue
            Fallback()._bind_spatial(sch, loops[:_leading_spatial(sch, sch.get_block(other), loops)])
        return sch

    def _tile(self, sch, name):
        tile, inner = self.tile, self.inner
        block = sch.get_block(name)
        *batch, i, j, k = sch.get_loops(block)
        acc = sch.cache_write(block, 0, "local")
        self._taken = {name, str(acc)}
        for consumer in sch.get_consumers(acc):
            cname = str(consumer)
            try:
                sch.reverse_compute_inline(consumer)
                self._taken.add(cname)
            except tir.ScheduleError:
                pass
        bi, ti, ii = sch.split(i, [None, tile, inner])
        bj, tj, ji = sch.split(j, [None, tile, inner])
        ko, ki = sch.split(k, [None, self.ktile])
        bz = sch.fuse(*batch) if len(batch) > 1 else (batch[0] if batch else None)
        order = ([bz] if bz is not None else []) + [bi, bj, ti, tj, ko, ki, ii, ji]
        sch.reorder(*order)
        if bz is not None:
            sch.bind(bz, "blockIdx.z")
        sch.bind(bi, "blockIdx.y")
        sch.bind(bj, "blockIdx.x")
        sch.bind(ti, "threadIdx.y")
        sch.bind(tj, "threadIdx.x")
        sch.reverse_compute_at(acc, tj)
        for idx in (0, 1):
            shared = sch.cache_read(block, idx, "shared")
            sch.compute_at(shared, ko)
            copy = sch.get_loops(shared)[len(order) - 3:]   # the loops under ko
            fused = sch.fuse(*copy) if len(copy) > 1 else copy[0]
            _, ty, tx = sch.split(fused, [None, tile, tile])
            sch.bind(ty, "threadIdx.y")
            sch.bind(tx, "threadIdx.x")
        sch.decompose_reduction(block, ko)
        return sch
