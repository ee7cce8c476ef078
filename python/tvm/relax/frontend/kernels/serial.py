"""Building blocks of hand-written serial TIR kernels, for the ops whose algorithm is
sequential (a running count, greedy suppression) or whose loop extents depend on data
(RoiAlign's adaptive sampling grid): detection.py (NonZero, NMS, RoiAlign; used by the ONNX
and torch frontends), the ONNX If's branch copy, torch's index_put.

A kernel is a PrimFunc in destination-passing style (inputs, then outputs) made of serial
For loops, BufferStores and IfThenElse; its buffers have symbolic extents of their own (bound
from the tensors passed at run time), so one kernel serves every shape. The importer calls it
with R.call_tir (`call`: only the BlockBuilder is used, so either frontend's context works).
Value-dependent output extents (NonZero's count, the number of boxes NMS selects) are
computed first into an int64 tensor and bound to symbolic variables (onnx
run_time_bounds.bind_lengths; torch aten_detection.bind_extent), as the other run-time
shapes are.
"""


def _tir():
    from .... import tir
    return tir


def i64(v):
    return _tir().const(int(v), "int64")


def f32(v):
    return _tir().const(float(v), "float32")


def buffer(name, ndim, dtype, dims=None):
    """A parameter buffer with extents `dims` (default: fresh int64 variables)."""
    tir = _tir()
    if dims is None:
        dims = [tir.Var("%s_d%d" % (name, i), "int64") for i in range(ndim)]
    return tir.decl_buffer(list(dims), dtype, name=name)


def seq(*stmts):
    stmts = [s for s in stmts if s is not None]
    return stmts[0] if len(stmts) == 1 else _tir().SeqStmt(stmts)


def loop(name, extent, body_fn):
    """for v in range(extent): body_fn(v)  (serial, int64)."""
    tir = _tir()
    v = tir.Var(name, "int64")
    return tir.For(v, i64(0), extent, tir.ForKind.SERIAL, body_fn(v))


def when(cond, then, other=None):
    return _tir().IfThenElse(cond, then, other)


def store(buf, value, *idx):
    return _tir().BufferStore(buf, value, list(idx))


class Locals:
    """Scalar local variables (1-element local buffers), allocated around the body; and the
    kernel's loops (`loop`)."""

    def __init__(self):
        self._bufs = []
        self._iter = None

    def loop(self, name, extent, body_fn):
        """for v in range(extent): body_fn(v), serial. The body starts with a store of v into
        a local: tir.transform.HoistIfThenElse moves every conjunct of a loop body's guard
        that does not use the loop variable out of the loop, even one that reads a buffer the
        loop writes (a running count: `if count < limit`), which is wrong for these kernels;
        a body that is not a bare IfThenElse is left alone by it."""
        if self._iter is None:
            self._iter = self.new("iteration", "int64")
        return loop(name, extent, lambda v: seq(store(self._iter, v, 0), body_fn(v)))

    def new(self, name, dtype):
        b = _tir().decl_buffer((1,), dtype, name=name, scope="local")
        self._bufs.append(b)
        return b

    def wrap(self, body):
        for b in reversed(self._bufs):
            body = _tir().Allocate(b, body)
        return body


def prim_func(name, params, body):
    return _tir().PrimFunc(params, body).with_attr("global_symbol", name)


def call(ctx, func, name, args, out_sinfo):
    """R.call_tir of `func` (added to the module under `name`) on `args`."""
    from ... import op as R

    gv = ctx.bb.add_func(func, name)
    # the symbol is the (possibly uniquified) name in the module, as BlockBuilder.call_te does
    ctx.bb.update_func(gv, func.with_attr("global_symbol", str(gv.name_hint)))
    return R.call_tir(gv, list(args), out_sinfo)
