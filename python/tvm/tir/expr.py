"""TIR expressions, statements, Buffer and PrimFunc as Python wrappers of libtvm_compiler nodes.

Expressions overload the arithmetic and comparison operators (``a + 1``, ``a < b``); Python
numbers take the dtype of the other operand, and mixed dtypes are promoted (int -> float,
narrow -> wide), as in TVM. ``==`` keeps Python identity semantics; use ``tir.EQ``.
"""

import numbers

from tvm_ffi import register_object

from ..ir import Node, _api


def _dtype_str(t):
    return str(t)


def _parse(t):
    s = _dtype_str(t)
    lanes = 1
    if "x" in s:
        s, l = s.split("x")
        lanes = int(l)
    if s == "bool":
        return "bool", 8, lanes
    for kind in ("uint", "int", "float", "handle"):
        if s.startswith(kind):
            return kind, int(s[len(kind):] or 64), lanes
    return s, 0, lanes


def const(value, dtype=None):
    """A constant: IntImm for int/uint/bool dtypes, FloatImm for float."""
    if dtype is None:
        if isinstance(value, bool):
            dtype = "bool"
        elif isinstance(value, numbers.Integral):
            dtype = "int32" if -2**31 <= value < 2**31 else "int64"
        else:
            dtype = "float32"
    kind = _parse(dtype)[0]
    if kind == "float":
        return _api("tir.FloatImm")(dtype, float(value))
    return _api("tir.IntImm")(dtype, int(value))


def convert(value, dtype=None):
    """PrimExpr of `value` (a PrimExpr is returned as is)."""
    if isinstance(value, PrimExpr):
        return value
    if isinstance(value, IterVar):
        return value.var
    if isinstance(value, (bool, numbers.Number)):
        return const(value, dtype)
    if hasattr(value, "dtype") and hasattr(value, "item"):  # numpy scalar
        return const(value.item(), str(value.dtype))
    raise TypeError("cannot convert %r to a PrimExpr" % (value,))


def _promote(a, b):
    if not isinstance(a, PrimExpr) and not isinstance(b, PrimExpr):
        a = convert(a)
    if not isinstance(a, PrimExpr):
        if isinstance(a, float) and _parse(b.dtype)[0] != "float":
            a = convert(a, "float32" if True else None)
            return _promote(a, b)
        a = convert(a, b.dtype)
    if not isinstance(b, PrimExpr):
        if isinstance(b, float) and _parse(a.dtype)[0] != "float":
            return _promote(a, convert(b, "float32"))
        b = convert(b, a.dtype)
    ta, tb = str(a.dtype), str(b.dtype)
    if ta != tb:
        ka, ba, la = _parse(ta)
        kb, bb, lb = _parse(tb)
        if ka == "float" and kb != "float":
            b = Cast(ta, b)
        elif kb == "float" and ka != "float":
            a = Cast(tb, a)
        elif ba >= bb:
            b = Cast(ta, b)
        else:
            a = Cast(tb, a)
    return a, b


def _binary(key, a, b):
    a, b = _promote(a, b)
    return _api("tir.Binary")(key, a, b)


@register_object("ir.PrimExpr")
class PrimExpr(Node):
    """Base class of expressions."""

    def __add__(self, other):
        return _binary("tir.Add", self, other)

    def __radd__(self, other):
        return _binary("tir.Add", other, self)

    def __sub__(self, other):
        return _binary("tir.Sub", self, other)

    def __rsub__(self, other):
        return _binary("tir.Sub", other, self)

    def __mul__(self, other):
        return _binary("tir.Mul", self, other)

    def __rmul__(self, other):
        return _binary("tir.Mul", other, self)

    def __truediv__(self, other):
        return _binary("tir.Div", self, other)

    def __rtruediv__(self, other):
        return _binary("tir.Div", other, self)

    def __floordiv__(self, other):
        return _binary("tir.FloorDiv", self, other)

    def __rfloordiv__(self, other):
        return _binary("tir.FloorDiv", other, self)

    def __mod__(self, other):
        return _binary("tir.FloorMod", self, other)

    def __rmod__(self, other):
        return _binary("tir.FloorMod", other, self)

    def __neg__(self):
        return _binary("tir.Sub", const(0, self.dtype), self)

    def __lt__(self, other):
        return _binary("tir.LT", self, other)

    def __le__(self, other):
        return _binary("tir.LE", self, other)

    def __gt__(self, other):
        return _binary("tir.GT", self, other)

    def __ge__(self, other):
        return _binary("tir.GE", self, other)

    def __eq__(self, other):
        return self.same_as(other)

    def __ne__(self, other):
        return not self.same_as(other)

    def __hash__(self):
        return Node.__hash__(self)

    def __bool__(self):
        raise ValueError("cannot use a symbolic expression as a Python bool; use tir.all/tir.Select")

    def astype(self, dtype):
        return Cast(dtype, self)


def _reg(key, doc):
    cls = type(key.split(".")[-1], (PrimExpr,), {"__doc__": doc})
    return register_object(key)(cls)


IntImm = _reg("ir.IntImm", "Integer constant.")
FloatImm = _reg("ir.FloatImm", "Float constant.")
# As in TVM: int(IntImm), float(FloatImm), and IntImm as an index (range(), shapes).
IntImm.__int__ = lambda self: int(self.value)
IntImm.__index__ = lambda self: int(self.value)
FloatImm.__float__ = lambda self: float(self.value)
StringImm = _reg("tir.StringImm", "String constant.")
Add = _reg("tir.Add", "a + b")
Sub = _reg("tir.Sub", "a - b")
Mul = _reg("tir.Mul", "a * b")
Div = _reg("tir.Div", "a / b (truncating for integers)")
Mod = _reg("tir.Mod", "truncated remainder")
FloorDiv = _reg("tir.FloorDiv", "floor(a / b)")
FloorMod = _reg("tir.FloorMod", "a - floor(a / b) * b")
Min = _reg("tir.Min", "min(a, b)")
Max = _reg("tir.Max", "max(a, b)")
EQ = _reg("tir.EQ", "a == b")
NE = _reg("tir.NE", "a != b")
LT = _reg("tir.LT", "a < b")
LE = _reg("tir.LE", "a <= b")
GT = _reg("tir.GT", "a > b")
GE = _reg("tir.GE", "a >= b")
And = _reg("tir.And", "a and b")
Or = _reg("tir.Or", "a or b")
Not = _reg("tir.Not", "not a")
Select = _reg("tir.Select", "condition ? true_value : false_value")
Cast = _reg("tir.Cast", "dtype conversion")
Call = _reg("tir.Call", "intrinsic call")
Ramp = _reg("tir.Ramp", "base + stride * [0..lanes)")
Broadcast = _reg("tir.Broadcast", "value repeated lanes times")
Let = _reg("tir.Let", "let var = value in body")
BufferLoad = _reg("tir.BufferLoad", "buffer[indices]")
Reduce = _reg("tir.Reduce", "reduction (TE)")


@register_object("tir.Var")
class Var(PrimExpr):
    """A variable."""

    def __init__(self, name, dtype="int32"):
        self.__init_handle_by_constructor__(_api("tir.Var"), str(name), str(dtype))


# Constructors for the classes registered above (they take the TVM argument order).
def _ctor(cls, fn):
    def __init__(self, *args):
        self.__init_handle_by_constructor__(fn, *args)
    cls.__init__ = __init__


for _key, _cls in [("tir.Add", Add), ("tir.Sub", Sub), ("tir.Mul", Mul), ("tir.Div", Div),
                   ("tir.Mod", Mod), ("tir.FloorDiv", FloorDiv), ("tir.FloorMod", FloorMod),
                   ("tir.Min", Min), ("tir.Max", Max), ("tir.EQ", EQ), ("tir.NE", NE),
                   ("tir.LT", LT), ("tir.LE", LE), ("tir.GT", GT), ("tir.GE", GE),
                   ("tir.And", And), ("tir.Or", Or)]:
    _ctor(_cls, (lambda k: lambda a, b: _binary(k, a, b))(_key))
_ctor(IntImm, lambda dtype, value: _api("tir.IntImm")(dtype, int(value)))
_ctor(FloatImm, lambda dtype, value: _api("tir.FloatImm")(dtype, float(value)))
_ctor(StringImm, lambda value: _api("tir.StringImm")(value))
_ctor(Not, lambda a: _api("tir.Not")(convert(a)))
_ctor(Cast, lambda dtype, value: _api("tir.Cast")(str(dtype), convert(value)))
_ctor(Ramp, lambda base, stride, lanes: _api("tir.Ramp")(convert(base), convert(stride), int(lanes)))
_ctor(Broadcast, lambda value, lanes: _api("tir.Broadcast")(convert(value), int(lanes)))
_ctor(Let, lambda var, value, body: _api("tir.Let")(var, convert(value), convert(body)))
_ctor(BufferLoad, lambda buffer, indices: _api("tir.BufferLoad")(buffer, [convert(i) for i in indices]))


def _select(cond, t, f):
    t, f = _promote(t, f)
    return _api("tir.Select")(convert(cond), t, f)


_ctor(Select, _select)
_ctor(Call, lambda dtype, op, args: _api("tir.Call")(str(dtype), str(op), [convert(a) for a in args]))


# ------------------------------------------------------------------------------------------
# Buffer, statements, functions
# ------------------------------------------------------------------------------------------

@register_object("tir.Buffer")
class Buffer(Node):
    """A multi-dimensional view of memory."""

    def __getitem__(self, indices):
        if not isinstance(indices, tuple):
            indices = (indices,)
        return BufferLoad(self, list(indices))

    def vload(self, indices):
        return self[tuple(indices)]


def decl_buffer(shape, dtype="float32", name="buffer", data=None, strides=None, scope="global"):
    """A new Buffer (with a fresh handle Var unless `data` is given); `scope` is the storage
    scope: "global", "local" or "shared"."""
    if isinstance(shape, (int, PrimExpr)):
        shape = (shape,)
    shape = [convert(s, "int32") if isinstance(s, int) else s for s in shape]
    strides = [convert(s, "int32") if isinstance(s, int) else s for s in (strides or [])]
    if data is None:
        data = Var(name, "handle")
    return _api("tir.Buffer")(data, str(dtype), shape, strides, str(name), str(scope))


@register_object("tir.Stmt")
class Stmt(Node):
    """Base class of statements."""


def _sreg(key):
    return register_object(key)(type(key.split(".")[-1], (Stmt,), {}))


For = _sreg("tir.For")
BufferStore = _sreg("tir.BufferStore")
LetStmt = _sreg("tir.LetStmt")
IfThenElse = _sreg("tir.IfThenElse")
SeqStmt = _sreg("tir.SeqStmt")
Allocate = _sreg("tir.Allocate")
Evaluate = _sreg("tir.Evaluate")
AssertStmt = _sreg("tir.AssertStmt")
Block = _sreg("tir.Block")
BlockRealize = _sreg("tir.BlockRealize")


@register_object("ir.Range")
class Range(Node):
    """The half-open range [min, min + extent)."""

    def __init__(self, begin, end=None):
        if end is None:
            begin, end = 0, begin
        begin = convert(begin, "int32")
        end = convert(end, begin.dtype)
        self.__init_handle_by_constructor__(_api("ir.Range"), begin, end - begin)

    @staticmethod
    def from_min_extent(min_value, extent):
        r = Range.__new__(Range)
        min_value = convert(min_value, "int32")
        r.__init_handle_by_constructor__(_api("ir.Range"), min_value, convert(extent, min_value.dtype))
        return r


@register_object("tir.BufferRegion")
class BufferRegion(Node):
    """A rectangular region of a buffer (one Range per dimension)."""

    def __init__(self, buffer, region):
        self.__init_handle_by_constructor__(_api("tir.BufferRegion"), buffer, list(region))


class ForKind:
    SERIAL = 0
    PARALLEL = 1
    VECTORIZED = 2
    UNROLLED = 3
    THREAD_BINDING = 4


_ctor(For, lambda loop_var, min, extent, kind, body, thread_tag="", annotations=None: _api("tir.For")(
    loop_var, convert(min, loop_var.dtype), convert(extent, loop_var.dtype), int(kind), body,
    thread_tag, dict(annotations or {})))
_ctor(Block, lambda iter_vars, reads, writes, name_hint, body, init=None, alloc_buffers=None,
      annotations=None: _api("tir.Block")(list(iter_vars), list(reads), list(writes), str(name_hint),
                                          body, init, list(alloc_buffers or []), dict(annotations or {})))
_ctor(BlockRealize, lambda iter_values, predicate, block: _api("tir.BlockRealize")(
    [convert(v) for v in iter_values], convert(predicate), block))
_ctor(BufferStore, lambda buffer, value, indices: _api("tir.BufferStore")(
    buffer, convert(value, buffer.dtype), [convert(i) for i in indices]))
_ctor(LetStmt, lambda var, value, body: _api("tir.LetStmt")(var, convert(value, var.dtype), body))
_ctor(IfThenElse, lambda cond, then_case, else_case=None: _api("tir.IfThenElse")(
    convert(cond), then_case, else_case))
_ctor(SeqStmt, lambda seq: _api("tir.SeqStmt")(list(seq)))
_ctor(Allocate, lambda buffer, body: _api("tir.Allocate")(buffer, body))
_ctor(Evaluate, lambda value: _api("tir.Evaluate")(convert(value)))
_ctor(AssertStmt, lambda condition, kind, message, body: _api("tir.AssertStmt")(
    convert(condition), str(kind), str(message), body))


@register_object("tir.IterVar")
class IterVar(Node):
    """An iteration variable (TE axes and reduce axes)."""

    DataPar = 0
    CommReduce = 2

    def __init__(self, dom, var, kind):
        begin, extent = dom
        if isinstance(var, str):
            # The variable has the bounds' index type (int64 for int64 shapes).
            wide = any(isinstance(v, PrimExpr) and str(v.dtype) == "int64" for v in (begin, extent))
            var = Var(var, "int64" if wide else "int32")
        self.__init_handle_by_constructor__(
            _api("tir.IterVar"), var, convert(begin, var.dtype), convert(extent, var.dtype), int(kind))


# An IterVar stands for its variable in expressions (`k < 4`, `i * 2 + k`), as in TVM.
# (__eq__ stays identity: IterVars are also dictionary keys.)
def _delegate(name):
    def op(self, *args):
        return getattr(self.var, name)(*args)
    op.__name__ = name
    return op


for _name in ("__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__",
              "__truediv__", "__rtruediv__", "__floordiv__", "__rfloordiv__", "__mod__",
              "__rmod__", "__neg__", "__lt__", "__le__", "__gt__", "__ge__"):
    if hasattr(PrimExpr, _name):
        setattr(IterVar, _name, _delegate(_name))
del _name


@register_object("tir.PrimFunc")
class PrimFunc(Node):
    """A TIR function: params (Vars), buffer_map (param -> Buffer), body."""

    def __init__(self, params, body, buffer_map=None, attrs=None):
        params = list(params)
        bmap = {}
        plist = []
        for p in params:
            if isinstance(p, Buffer):
                plist.append(p.data)
                bmap[p.data] = p
            else:
                plist.append(p)
        bmap.update(buffer_map or {})
        self.__init_handle_by_constructor__(_api("tir.PrimFunc"), plist, bmap, body, dict(attrs or {}))

    def with_attr(self, key, value):
        return _api("tir.PrimFuncWithAttr")(self, key, value)
