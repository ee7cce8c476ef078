"""The ONNX operator converters, one class per op type (docs/onnx_ops.md lists them).

A converter class has `_impl_vN(ctx, inputs, attrs)` methods; the importer calls the one with
the largest N <= the model's opset. Each returns a relax expression, a numpy array (a value
computed at import because all its inputs are known), or a tuple of these for multi-output
nodes. `requires` names relax operators the converter needs (a converter whose operators are
not available counts as unsupported).
"""

import numpy as np

from ... import expr as _expr
from ... import op as R
from . import run_time_shapes
from .shape_values import dims_of, reshape_dims


class OnnxOpError(NotImplementedError):
    """The model uses operators the frontend does not convert."""


CONVERTERS = {}

# Inputs the frontend needs as values at import (in exported models they are initializers or
# Constant nodes): op type -> input positions.
PARAMETER_INPUTS = {
    "Reshape": [1], "Unsqueeze": [1], "Squeeze": [1], "ReduceSum": [1], "ReduceMean": [1],
    "ReduceMax": [1], "ReduceMin": [1], "ReduceProd": [1], "ConstantOfShape": [0],
    "Range": [0, 1, 2], "Expand": [1], "Tile": [1], "Slice": [1, 2, 3, 4], "Pad": [1, 2, 3],
    "Split": [1], "Dropout": [1, 2],
}


class Converter:
    requires = ()

    @classmethod
    def impl_for(cls, opset):
        for name in cls.requires:
            mod = R
            for part in name.split("."):
                mod = getattr(mod, part, None)
                if mod is None:
                    return None
        versions = sorted(int(n[len("_impl_v"):]) for n in dir(cls) if n.startswith("_impl_v"))
        best = [v for v in versions if v <= opset]
        if not best:
            return None
        return getattr(cls, "_impl_v%d" % best[-1])


def register(*names):
    def deco(cls):
        for n in names:
            CONVERTERS[n] = cls
        return cls
    return deco


SUPPORTED_DTYPES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                    "uint64", "float16", "bfloat16", "float32", "float64")


def _supported_dtype(np_dtype, what):
    """The dtype name, or NotImplementedError naming it (float8/int4, strings)."""
    try:
        name = str(np.dtype(np_dtype))
    except TypeError:
        name = str(np_dtype)
    if name not in SUPPORTED_DTYPES:
        raise NotImplementedError("%s: element type %s is not supported (supported: %s)"
                                  % (what, name if name != "object" else "string/sub-byte",
                                     ", ".join(SUPPORTED_DTYPES)))
    return name


def _np(ctx, i):
    return ctx.consts[i] if i < len(ctx.consts) else None


def _ints(v):
    return [int(x) for x in v]


# ---------------------------------------------------------------- elementwise

def _elementwise(relax_fn, np_fn, name):
    class _C(Converter):
        @classmethod
        def _impl_v1(cls, ctx, inputs, attrs):
            if ctx.all_const() and np_fn is not None:
                return np_fn(*ctx.consts)
            return relax_fn(*inputs)
    _C.__name__ = name
    return _C


def _div_np(a, b):
    if np.issubdtype(a.dtype, np.integer):
        return (np.trunc(a / b)).astype(a.dtype)
    return (a / b).astype(a.dtype)


for _name, _rfn, _nfn in [
        ("Add", R.add, np.add), ("Sub", R.subtract, np.subtract), ("Mul", R.multiply, np.multiply),
        ("Div", R.divide, _div_np),
        ("Equal", R.equal, np.equal), ("Less", R.less, np.less), ("Greater", R.greater, np.greater),
        ("LessOrEqual", R.less_equal, np.less_equal), ("GreaterOrEqual", R.greater_equal, np.greater_equal),
        ("And", R.logical_and, np.logical_and), ("Or", R.logical_or, np.logical_or),
        ("Not", R.logical_not, np.logical_not),
        ("Relu", R.nn.relu, None), ("Sigmoid", R.sigmoid, None), ("Tanh", R.tanh, None),
        ("Exp", R.exp, None), ("Log", R.log, None), ("Sqrt", R.sqrt, None), ("Erf", R.erf, None),
        ("Neg", R.negative, np.negative), ("Abs", R.abs, np.abs), ("Reciprocal", R.reciprocal, None),
        ("Floor", R.floor, np.floor), ("Ceil", R.ceil, np.ceil), ("Sin", R.sin, None), ("Cos", R.cos, None),
        ("Sign", R.sign, np.sign)]:
    CONVERTERS[_name] = _elementwise(_rfn, _nfn, _name)


@register("Pow")
class Pow(Converter):
    """The result has the base's type; the exponent is cast to it (ONNX allows mixing)."""

    @classmethod
    def _impl_v7(cls, ctx, inputs, attrs):
        base, exp = inputs
        dt = ctx.dtype_of(base)
        if ctx.consts[1] is not None:
            exp = _expr.const(ctx.consts[1].astype(dt))
        elif ctx.dtype_of(exp) != dt:
            exp = R.astype(exp, dt)
        return R.power(base, exp)


@register("Identity")
class Identity(Converter):
    @classmethod
    def _impl_v1(cls, ctx, inputs, attrs):
        return ctx.consts[0] if ctx.consts[0] is not None else inputs[0]


@register("IsNaN")
class IsNaN(Converter):
    @classmethod
    def _impl_v9(cls, ctx, inputs, attrs):
        return R.not_equal(inputs[0], inputs[0])


def _variadic(name, relax_fn, np_fn):
    class _C(Converter):
        @classmethod
        def _impl_v1(cls, ctx, inputs, attrs):
            if ctx.all_const():
                out = ctx.consts[0]
                for c in ctx.consts[1:]:
                    out = np_fn(out, c)
                return out
            out = inputs[0]
            for x in inputs[1:]:
                out = relax_fn(out, x)
            return out
    _C.__name__ = name
    return _C


CONVERTERS["Max"] = _variadic("Max", R.maximum, np.maximum)
CONVERTERS["Min"] = _variadic("Min", R.minimum, np.minimum)
CONVERTERS["Sum"] = _variadic("Sum", R.add, np.add)


@register("Mean")
class Mean(Converter):
    @classmethod
    def _impl_v1(cls, ctx, inputs, attrs):
        out = inputs[0]
        for x in inputs[1:]:
            out = R.add(out, x)
        return R.divide(out, _expr.const(np.array(len(inputs), dtype=ctx.dtype_of(inputs[0]))))


@register("Clip")
class Clip(Converter):
    @classmethod
    def _impl_v1(cls, ctx, inputs, attrs):
        return R.clip(inputs[0], attrs.get("min", -3.4028234663852886e38), attrs.get("max", 3.4028234663852886e38))

    @classmethod
    def _impl_v11(cls, ctx, inputs, attrs):
        x = inputs[0]
        dt = ctx.dtype_of(x)
        out = x
        for k, fn in ((1, R.maximum), (2, R.minimum)):
            if len(inputs) <= k or inputs[k] is None:
                continue
            bound = _expr.const(np.asarray(ctx.consts[k]).astype(dt)) if ctx.consts[k] is not None else inputs[k]
            out = fn(out, bound)
        return out


@register("LeakyRelu")
class LeakyRelu(Converter):
    @classmethod
    def _impl_v1(cls, ctx, inputs, attrs):
        return R.nn.leakyrelu(inputs[0], attrs.get("alpha", 0.01))


@register("HardSigmoid")
class HardSigmoid(Converter):
    @classmethod
    def _impl_v6(cls, ctx, inputs, attrs):
        dt = ctx.dtype_of(inputs[0])
        a = _expr.const(np.array(attrs.get("alpha", 0.2), dt))
        b = _expr.const(np.array(attrs.get("beta", 0.5), dt))
        return R.clip(R.add(R.multiply(inputs[0], a), b), 0.0, 1.0)


@register("HardSwish")
class HardSwish(Converter):
    @classmethod
    def _impl_v14(cls, ctx, inputs, attrs):
        dt = ctx.dtype_of(inputs[0])
        a = _expr.const(np.array(1.0 / 6, dt))
        b = _expr.const(np.array(0.5, dt))
        return R.multiply(inputs[0], R.clip(R.add(R.multiply(inputs[0], a), b), 0.0, 1.0))


@register("Gelu")
class Gelu(Converter):
    @classmethod
    def _impl_v20(cls, ctx, inputs, attrs):
        if attrs.get("approximate", "none") == "tanh":
            return R.nn.gelu_tanh(inputs[0])
        return R.nn.gelu(inputs[0])


@register("Where")
class Where(Converter):
    @classmethod
    def _impl_v9(cls, ctx, inputs, attrs):
        if ctx.all_const():
            return np.where(*ctx.consts)
        return R.where(*inputs)


@register("Cast")
class Cast(Converter):
    @classmethod
    def _impl_v6(cls, ctx, inputs, attrs):
        from onnx import helper
        dt = _supported_dtype(helper.tensor_dtype_to_np_dtype(attrs["to"]), "Cast")
        if ctx.consts[0] is not None:
            return ctx.consts[0].astype(dt)
        return R.astype(inputs[0], dt)


@register("Dropout")
class Dropout(Converter):
    """Inference: the identity (and an all-true mask when the mask output is used)."""

    @classmethod
    def _impl_v1(cls, ctx, inputs, attrs):
        training = _np(ctx, 2)
        if len(inputs) > 2 and inputs[2] is not None and (training is None or bool(training)):
            raise NotImplementedError("Dropout in training mode (random) is not supported; "
                                      "export the model for inference")
        if len(ctx.node.output) > 1 and ctx.node.output[1]:
            shape = ctx.static_shape(inputs[0])
            if shape is None:
                raise NotImplementedError("Dropout's mask output needs a static shape")
            return inputs[0], np.ones(shape, dtype="bool")
        return inputs[0]


# ---------------------------------------------------------------- linear algebra, nn

@register("MatMul")
class MatMul(Converter):
    @classmethod
    def _impl_v1(cls, ctx, inputs, attrs):
        if ctx.all_const():
            return np.matmul(*ctx.consts)
        from . import qdq
        out = qdq.matmul(ctx, inputs, attrs)  # dequantized operands: an integer product
        return out if out is not None else R.matmul(inputs[0], inputs[1])


@register("Gemm")
class Gemm(Converter):
    @classmethod
    def _impl_v1(cls, ctx, inputs, attrs):
        from . import qdq
        out = qdq.gemm(ctx, inputs, attrs)  # dequantized operands: an integer product
        if out is not None:
            return out
        a, b = inputs[0], inputs[1]
        if attrs.get("transA", 0):
            a = R.permute_dims(a, [1, 0])
        if attrs.get("transB", 0):
            b = R.permute_dims(b, [1, 0]) if ctx.consts[1] is None else _expr.const(ctx.consts[1].T)
        out = R.matmul(a, b)
        dt = ctx.dtype_of(inputs[0])
        alpha, beta = float(attrs.get("alpha", 1.0)), float(attrs.get("beta", 1.0))
        if alpha != 1.0:
            out = R.multiply(out, _expr.const(np.array(alpha, dt)))
        if len(inputs) > 2 and inputs[2] is not None:
            c = inputs[2]
            if beta != 1.0:
                c = R.multiply(c, _expr.const(np.array(beta, dt)))
            out = R.add(out, c)
        return out


def _softmax_like(relax_fn):
    class _C(Converter):
        @classmethod
        def _impl_v1(cls, ctx, inputs, attrs):
            # Before opset 13 the input is seen as 2-D: [prod(d[:axis]), prod(d[axis:])].
            x = inputs[0]
            shape = ctx.shape_of(x)
            nd = len(shape)
            axis = attrs.get("axis", 1) % nd
            if axis == nd - 1:
                return relax_fn(x, axis=-1)
            flat = R.reshape(x, [_prod(shape[:axis]), -1])
            return R.reshape(relax_fn(flat, axis=-1), shape)

        @classmethod
        def _impl_v13(cls, ctx, inputs, attrs):
            return relax_fn(inputs[0], axis=attrs.get("axis", -1))
    return _C


CONVERTERS["Softmax"] = _softmax_like(R.nn.softmax)
CONVERTERS["LogSoftmax"] = _softmax_like(R.nn.log_softmax)


@register("LayerNormalization")
class LayerNormalization(Converter):
    @classmethod
    def _impl_v17(cls, ctx, inputs, attrs):
        x = inputs[0]
        shape = ctx.shape_of(x)
        nd = len(shape)
        axis = attrs.get("axis", -1) % nd
        axes = list(range(axis, nd))
        dt = ctx.dtype_of(x)
        gamma = inputs[1]
        beta = inputs[2] if len(inputs) > 2 and inputs[2] is not None else None
        if beta is None:
            bshape = ctx.static_shape(gamma)
            beta = _expr.const(np.zeros(bshape, dt))
        eps = attrs.get("epsilon", 1e-5)
        y = R.nn.layer_norm(x, gamma, beta, axes=axes, epsilon=eps)
        if len([o for o in ctx.node.output if o]) == 1:
            return y
        # Mean and InvStdDev (training outputs), with the normalized axes kept as 1s.
        mean = ctx.bb.emit(R.mean(x, axis=axes, keepdims=True))
        centered = ctx.bb.emit(R.subtract(x, mean))
        var = ctx.bb.emit(R.mean(R.multiply(centered, centered), axis=axes, keepdims=True))
        inv = R.rsqrt(R.add(var, _expr.const(np.array(eps, dt))))
        return y, mean, inv


# ---------------------------------------------------------------- shapes

def _prod(dims):
    out = 1
    for d in dims:
        out = out * d
    return out


@register("Shape")
class Shape(Converter):
    @classmethod
    def _impl_v1(cls, ctx, inputs, attrs):
        start, end = attrs.get("start", 0), attrs.get("end", None)
        shape = ctx.static_shape(inputs[0])
        if shape is not None:
            return np.array(shape[start:end], dtype="int64")
        dims = ctx.shape_of(inputs[0])
        if dims is None:
            raise NotImplementedError("Shape of a tensor of unknown rank")
        # symbolic dimensions: their run-time values (the VM's shape heap) as a tensor
        return R.shape_to_tensor(_expr.ShapeExpr(dims[start:end]))


@register("Constant")
class Constant(Converter):
    @classmethod
    def _impl_v1(cls, ctx, inputs, attrs):
        from onnx import numpy_helper
        if "value" in attrs:
            return numpy_helper.to_array(attrs["value"])
        for key, dt in (("value_float", "float32"), ("value_floats", "float32"), ("value_int", "int64"),
                        ("value_ints", "int64")):
            if key in attrs:
                return np.array(attrs[key], dtype=dt)
        raise NotImplementedError("Constant with attributes %s" % sorted(attrs))


@register("ConstantOfShape")
class ConstantOfShape(Converter):
    @classmethod
    def _impl_v9(cls, ctx, inputs, attrs):
        from onnx import numpy_helper
        shape = dims_of(ctx, 0)
        value = numpy_helper.to_array(attrs["value"]) if "value" in attrs else np.zeros(1, "float32")
        if shape is None:
            return run_time_shapes.constant_of_shape(ctx, inputs[0], value)
        if ctx.consts[0] is None:  # symbolic dimensions (shape_values.py)
            return R.full(shape, _expr.const(value.reshape(())), str(value.dtype))
        return np.full(shape, value.reshape(-1)[0], dtype=value.dtype)


@register("Range")
class Range(Converter):
    @classmethod
    def _impl_v11(cls, ctx, inputs, attrs):
        if ctx.all_const():
            start, limit, delta = (c.reshape(()) for c in ctx.consts)
            return np.arange(start, limit, delta, dtype=start.dtype)
        return cls._at_run_time(ctx, *inputs[:3])

    @classmethod
    def _at_run_time(cls, ctx, start, limit, delta):
        """Bounds known only at run time: the length max(ceil((limit - start) / delta), 0) is
        computed by kernels, read into a Shape (tensor_to_shape) and bound to a new symbolic
        variable by match_cast; the output is start + arange(n) * delta (ONNX's definition)."""
        from ....tir import Var

        dt = ctx.dtype_of(start)
        diff = R.subtract(limit, start)
        if not dt.startswith("float"):   # integer bounds: an exact ceil division via float64
            diff, step = R.astype(diff, "float64"), R.astype(delta, "float64")
        else:
            step = delta
        count = R.astype(R.ceil(R.divide(diff, step)), "int64")
        count = R.reshape(R.maximum(count, _expr.const(np.array(0, "int64"))), [1])
        n = Var("%s_len" % (ctx.node.output[0] or "range"), "int64")
        shape = ctx.bb.emit(R.tensor_to_shape(count))
        ctx.bb.match_cast(shape, _expr.ShapeStructInfo([n]))
        return R.add(start, R.multiply(R.arange(0, n, 1, dtype=dt), delta))


@register("Reshape")
class Reshape(Converter):
    @classmethod
    def _impl_v5(cls, ctx, inputs, attrs):
        target = dims_of(ctx, 1)  # constant, or symbolic from Shape nodes (shape_values.py)
        allowzero = attrs.get("allowzero", 0)
        if target is None:
            return run_time_shapes.reshape(ctx, inputs[0], inputs[1], allowzero)
        if ctx.consts[0] is not None and ctx.consts[1] is not None:
            src = ctx.consts[0]
            t = [src.shape[k] if (s == 0 and not allowzero) else s for k, s in enumerate(target)]
            return src.reshape(t)
        return R.reshape(inputs[0], reshape_dims(ctx.shape_of(inputs[0]), target, allowzero))


@register("Flatten")
class Flatten(Converter):
    @classmethod
    def _impl_v1(cls, ctx, inputs, attrs):
        shape = ctx.shape_of(inputs[0])
        axis = attrs.get("axis", 1)
        axis = axis + len(shape) if axis < 0 else axis
        if ctx.consts[0] is not None:
            c = ctx.consts[0]
            return c.reshape(int(np.prod(c.shape[:axis])), -1)
        return R.reshape(inputs[0], [_prod(shape[:axis]), _prod(shape[axis:])])


@register("Transpose")
class Transpose(Converter):
    @classmethod
    def _impl_v1(cls, ctx, inputs, attrs):
        perm = attrs.get("perm")
        if ctx.consts[0] is not None:
            return np.transpose(ctx.consts[0], perm)
        return R.permute_dims(inputs[0], None if perm is None else _ints(perm))


@register("Concat")
class Concat(Converter):
    @classmethod
    def _impl_v1(cls, ctx, inputs, attrs):
        axis = attrs.get("axis", 0)
        if ctx.all_const():
            return np.concatenate(ctx.consts, axis=axis)
        return R.concat([(_expr.const(c) if c is not None else x) for x, c in zip(inputs, ctx.consts)], axis)


_RUN_TIME = object()


def _axes(ctx, inputs, attrs, opset_input):
    if opset_input:
        if len(inputs) > 1 and inputs[1] is not None:
            if ctx.consts[1] is None:
                return _RUN_TIME  # the converter reads inputs[1] (run_time_shapes.py)
            # a 0-d axes tensor (AffineGrid's body) names one axis
            return _ints(np.asarray(ctx.consts[1]).reshape(-1))
        return None
    return _ints(attrs["axes"]) if "axes" in attrs else None


class _AxesConverter(Converter):
    """An op whose axes are an attribute before opset 13 and an input from 13 on."""

    @classmethod
    def _impl_v1(cls, ctx, inputs, attrs):
        return cls._go(ctx, inputs, _axes(ctx, inputs, attrs, False))

    @classmethod
    def _impl_v13(cls, ctx, inputs, attrs):
        return cls._go(ctx, inputs, _axes(ctx, inputs, attrs, True))


@register("Unsqueeze")
class Unsqueeze(_AxesConverter):
    @classmethod
    def _go(cls, ctx, inputs, axes):
        x = inputs[0]
        if axes is _RUN_TIME:
            return run_time_shapes.unsqueeze(ctx, x, inputs[1])
        if ctx.consts[0] is not None:
            out = ctx.consts[0]
            nd = out.ndim + len(axes)
            for a in sorted(a % nd for a in axes):
                out = np.expand_dims(out, a)
            return out
        nd = len(ctx.shape_of(x)) + len(axes)
        return R.expand_dims(x, sorted(a % nd for a in axes))



@register("Squeeze")
class Squeeze(_AxesConverter):
    @classmethod
    def _go(cls, ctx, inputs, axes):
        if axes is _RUN_TIME:
            return run_time_shapes.squeeze(ctx, inputs[0], inputs[1])
        if ctx.consts[0] is not None:
            return np.squeeze(ctx.consts[0], axis=None if axes is None else tuple(axes))
        return R.squeeze(inputs[0], axes)


@register("Gather")
class Gather(Converter):
    @classmethod
    def _impl_v1(cls, ctx, inputs, attrs):
        axis = attrs.get("axis", 0)
        if ctx.all_const():
            return np.take(ctx.consts[0], ctx.consts[1], axis=axis)
        take = getattr(R, "take", None)
        if take is None:
            raise NotImplementedError("Gather of values computed at run time needs relax.op.take")
        return take(inputs[0], inputs[1], axis=axis)


# ---------------------------------------------------------------- reductions

def _reduce(relax_fn, np_fn, axes_input_from):
    class _C(Converter):
        @classmethod
        def _go(cls, ctx, inputs, attrs, axes):
            keep = bool(attrs.get("keepdims", 1))
            if axes is None or len(axes) == 0:
                if attrs.get("noop_with_empty_axes", 0):
                    return inputs[0]
                axes = None
            if ctx.consts[0] is not None:
                return np_fn(ctx.consts[0], axis=None if axes is None else tuple(axes), keepdims=keep)
            return relax_fn(inputs[0], axis=axes, keepdims=keep)

        @classmethod
        def _impl_v1(cls, ctx, inputs, attrs):
            return cls._go(ctx, inputs, attrs, _axes(ctx, inputs, attrs, False))

    def _from_input(cls, ctx, inputs, attrs):
        return cls._go(ctx, inputs, attrs, _axes(ctx, inputs, attrs, True))
    setattr(_C, "_impl_v%d" % axes_input_from, classmethod(_from_input))
    return _C


CONVERTERS["ReduceMean"] = _reduce(R.mean, np.mean, 18)
CONVERTERS["ReduceSum"] = _reduce(R.sum, np.sum, 13)
CONVERTERS["ReduceMax"] = _reduce(R.max, np.max, 18)
CONVERTERS["ReduceMin"] = _reduce(R.min, np.min, 18)
CONVERTERS["ReduceProd"] = _reduce(R.prod, np.prod, 18)


def _global_pool(name, relax_reduce):
    class _C(Converter):
        @classmethod
        def _impl_v1(cls, ctx, inputs, attrs):
            nd = len(ctx.shape_of(inputs[0]))
            return relax_reduce(inputs[0], axis=list(range(2, nd)), keepdims=True)
    _C.__name__ = name
    return _C


CONVERTERS["GlobalAveragePool"] = _global_pool("GlobalAveragePool", R.mean)
CONVERTERS["GlobalMaxPool"] = _global_pool("GlobalMaxPool", R.max)

del _name, _rfn, _nfn

