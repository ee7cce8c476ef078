"""tvm.tir.Schedule: loop transformations on a PrimFunc (primitives in libtvm_compiler).

    sch = tir.Schedule(te.create_prim_func([A, B, C]))
    i, j, k = sch.get_loops(sch.get_block("C"))
    io, ii = sch.split(i, factors=[None, 8])
    sch.reorder(io, j, ii)           # perfectly nested loops only
    sch.parallel(io); sch.vectorize(ii); sch.unroll(...)
    tvm.compile(sch.mod)

A block is named by the buffer it writes (TE stage name); a loop by its loop Var. Each
primitive replaces `sch.func` with a new PrimFunc (the IR is immutable).
"""

from ..ir import IRModule, _api
from .expr import ForKind, PrimFunc


class BlockRV(str):
    """A block handle: the name of the buffer the block writes."""


class Schedule:
    def __init__(self, mod, func_name=None):
        if isinstance(mod, IRModule):
            names = [str(k) for k in mod.functions.keys()]
            self.func_name = func_name or ("main" if "main" in names else names[0])
            self.func = mod[self.func_name]
        elif isinstance(mod, PrimFunc):
            self.func = mod
            attrs = mod.attrs
            self.func_name = str(attrs["global_symbol"]) if "global_symbol" in attrs else "main"
        else:
            raise TypeError("Schedule expects a PrimFunc or an IRModule")

    @property
    def mod(self):
        return IRModule({self.func_name: self.func})

    def show(self):
        print(self.func)

    # A block is the stage storing to a buffer. After cache_write("C") the computation stores
    # to "C_local" but is still called "C" (as in TVM), and the copy-out stage is "C_local".
    def _buffer_of(self, block):
        return getattr(self, "_renamed", {}).get(str(block), str(block))

    def get_block(self, name, func_name=None):
        _api("tir.schedule.GetLoops")(self.func, self._buffer_of(name))  # raises if absent
        return BlockRV(name)

    def get_loops(self, block):
        init = getattr(self, "_init_loops", {}).get(str(block))
        if init is not None:
            return list(init)
        return list(_api("tir.schedule.GetLoops")(self.func, self._buffer_of(block)))

    def split(self, loop, factors, preserve_unit_iters=True):
        factors = [None if f is None else int(f) for f in factors]
        self.func, loops = _api("tir.schedule.Split")(self.func, loop, factors)
        return list(loops)

    def fuse(self, *loops):
        loops = list(loops[0]) if len(loops) == 1 and isinstance(loops[0], (list, tuple)) else list(loops)
        out = loops[0]
        for nxt in loops[1:]:
            self.func, fused = _api("tir.schedule.Fuse")(self.func, out, nxt)
            out = fused[0]
        return out

    def reorder(self, *loops):
        self.func = _api("tir.schedule.Reorder")(self.func, list(loops))

    def _annotate(self, loop, kind):
        self.func = _api("tir.schedule.Annotate")(self.func, loop, kind)

    def parallel(self, loop):
        self._annotate(loop, ForKind.PARALLEL)

    def vectorize(self, loop):
        self._annotate(loop, ForKind.VECTORIZED)

    def unroll(self, loop):
        self._annotate(loop, ForKind.UNROLLED)

    def rfactor(self, loop, factor_axis=0):
        """Splits the reduction over `loop` (a reduction loop, e.g. the outer part of a split
        reduction axis) in two blocks: `<out>_rf`, partial results with one more dimension
        (at `factor_axis` of the output's shape, negative counts from the end) for `loop`'s
        iteration, that loop moved outermost (independent iterations: parallelize or
        vectorize it), then the output combining them. Returns the rf block. Must come
        before decompose_reduction of that block."""
        self.func, rf = _api("tir.schedule.RFactor")(self.func, loop, int(factor_axis))
        return BlockRV(str(rf))

    def cache_read(self, block, read_buffer_index, storage_scope="local"):
        """`block` reads a cache `<buffer>_local` of the `read_buffer_index`-th buffer it reads
        (in the order of first load); returns the block that copies into the cache, placed
        just before `block`. Move it with compute_at to copy one tile at a time."""
        if storage_scope not in ("local", "global"):
            raise ValueError("cache_read: storage scope %r is not supported on CPU" % storage_scope)
        self.func, cache = _api("tir.schedule.CacheRead")(
            self.func, self._buffer_of(block), int(read_buffer_index))
        return BlockRV(str(cache))

    def cache_write(self, block, write_buffer_index=0, storage_scope="local"):
        """`block` now writes a cache `<buffer>_local`; returns the copy-out block."""
        if write_buffer_index != 0:
            raise ValueError("blocks write one buffer: write_buffer_index must be 0")
        out = self._buffer_of(block)
        self.func, cache = _api("tir.schedule.CacheWrite")(self.func, out)
        cache = str(cache)
        if not hasattr(self, "_renamed"):
            self._renamed = {}
        self._renamed[str(block)] = cache     # the computation keeps its name
        self._renamed[cache] = out            # the copy-out block stores to the output
        self._cache_of = getattr(self, "_cache_of", {})
        self._cache_of[cache] = cache
        return BlockRV(cache)

    def reverse_compute_at(self, block, loop, preserve_unit_loops=False):
        """Moves a cache's copy-out block under `loop` of the computation: each iteration
        copies the tile it produced, and the cache shrinks to that tile."""
        cache = getattr(self, "_cache_of", {}).get(str(block))
        if cache is None:
            raise ValueError("reverse_compute_at supports the copy-out block of cache_write")
        out = self._buffer_of(block)
        self.func = _api("tir.schedule.ReverseComputeAt")(self.func, out, loop, cache)

    def compute_at(self, block, loop, preserve_unit_loops=False):
        """Moves the producer `block` under `loop` of a later stage that reads it: each
        iteration computes the region it reads (an intermediate shrinks to that region).
        The copy-out block of cache_write is moved as by reverse_compute_at."""
        if str(block) in getattr(self, "_cache_of", {}):
            self.reverse_compute_at(block, loop, preserve_unit_loops)
            return
        self.func = _api("tir.schedule.ComputeAt")(self.func, self._buffer_of(block), loop)

    def decompose_reduction(self, block, loop):
        """Moves the init of the reduction `block` out of its loop nest, into a nest of its own
        placed just before `loop` (an ancestor of the init). The update nest under `loop` is
        then perfectly nested, so its reduction loop can be reordered (e.g. outside the
        register tile). The init loops are fresh `<v>_init` loops (those the init does not
        depend on dropped) keeping their kinds; returns the init block (`<name>_init`), whose
        get_loops are the loops above `loop` followed by the init loops."""
        outer = []
        for v in self.get_loops(block):
            if v.same_as(loop):
                break
            outer.append(v)
        self.func, init_loops = _api("tir.schedule.DecomposeReduction")(
            self.func, self._buffer_of(block), loop)
        name = str(block) + "_init"
        if not hasattr(self, "_init_loops"):
            self._init_loops = {}
        self._init_loops[name] = outer + list(init_loops)
        return BlockRV(name)
