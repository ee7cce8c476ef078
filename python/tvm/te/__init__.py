"""tvm.te: tensor expressions. placeholder/compute/reduce_axis/sum/max/min/create_prim_func.

A te.Tensor (libtvm_compiler object "te.Tensor") owns the Buffer the generated function reads
or writes; `create_prim_func` (C++ "te.CreatePrimFunc") emits one loop nest per stage.
"""

from .._compiler_guard import require_compiler

require_compiler("tvm.te")

import threading

from tvm_ffi import register_object

from ..ir import Node, _api
from .. import tir as _tir
from ..tir.expr import PrimExpr, convert

_CAPTURE = threading.local()


@register_object("te.Tensor")
class Tensor(Node):
    """A TE tensor: placeholder or compute stage."""

    @property
    def shape(self):
        return list(self.buffer.shape)

    @property
    def dtype(self):
        return self.buffer.dtype

    @property
    def name(self):
        return self.buffer.name

    @property
    def ndim(self):
        return len(self.buffer.shape)

    def __getitem__(self, indices):
        if not isinstance(indices, tuple):
            indices = (indices,)
        stack = getattr(_CAPTURE, "stack", None)
        if stack:
            stack[-1].append(self)
        return _tir.BufferLoad(self.buffer, list(indices))


def _shape(shape):
    """Dimensions as PrimExprs, arithmetic simplified: an extent written as an expression of
    constants (a conv's ((16 + 1 + 1) - 3) // 1 + 1) must be the constant 16 for the schedule
    (divisible splits need no predicate) and for the buffers' sizes."""
    if isinstance(shape, (int, PrimExpr)):
        shape = (shape,)
    out = []
    for s in shape:
        if isinstance(s, int):
            s = convert(s, "int32")
        elif not isinstance(s, (_tir.IntImm, _tir.Var)) and isinstance(s, PrimExpr):
            s = _api("arith.Simplify")(s, {})
        out.append(s)
    return out


def placeholder(shape, dtype="float32", name="placeholder"):
    """An input tensor."""
    buf = _tir.decl_buffer(_shape(shape), dtype, name)
    return _api("te.Tensor")(buf, [], None, [])


def var(name="tindex", dtype="int32"):
    return _tir.Var(name, dtype)


def reduce_axis(dom, name="rv"):
    """A reduction axis over [dom[0], dom[1])."""
    begin, end = dom
    if isinstance(begin, int) and isinstance(end, int):
        extent = end - begin
    else:
        # The index type is the bounds' (int64 for int64 shapes, as Relax makes them).
        dtype = "int64" if any(isinstance(v, PrimExpr) and str(v.dtype) == "int64"
                               for v in (begin, end)) else "int32"
        begin, end = convert(begin, dtype), convert(end, dtype)
        extent = end - begin
        if isinstance(begin, _tir.IntImm) and int(begin.value) == 0:
            extent = end
    return _tir.IterVar((begin, extent), name, _tir.IterVar.CommReduce)


def compute(shape, fcompute, name="compute", tag="", attrs=None):
    """A tensor whose element at `indices` is `fcompute(*indices)`."""
    shape = _shape(shape)
    code = fcompute.__code__
    argnames = list(code.co_varnames[:code.co_argcount])
    if len(argnames) != len(shape):
        argnames = ["i%d" % k for k in range(len(shape))]
    axis = [_tir.IterVar((0, s), _tir.Var(n, str(s.dtype)), _tir.IterVar.DataPar)
            for n, s in zip(argnames, shape)]
    if not hasattr(_CAPTURE, "stack"):
        _CAPTURE.stack = []
    _CAPTURE.stack.append([])
    try:
        body = fcompute(*[iv.var for iv in axis])
    finally:
        used = _CAPTURE.stack.pop()
    body = convert(body)
    inputs = []
    for t in used:
        if not any(t.same_as(u) for u in inputs):
            inputs.append(t)
    buf = _tir.decl_buffer(shape, str(body.dtype), name)
    return _api("te.Tensor")(buf, axis, body, inputs)


def _reducer(combiner, elementwise):
    def f(expr, axis=None, where=None, *args):
        if axis is None or isinstance(axis, PrimExpr) and not isinstance(axis, _tir.IterVar):
            if axis is None and elementwise is None:
                raise TypeError("te.%s needs axis=" % combiner)
            return elementwise(expr, axis)
        axes = list(axis) if isinstance(axis, (list, tuple)) else [axis]
        # where=: only the points where it holds are visited (the others are never read).
        if isinstance(where, bool):
            # Likely `a != b` or `a == b` on expressions: those compare identity here.
            raise TypeError("te.%s(where=...) needs a bool expression, got the Python bool %r "
                            "(use tir.EQ/tir.NE to compare expressions)" % (combiner, where))
        cond = _tir.const(True, "bool") if where is None else convert(where)
        return _api("tir.Reduce")(combiner, convert(expr), axes, cond)
    f.__name__ = combiner
    f.__doc__ = "Reduction by %s over `axis` (or, given two expressions, elementwise)." % combiner
    return f


sum = _reducer("sum", None)  # noqa: A001
max = _reducer("max", _tir.max)  # noqa: A001
min = _reducer("min", _tir.min)  # noqa: A001
prod = _reducer("prod", None)


def create_prim_func(ops, name="main"):
    """A PrimFunc whose parameters are `ops` (placeholders and outputs), in order."""
    return _api("te.CreatePrimFunc")(list(ops), name)


# Elementwise math re-exported as in TVM (te.exp, te.sqrt, ...).
from ..tir.op import (abs, ceil, cos, exp, floor, if_then_else, log, sigmoid, sin, sqrt,  # noqa
                      tanh)
