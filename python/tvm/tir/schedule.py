"""tvm.tir.Schedule: TensorIR schedule primitives on block and loop handles (TVM's API; the
primitives live in libtvm_compiler as `tir.schedule.*`).

    sch = tir.Schedule(te.create_prim_func([A, B, C]))
    block = sch.get_block("C")
    i, j, k = sch.get_loops(block)
    io, ii = sch.split(i, factors=[None, 8])
    sch.reorder(io, j, k, ii)
    sch.parallel(io); sch.vectorize(ii)
    print(sch.trace)                  # the primitives applied so far, as Python
    tvm.compile(sch.mod)

A block handle (BlockRV) is the block's name; a loop handle (LoopRV) is its loop variable.
The IR is immutable: every primitive replaces `sch.mod` with a new function, and handles
stay valid as long as the block or loop exists. A primitive whose preconditions fail raises
ScheduleError (naming the block or loop and the condition) and changes nothing.
"""

import tvm_ffi

from ..ir import IRModule, _api
from .expr import ForKind, PrimFunc, Var


@tvm_ffi.register_error("ScheduleError")
class ScheduleError(RuntimeError):
    """A schedule primitive's precondition does not hold."""


class BlockRV(str):
    """A block handle: the block's name."""


LoopRV = Var  # a loop handle is the loop's variable


class Trace:
    """The primitives applied to a schedule, printable as the Python that replays them."""

    def __init__(self):
        self.insts = []    # lines of Python, one per primitive
        self._names = {}   # handle key -> printed name (b0, l1, ...)
        self._count = 0
        self._keep = []    # the loop handles named, so their objects (and keys) stay unique

    @staticmethod
    def _key(value):
        # A loop handle is a Var: every get_loops returns new wrappers of the same object.
        return ("loop", value._h) if isinstance(value, Var) else ("block", str(value))

    def _name(self, value):
        if isinstance(value, (list, tuple)):
            return "[" + ", ".join(self._name(v) for v in value) + "]"
        if isinstance(value, (BlockRV, Var)):
            name = self._names.get(self._key(value))
            if name is not None:
                return name
        if isinstance(value, Var):
            return "loop(%s)" % value.name
        return repr(str(value) if isinstance(value, BlockRV) else value)

    def _bind(self, value):
        name = "%s%d" % ("b" if isinstance(value, BlockRV) else "l", self._count)
        self._count += 1
        self._names[self._key(value)] = name
        self._keep.append(value)
        return name

    def append(self, name, kwargs, outputs=None):
        args = ", ".join("%s=%s" % (k, self._name(v)) for k, v in kwargs.items())
        if outputs is None:
            line = "sch.%s(%s)" % (name, args)
        else:
            outs = outputs if isinstance(outputs, (list, tuple)) else [outputs]
            lhs = ", ".join(self._bind(o) for o in outs)
            line = "%s = sch.%s(%s)" % (lhs if outs else "_", name, args)
        self.insts.append(line)

    def __str__(self):
        body = ["    " + x for x in self.insts] or ["    pass"]
        return "\n".join(["# from tvm import tir", "def apply_trace(sch: tir.Schedule) -> None:"] + body)

    def show(self):
        print(self)


def _loops_arg(loops):
    if len(loops) == 1 and isinstance(loops[0], (list, tuple)):
        loops = loops[0]
    return list(loops)


class Schedule:
    def __init__(self, mod, func_name=None, **kwargs):
        if isinstance(mod, IRModule):
            names = [str(k) for k in mod.functions.keys()]
            self.func_name = func_name or ("main" if "main" in names else names[0])
            self.func = mod[self.func_name]
        elif isinstance(mod, PrimFunc):
            self.func = mod
            attrs = mod.attrs
            self.func_name = str(attrs["global_symbol"]) if "global_symbol" in attrs else "main"
        else:
            raise TypeError("Schedule expects a PrimFunc or an IRModule, got %r" % type(mod).__name__)
        self.trace = Trace()

    @property
    def mod(self):
        return IRModule({self.func_name: self.func})

    def show(self):
        print(self.func)

    def _run(self, prim, *args):
        out = _api("tir.schedule." + prim)(self.func, *args)
        if isinstance(out, PrimFunc):  # primitives that create no handle
            self.func = out
            return None
        self.func = out[0]
        return out[1]

    @staticmethod
    def _block(block):
        if not isinstance(block, str):
            raise TypeError("expected a block handle (BlockRV), got %r" % type(block).__name__)
        return str(block)

    @staticmethod
    def _loop(loop):
        if not isinstance(loop, Var):
            raise TypeError("expected a loop handle (LoopRV), got %r" % type(loop).__name__)
        return loop

    # ---- queries ----

    def get_block(self, name, func_name=None):
        _api("tir.schedule.GetBlock")(self.func, str(name))
        rv = BlockRV(name)
        self.trace.append("get_block", {"name": str(name), "func_name": self.func_name}, rv)
        return rv

    get_sblock = get_block  # the name of newer TVM (tvm.s_tir)

    def get(self, rv):
        """The statement a handle names in the current function: a Block (BlockRV) or a For
        (LoopRV), to read its fields (iter_vars and their kinds, extents...)."""
        target = rv if isinstance(rv, Var) else self._block(rv)
        return _api("tir.schedule.Get")(self.func, target)

    def get_loops(self, block):
        loops = list(_api("tir.schedule.GetLoops")(self.func, self._block(block)))
        self.trace.append("get_loops", {"block": block}, loops)
        return loops

    def get_child_blocks(self, block_or_loop):
        target = block_or_loop if isinstance(block_or_loop, Var) else self._block(block_or_loop)
        out = [BlockRV(str(b)) for b in _api("tir.schedule.GetChildBlocks")(self.func, target)]
        self.trace.append("get_child_blocks", {"block_or_loop": block_or_loop}, out)
        return out

    def get_producers(self, block):
        out = [BlockRV(str(b)) for b in _api("tir.schedule.GetProducers")(self.func, self._block(block))]
        self.trace.append("get_producers", {"block": block}, out)
        return out

    def get_consumers(self, block):
        out = [BlockRV(str(b)) for b in _api("tir.schedule.GetConsumers")(self.func, self._block(block))]
        self.trace.append("get_consumers", {"block": block}, out)
        return out

    # ---- loops ----

    def split(self, loop, factors, preserve_unit_iters=True, disable_predication=False):
        """Splits `loop` into len(factors) nested loops (outermost first); one factor may be
        None (inferred). A split that does not divide the extent adds a predicate to the
        blocks under it."""
        fs = []
        for f in factors:
            if f is None or isinstance(f, int):
                fs.append(f)
            elif hasattr(f, "value"):
                fs.append(int(f.value))
            else:
                raise TypeError("split factors must be int or None, got %r" % (f,))
        loops = list(self._run("Split", self._loop(loop), fs))
        self.trace.append("split", {"loop": loop, "factors": fs}, loops)
        return loops

    def fuse(self, *loops, preserve_unit_iters=True):
        loops = _loops_arg(loops)
        fused = self._run("Fuse", [self._loop(x) for x in loops])
        self.trace.append("fuse", {"loops": loops}, fused)
        return fused

    def reorder(self, *loops):
        loops = _loops_arg(loops)
        self._run("Reorder", [self._loop(x) for x in loops])
        self.trace.append("reorder", {"ordered_loops": loops})

    def _kind(self, name, loop, kind, thread=""):
        self._run("SetLoopKind", self._loop(loop), kind, thread)

    def parallel(self, loop):
        self._kind("parallel", loop, ForKind.PARALLEL)
        self.trace.append("parallel", {"loop": loop})

    def vectorize(self, loop):
        self._kind("vectorize", loop, ForKind.VECTORIZED)
        self.trace.append("vectorize", {"loop": loop})

    def unroll(self, loop):
        self._kind("unroll", loop, ForKind.UNROLLED)
        self.trace.append("unroll", {"loop": loop})

    def bind(self, loop, thread_axis):
        self._kind("bind", loop, ForKind.THREAD_BINDING, str(thread_axis))
        self.trace.append("bind", {"loop": loop, "thread_axis": str(thread_axis)})

    def annotate(self, block_or_loop, ann_key, ann_val):
        target = block_or_loop if isinstance(block_or_loop, Var) else self._block(block_or_loop)
        self._run("Annotate", target, str(ann_key), ann_val)
        self.trace.append("annotate", {"block_or_loop": block_or_loop, "ann_key": ann_key, "ann_val": ann_val})

    def unannotate(self, block_or_loop, ann_key):
        target = block_or_loop if isinstance(block_or_loop, Var) else self._block(block_or_loop)
        self._run("Unannotate", target, str(ann_key))
        self.trace.append("unannotate", {"block_or_loop": block_or_loop, "ann_key": ann_key})

    # ---- caches and compute location ----

    def cache_read(self, block, read_buffer_index, storage_scope="local", consumer_blocks=None):
        """A copy of the `read_buffer_index`-th buffer `block` reads, in `storage_scope`,
        made by a new block (returned) placed after the buffer's producer (or first). The
        readers (`consumer_blocks`, default every reader) read the copy."""
        consumers = [self._block(b) for b in (consumer_blocks or [])]
        out = BlockRV(str(self._run("CacheRead", self._block(block), int(read_buffer_index),
                                    str(storage_scope), consumers)))
        self.trace.append("cache_read", {"block": block, "read_buffer_index": int(read_buffer_index),
                                         "storage_scope": storage_scope}, out)
        return out

    def cache_write(self, block, write_buffer_index=0, storage_scope="local"):
        """`block` writes a copy in `storage_scope`; a new block (returned), placed after
        `block`'s loop nest, copies it out."""
        out = BlockRV(str(self._run("CacheWrite", self._block(block), int(write_buffer_index),
                                    str(storage_scope))))
        self.trace.append("cache_write", {"block": block, "write_buffer_index": int(write_buffer_index),
                                          "storage_scope": storage_scope}, out)
        return out

    def compute_at(self, block, loop, preserve_unit_loops=False, index=-1):
        """Moves `block` (a producer) under `loop` of its consumers: each iteration computes
        the region the consumers under the loop read."""
        self._run("ComputeAt", self._block(block), self._loop(loop))
        self.trace.append("compute_at", {"block": block, "loop": loop})

    def reverse_compute_at(self, block, loop, preserve_unit_loops=False, index=-1):
        """Moves `block` (a consumer) under `loop` of its producers: each iteration consumes
        the region the producers under the loop wrote."""
        self._run("ReverseComputeAt", self._block(block), self._loop(loop))
        self.trace.append("reverse_compute_at", {"block": block, "loop": loop})

    def compute_inline(self, block):
        """Inlines the elementwise/injective `block` into its consumers (its buffer goes)."""
        self._run("ComputeInline", self._block(block))
        self.trace.append("compute_inline", {"block": block})

    def reverse_compute_inline(self, block):
        """Inlines the elementwise consumer `block` into its producer."""
        self._run("ReverseComputeInline", self._block(block))
        self.trace.append("reverse_compute_inline", {"block": block})

    # ---- reductions ----

    def decompose_reduction(self, block, loop):
        """Moves the init of reduction `block` into a block of its own (returned, named
        `<block>_init`) placed just before `loop`, over copies of the loops between `loop`
        and the block that its spatial vars depend on."""
        out = BlockRV(str(self._run("DecomposeReduction", self._block(block), self._loop(loop))))
        self.trace.append("decompose_reduction", {"block": block, "loop": loop}, out)
        return out

    def rfactor(self, loop, factor_axis):
        """Factorizes the reduction over `loop`: a block `<block>_rf` (returned) computes
        partial results in `<buffer>_rf`, with `loop` as a spatial dimension at
        `factor_axis`, in place of the original; the original block, after that loop nest,
        combines them."""
        out = BlockRV(str(self._run("RFactor", self._loop(loop), int(factor_axis))))
        self.trace.append("rfactor", {"loop": loop, "factor_axis": int(factor_axis)}, out)
        return out

    # ---- layout ----

    def transform_layout(self, block, buffer, index_map, pad_value=None, *,
                         assume_injective_transform=False):
        """Changes the layout of a buffer: `buffer` is ("read"|"write", index) of `block`, or
        a buffer name; `index_map` maps old indices to new ones (a lambda). An argument
        buffer changes the function's signature: callers pass data in the new layout.
        `assume_injective_transform` (TVM's keyword) changes nothing here: the map is checked
        to be one to one by counting, which an injective map always passes."""
        if pad_value is not None:
            raise ScheduleError("transform_layout: pad_value is not supported")
        if isinstance(buffer, tuple):
            kind, idx = buffer
            if kind not in ("read", "write"):
                raise ValueError("transform_layout: buffer must be ('read'|'write', index) or a name")
            spec = [str(kind), int(idx)]
        else:
            spec = ["name", str(buffer)]
        ndim = int(_api("tir.schedule.BufferNdim")(self.func, self._block(block), spec))
        # the index map computes in the buffer's index type (as TVM's IndexMap): int32
        # variables over int64 indices would put casts into every access, and a cast hides
        # `(jo * 16 + ji) // 16 == jo` from the simplifier
        dtype = str(_api("tir.schedule.BufferIndexDtype")(self.func, self._block(block), spec))
        inputs = [Var("i%d" % d, dtype) for d in range(ndim)]
        outputs = index_map(*inputs)
        if not isinstance(outputs, (list, tuple)):
            outputs = [outputs]
        from .expr import convert
        outputs = [convert(o, dtype) for o in outputs]
        self._run("TransformLayout", self._block(block), spec, inputs, outputs)
        self.trace.append("transform_layout", {"block": block, "buffer": buffer,
                                               "index_map": "lambda %s: %s" % (
                                                   ", ".join(v.name for v in inputs),
                                                   tuple(str(o) for o in outputs))})

    def storage_align(self, block, buffer_index, axis, factor, offset):
        """Pads the stride of `axis` of the `buffer_index`-th buffer `block` writes so that
        stride % factor == offset when the buffer is allocated (an intermediate buffer, not
        an argument; `axis` is not the last dimension)."""
        self._run("StorageAlign", self._block(block), int(buffer_index), int(axis), int(factor),
                  int(offset))
        self.trace.append("storage_align", {"block": block, "buffer_index": int(buffer_index),
                                            "axis": int(axis), "factor": int(factor),
                                            "offset": int(offset)})
