"""Relax expressions and struct info (C++ nodes in libtvm_compiler, compiler/src/relax/ir).

TVM's names and constructors: relax.Var("x", R.Tensor((n, 784), "float32")),
relax.TensorStructInfo([n, 784], "float32"), relax.const(np_array), relax.Call(op, args),
relax.Function(params, body), ... Every expression has a struct_info once normalized
(relax.BlockBuilder normalizes what it emits).
"""

import numpy as _np

import tvm_ffi
from tvm_ffi import register_object

from ..ir import Node, _api
from ..ir import Op as _IrOp
from ..tir import PrimExpr as _PrimExpr
from ..tir import Var as _TirVar
from ..tir.expr import const as _tir_const

_VOID = tvm_ffi.dtype("void") if hasattr(tvm_ffi, "dtype") else None


def _dtype(d):
    if d is None:
        return tvm_ffi.dtype("void")
    return tvm_ffi.dtype(str(d))


def _prim(v):
    if isinstance(v, _PrimExpr):
        return v
    if isinstance(v, (int, _np.integer)):
        return _tir_const(int(v), "int64")
    raise TypeError("expected an int or a PrimExpr dimension, got %r" % (v,))


# ---------------------------------------------------------------- struct info

class StructInfo(Node):
    """What is known statically of a value."""


@register_object("relax.ObjectStructInfo")
class ObjectStructInfo(StructInfo):
    def __init__(self):
        self.__init_handle_by_constructor__(_api("relax.ObjectStructInfo"))


@register_object("relax.PrimStructInfo")
class PrimStructInfo(StructInfo):
    def __init__(self, dtype="int64", value=None):
        self.__init_handle_by_constructor__(_api("relax.PrimStructInfo"), _dtype(dtype),
                                            None if value is None else _prim(value))


@register_object("relax.ShapeStructInfo")
class ShapeStructInfo(StructInfo):
    def __init__(self, values=None, ndim=-1):
        vals = None if values is None else [_prim(v) for v in values]
        self.__init_handle_by_constructor__(_api("relax.ShapeStructInfo"), vals, int(ndim))


@register_object("relax.TensorStructInfo")
class TensorStructInfo(StructInfo):
    """A tensor: R.Tensor((n, 784), "float32"); shape=None for an unknown shape."""

    def __init__(self, shape=None, dtype="float32", ndim=-1):
        if isinstance(shape, Expr) and isinstance(shape, ShapeExpr):
            shape = list(shape.values)
        vals = None if shape is None else [_prim(v) for v in shape]
        self.__init_handle_by_constructor__(_api("relax.TensorStructInfo"), vals, _dtype(dtype),
                                            int(ndim))

    @property
    def shape_values(self):
        return list(self.shape) if self.shape_known else None


@register_object("relax.TupleStructInfo")
class TupleStructInfo(StructInfo):
    def __init__(self, fields):
        self.__init_handle_by_constructor__(_api("relax.TupleStructInfo"), list(fields))


@register_object("relax.FuncStructInfo")
class FuncStructInfo(StructInfo):
    def __init__(self, params, ret):
        self.__init_handle_by_constructor__(_api("relax.FuncStructInfo"), list(params), ret)


# ---------------------------------------------------------------- expressions

class Expr(Node):
    """Base of Relax expressions."""

    @property
    def struct_info(self):
        return _api("relax.GetStructInfo")(self)

    def __getitem__(self, index):
        if isinstance(self.struct_info, TupleStructInfo):
            return TupleGetItem(self, index)
        raise TypeError("only tuple-valued relax expressions can be indexed")


@register_object("relax.expr.Var")
class Var(Expr):
    def __init__(self, name_hint, struct_info):
        self.__init_handle_by_constructor__(_api("relax.Var"), str(name_hint), struct_info, False)


@register_object("relax.expr.DataflowVar")
class DataflowVar(Var):
    def __init__(self, name_hint, struct_info):
        self.__init_handle_by_constructor__(_api("relax.Var"), str(name_hint), struct_info, True)


@register_object("relax.expr.Constant")
class Constant(Expr):
    def __init__(self, data):
        self.__init_handle_by_constructor__(_api("relax.Constant"), _to_tensor(data))


@register_object("relax.expr.Tuple")
class Tuple(Expr):
    def __init__(self, fields):
        self.__init_handle_by_constructor__(_api("relax.Tuple"), [convert(f) for f in fields])

    def __len__(self):
        return len(self.fields)


@register_object("relax.expr.TupleGetItem")
class TupleGetItem(Expr):
    def __init__(self, tuple_value, index):
        self.__init_handle_by_constructor__(_api("relax.TupleGetItem"), tuple_value, int(index))


@register_object("relax.expr.ShapeExpr")
class ShapeExpr(Expr):
    def __init__(self, values):
        self.__init_handle_by_constructor__(_api("relax.ShapeExpr"), [_prim(v) for v in values])


@register_object("relax.expr.PrimValue")
class PrimValue(Expr):
    def __init__(self, value):
        if isinstance(value, (int, float)):
            value = _tir_const(value, "int64" if isinstance(value, int) else "float64")
        self.__init_handle_by_constructor__(_api("relax.PrimValue"), value)


@register_object("relax.expr.StringImm")
class StringImm(Expr):
    def __init__(self, value):
        self.__init_handle_by_constructor__(_api("relax.StringImm"), str(value))


@register_object("relax.expr.DataTypeImm")
class DataTypeImm(Expr):
    def __init__(self, value):
        self.__init_handle_by_constructor__(_api("relax.DataTypeImm"), _dtype(value))


@register_object("ir.Op")
class Op(Expr, _IrOp):
    """A Relax operator (also a tvm.ir.Op)."""

    @staticmethod
    def get(name):
        return _api("relax.Op")(name)


@register_object("ir.GlobalVar")
class GlobalVar(Expr):
    def __init__(self, name_hint):
        self.__init_handle_by_constructor__(_api("relax.GlobalVar"), str(name_hint))


@register_object("relax.expr.ExternFunc")
class ExternFunc(Expr):
    def __init__(self, global_symbol):
        self.__init_handle_by_constructor__(_api("relax.ExternFunc"), str(global_symbol))


@register_object("relax.expr.Call")
class Call(Expr):
    def __init__(self, op, args, attrs=None, sinfo_args=None):
        if isinstance(op, str):
            op = Op.get(op)
        self.__init_handle_by_constructor__(_api("relax.Call"), op, [convert(a) for a in args],
                                            dict(attrs or {}), list(sinfo_args or []))


class Binding(Node):
    pass


@register_object("relax.expr.VarBinding")
class VarBinding(Binding):
    def __init__(self, var, value):
        self.__init_handle_by_constructor__(_api("relax.VarBinding"), var, value)


@register_object("relax.expr.MatchCast")
class MatchCast(Binding):
    def __init__(self, var, value, struct_info):
        self.__init_handle_by_constructor__(_api("relax.MatchCast"), var, value, struct_info)


@register_object("relax.expr.BindingBlock")
class BindingBlock(Node):
    def __init__(self, bindings):
        self.__init_handle_by_constructor__(_api("relax.BindingBlock"), list(bindings), False)


@register_object("relax.expr.DataflowBlock")
class DataflowBlock(BindingBlock):
    def __init__(self, bindings):
        self.__init_handle_by_constructor__(_api("relax.BindingBlock"), list(bindings), True)


@register_object("relax.expr.SeqExpr")
class SeqExpr(Expr):
    def __init__(self, blocks, body):
        self.__init_handle_by_constructor__(_api("relax.SeqExpr"), list(blocks), body)


@register_object("relax.expr.Function")
class Function(Expr):
    def __init__(self, params, body, ret_struct_info=None, is_pure=True, attrs=None):
        self.__init_handle_by_constructor__(_api("relax.Function"), list(params), body,
                                            ret_struct_info, bool(is_pure), dict(attrs or {}))

    def with_attr(self, key, value):
        return _api("relax.FunctionWithAttr")(self, key, value)


def _to_tensor(data):
    if isinstance(data, tvm_ffi.Tensor):
        return data
    from ..runtime import tensor as _tensor

    # not np.ascontiguousarray: it makes 0-d arrays 1-d (a scalar constant must stay 0-d);
    # a strided array (a transposed weight) is compacted by the copy into the tensor itself
    return _tensor(_np.asarray(data))


def const(value, dtype=None):
    """A relax.Constant from a number, list or numpy array (dtype defaults as numpy's, with
    Python floats as float32 and ints as int64, TVM's defaults)."""
    if isinstance(value, tvm_ffi.Tensor):
        return Constant(value)
    if dtype is None and isinstance(value, float):
        dtype = "float32"
    arr = _np.asarray(value, dtype=dtype)
    if dtype is None and arr.dtype == _np.float64 and not isinstance(value, _np.ndarray):
        arr = arr.astype("float32")
    return Constant(arr)


def convert(value):
    """An Expr from an Expr, a tuple/list of Exprs, or a number (a constant)."""
    if isinstance(value, Expr):
        return value
    if isinstance(value, (tuple, list)):
        return Tuple([convert(v) for v in value])
    if isinstance(value, (int, float, bool, _np.ndarray, _np.number)):
        return const(value)
    raise TypeError("cannot convert %r to a relax expression" % (value,))


def get_shape_of(expr):
    """The symbolic shape (list of PrimExpr) of a tensor expression."""
    s = expr.struct_info
    if not isinstance(s, TensorStructInfo) or not s.shape_known:
        raise ValueError("the shape of %s is not known" % expr)
    return list(s.shape)


def tir_var(name, dtype="int64"):
    """A symbolic dimension (an int64 TIR Var)."""
    return _TirVar(name, dtype)
