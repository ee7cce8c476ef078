"""Relax operators (TVM's tvm.relax.op): each returns a Call of the registered operator;
struct info comes from the operator's C++ inference rule when the call is normalized
(relax.BlockBuilder.emit). Attribute names follow TVM."""

from ..expr import Call, ExternFunc, GlobalVar, ShapeExpr, StructInfo, Tuple, convert
from . import builtin, ccl, memory, nn, vm  # noqa: F401


def _call(name, args, attrs=None, sinfo_args=None):
    return Call("relax." + name, [convert(a) for a in args], attrs, sinfo_args)


def _unary(name):
    def op(x):
        return _call(name, [x])
    op.__name__ = name
    op.__doc__ = "Elementwise %s." % name
    return op


def _binary(name):
    def op(x1, x2):
        return _call(name, [x1, x2])
    op.__name__ = name
    op.__doc__ = "Elementwise %s with numpy broadcasting." % name
    return op


for _n in ("exp", "log", "sqrt", "rsqrt", "tanh", "sigmoid", "erf", "sin", "cos", "negative", "abs",
           "floor", "ceil", "round", "sign", "square", "reciprocal", "logical_not", "tan", "asin", "acos",
           "atan", "sinh", "cosh", "trunc", "bitwise_not"):
    globals()[_n] = _unary(_n)
for _n in ("add", "subtract", "multiply", "divide", "power", "maximum", "minimum", "floor_divide",
           "floor_mod", "equal", "not_equal", "less", "less_equal", "greater", "greater_equal",
           "logical_and", "logical_or", "bitwise_and", "bitwise_or", "bitwise_xor", "left_shift",
           "right_shift"):
    globals()[_n] = _binary(_n)
del _n


def clip(x, min, max):  # noqa: A002 - TVM's names
    return _call("clip", [x], {"min": float(min), "max": float(max)})


def where(condition, x1, x2):
    return _call("where", [condition, x1, x2])


def astype(x, dtype):
    import tvm_ffi
    return _call("astype", [x], {"dtype": tvm_ffi.dtype(str(dtype))})


def matmul(x1, x2, out_dtype=None):
    import tvm_ffi
    attrs = {} if out_dtype is None else {"out_dtype": tvm_ffi.dtype(str(out_dtype))}
    return _call("matmul", [x1, x2], attrs)


def reshape(x, shape):
    if not isinstance(shape, ShapeExpr):
        shape = ShapeExpr(list(shape))
    return _call("reshape", [x, shape])


def permute_dims(x, axes=None):
    return _call("permute_dims", [x], {"axes": None if axes is None else [int(a) for a in axes]})


def expand_dims(x, axis):
    return _call("expand_dims", [x], {"axis": axis if isinstance(axis, int) else [int(a) for a in axis]})


def squeeze(x, axis=None):
    if axis is not None and not isinstance(axis, int):
        axis = [int(a) for a in axis]
    return _call("squeeze", [x], {"axis": axis})


def flatten(x):
    return _call("flatten", [x])


def concat(tensors, axis=0):
    if not isinstance(tensors, Tuple):
        tensors = Tuple(list(tensors))
    return _call("concat", [tensors], {"axis": int(axis)})


def _reduce(name):
    def op(x, axis=None, keepdims=False):
        if axis is not None and not isinstance(axis, int):
            axis = [int(a) for a in axis]
        return _call(name, [x], {"axis": axis, "keepdims": bool(keepdims)})
    op.__name__ = name
    op.__doc__ = "%s over `axis` (all axes when None)." % name
    return op


sum = _reduce("sum")  # noqa: A001 - TVM's name
mean = _reduce("mean")
max = _reduce("max")  # noqa: A001
min = _reduce("min")  # noqa: A001
prod = _reduce("prod")


def call_tir(gvar, args, out_sinfo, tir_vars=None):
    """Calls PrimFunc `gvar` in destination-passing style: outputs of `out_sinfo` (a
    TensorStructInfo or a list of them) are allocated and passed after `args`; the values of
    `tir_vars` (a ShapeExpr) after the outputs, as the PrimFunc's scalar parameters."""
    if isinstance(out_sinfo, (list, tuple)):
        out_sinfo = out_sinfo[0] if len(out_sinfo) == 1 else __import__(
            "tvm.relax.expr", fromlist=["TupleStructInfo"]).TupleStructInfo(list(out_sinfo))
    if not isinstance(args, Tuple):
        args = Tuple(list(args) if isinstance(args, (list, tuple)) else [args])
    if tir_vars is not None:
        return Call("relax.call_tir", [gvar, args, tir_vars], None, [out_sinfo])
    return Call("relax.call_tir", [gvar, args], None, [out_sinfo])


def call_dps_packed(func, args, out_sinfo):
    """Calls a packed function (by name or ExternFunc) in destination-passing style."""
    if isinstance(func, str):
        func = ExternFunc(func)
    if isinstance(out_sinfo, (list, tuple)):
        from ..expr import TupleStructInfo
        out_sinfo = out_sinfo[0] if len(out_sinfo) == 1 else TupleStructInfo(list(out_sinfo))
    if not isinstance(args, Tuple):
        args = Tuple(list(args) if isinstance(args, (list, tuple)) else [args])
    return Call("relax.call_dps_packed", [func, args], None, [out_sinfo])


def call_packed(func, *args, sinfo_args=None):
    """Calls the packed function `func` (a registry name or ExternFunc) with `args`; its
    result has `sinfo_args` (one StructInfo, or a list; default: an object)."""
    if isinstance(func, str):
        func = ExternFunc(func)
    if sinfo_args is not None and not isinstance(sinfo_args, (list, tuple)):
        sinfo_args = [sinfo_args]
    return Call(func, list(args), None, list(sinfo_args or []))


def call_builtin_with_ctx(func, args, *, sinfo_args=None):
    """Calls the VM builtin `func` with the running VM as its first argument (builtins that
    allocate or read the VM's state); `args` a tuple or list."""
    if isinstance(func, str):
        func = ExternFunc(func)
    if not isinstance(args, Tuple):
        args = Tuple(list(args))
    if sinfo_args is not None and not isinstance(sinfo_args, (list, tuple)):
        sinfo_args = [sinfo_args]
    return Call("relax.call_builtin_with_ctx", [func, args], None, list(sinfo_args or []))


def null_value():
    """The None object (what a killed register holds)."""
    return Call("relax.null_value", [])


# ---------------------------------------------------------------- linear algebra (composites)

def linear(data, weight, bias=None, out_dtype=None):
    """data @ weight^T (+ bias), TVM's relax.op.linear (weight is (out_features, in_features))."""
    out = matmul(data, permute_dims(weight), out_dtype=out_dtype)
    return out if bias is None else add(out, bias)  # noqa: F821 (defined by the loop above)


# ---------------------------------------------------------------- indexing and data movement

def split(x, indices_or_sections, axis=0):
    """A tuple of tensors: `indices_or_sections` an int (equal sections) or split indices."""
    ios = int(indices_or_sections) if isinstance(indices_or_sections, int) else \
        [int(i) for i in indices_or_sections]
    return _call("split", [x], {"indices_or_sections": ios, "axis": int(axis)})


def strided_slice(x, axes, begin, end, strides=None, assume_inbound=False):
    """x[begin:end:strides] along `axes` (numpy semantics: negative indices count from the end,
    negative strides walk backwards, out-of-range bounds are clipped)."""
    def ints(v):
        return [int(a) for a in v]

    def values(v):  # ints, or symbolic values (a shape's tir.Var, ...)
        from ... import tir
        return [int(a.value) if isinstance(a, tir.IntImm) else a if isinstance(a, tir.PrimExpr) else int(a)
                for a in v]
    attrs = {"axes": ints(axes), "begin": values(begin), "end": values(end),
             "strides": None if strides is None else ints(strides), "assume_inbound": bool(assume_inbound)}
    return _call("strided_slice", [x], attrs)


def take(x, indices, axis=None, mode="fast"):
    return _call("take", [x, indices], {"axis": None if axis is None else int(axis), "mode": str(mode)})


def gather_elements(data, indices, axis=0):
    return _call("gather_elements", [data, indices], {"axis": int(axis)})


def gather_nd(data, indices, batch_dims=0):
    return _call("gather_nd", [data, indices], {"batch_dims": int(batch_dims)})


def broadcast_to(x, shape):
    if not isinstance(shape, ShapeExpr):
        shape = ShapeExpr(list(shape))
    return _call("broadcast_to", [x, shape])


def tile(data, repeats):
    repeats = [int(repeats)] if isinstance(repeats, int) else [int(r) for r in repeats]
    return _call("tile", [data], {"repeats": repeats})


# ---------------------------------------------------------------- creation

def _shape_arg(shape):
    return shape if isinstance(shape, ShapeExpr) else ShapeExpr(list(shape))


def _dt(dtype):
    import tvm_ffi
    return None if dtype is None else tvm_ffi.dtype(str(dtype))


def _fill(value, dtype):
    from ..expr import Expr, const
    if isinstance(value, Expr):
        return value
    if dtype is None:
        dtype = "bool" if isinstance(value, bool) else "int64" if isinstance(value, int) else "float32"
    return const(value, str(dtype))


def zeros(shape, dtype):
    return _call("zeros", [_shape_arg(shape)], {"dtype": _dt(dtype)})


def ones(shape, dtype):
    return _call("ones", [_shape_arg(shape)], {"dtype": _dt(dtype)})


def full(shape, fill_value, dtype=None):
    """fill_value: a scalar (0-d) tensor, or a Python number."""
    return _call("full", [_shape_arg(shape), _fill(fill_value, dtype)], {"dtype": _dt(dtype)})


def zeros_like(x, dtype=None):
    return _call("zeros_like", [x], {"dtype": _dt(dtype)})


def ones_like(x, dtype=None):
    return _call("ones_like", [x], {"dtype": _dt(dtype)})


def full_like(x, fill_value, dtype=None):
    return _call("full_like", [x, _fill(fill_value, dtype if dtype is not None else None)], {"dtype": _dt(dtype)})


def tensor_to_shape(x):
    """The values of 1-d integer tensor `x` (of static length) as a Shape, read at run time;
    `bb.match_cast(R.tensor_to_shape(t), ShapeStructInfo([n]))` binds symbolic n to them."""
    return _call("tensor_to_shape", [x])


def shape_to_tensor(shape):
    """A Shape (e.g. a ShapeExpr of symbolic dimensions) as a 1-d int64 tensor."""
    return _call("shape_to_tensor", [shape])


def arange(start, end=None, step=1, dtype=None):
    """[start, end) by step; one argument is the end. dtype: int64 for int arguments, else
    float32 (TVM's default)."""
    if end is None:
        start, end = 0, start
    if dtype is None:
        dtype = "float32" if any(isinstance(v, float) for v in (start, end, step)) else "int64"

    def num(v):
        return v if not isinstance(v, (int, float)) or isinstance(v, float) else int(v)
    return _call("arange", [], {"start": num(start), "end": num(end), "step": num(step), "dtype": _dt(dtype)})
