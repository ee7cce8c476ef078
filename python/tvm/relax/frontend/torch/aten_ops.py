"""ATen op overload -> Relax converters for from_exported_program.

Each converter takes a _Ctx (ctx.args: the node's arguments by schema name, fx nodes replaced
by converted values; ctx.out_meta: torch's fake result) and returns a relax Expr, a Python
list for multi-output ops (an entry None where the output is not produced: indices of max
pooling, the statistics of native_layer_norm), or None for no-ops. Registered under the
overload's name ("aten.addmm.default"); operator.getitem is "getitem".
"""

import math

import numpy as np

from ... import expr as _expr
from ... import op as R
from .... import tir

from .aten_registry import CONVERTERS, NO_OPS, register  # noqa: E402,F401  (re-exported)


from .context import Reshaped, TorchOpError, torch_dtype_to_str  # noqa: E402,F401
from .context import same_dim as _same, same_shape as _same_shape  # noqa: E402

def _is_expr(v):
    return isinstance(v, _expr.Expr)


def _is_float(dtype):
    return dtype.startswith("float")


def _promote(a, b):
    import torch
    return torch_dtype_to_str(torch.promote_types(getattr(torch, a), getattr(torch, b)))


def _scalar_const(value, dtype):
    if isinstance(value, bool) and dtype != "bool":
        value = int(value)
    return _expr.const(np.array(value, dtype=dtype))


def _operands(ctx, a, b, out_dtype=None):
    """Two operands (tensors or Python scalars) as relax tensors of one dtype (torch's type
    promotion: a Python float with an integer tensor gives float32)."""
    if not _is_expr(a) and not _is_expr(b):
        raise TypeError("two scalar operands")
    if _is_expr(a) and _is_expr(b):
        da, db = ctx.dtype(a), ctx.dtype(b)
        if da != db:
            dt = out_dtype if out_dtype and out_dtype != "bool" else _promote(da, db)
            a = a if da == dt else R.astype(a, dt)
            b = b if db == dt else R.astype(b, dt)
        return a, b
    swap = not _is_expr(a)
    t, s = (b, a) if swap else (a, b)
    dt = ctx.dtype(t)
    if isinstance(s, float) and not _is_float(dt):
        dt = "float32"
        t = R.astype(t, dt)
    elif isinstance(s, tir.PrimExpr) and not isinstance(s, (tir.IntImm, tir.FloatImm)):
        # a SymInt (a dimension, e.g. the past length of a KV cache): its run-time value as a
        # 0-d tensor (shape_to_tensor reads the VM's shape heap)
        v = R.reshape(R.shape_to_tensor(_expr.ShapeExpr([tir.Cast("int64", s) if str(s.dtype) != "int64" else s])), [])
        c = ctx.emit(v if dt == "int64" else R.astype(v, dt))
        return (c, t) if swap else (t, c)
    c = _scalar_const(s, dt)
    return (c, t) if swap else (t, c)


# ---------------------------------------------------------------- elementwise

def _unary(fn):
    def conv(ctx):

        x = ctx.raw(0)
        if isinstance(x, Reshaped):  # elementwise: apply before the deferred reshape
            return Reshaped(ctx.emit(fn(x.base)), x.shape)
        return fn(ctx.arg(0))
    return conv


for _name, _fn in {"relu": R.nn.relu, "sigmoid": R.sigmoid, "tanh": R.tanh, "exp": R.exp,
                   "log": R.log, "sqrt": R.sqrt, "rsqrt": R.rsqrt, "neg": R.negative, "abs": R.abs,
                   "erf": R.erf, "silu": R.nn.silu, "sin": R.sin, "cos": R.cos, "floor": R.floor,
                   "ceil": R.ceil, "reciprocal": R.reciprocal, "sign": R.sign, "square": R.square,
                   "round": R.round}.items():
    register("aten.%s.default" % _name)(_unary(_fn))


def _log2_te(x):
    from .... import te, tir
    return te.compute(x.shape, lambda *i: tir.log2(x[i]), name="log2")


@register("aten.log2.default")
def _log2(ctx):
    x = ctx.arg(0)
    out = ctx.out_dtype()
    if ctx.dtype(x) != out:
        x = ctx.emit(R.astype(x, out))
    return ctx.bb.emit_te(_log2_te, x, primfunc_name_hint="log2")


def _identity(ctx):
    return ctx.arg(0)


register("aten.clone.default", "aten.alias.default", "aten.detach.default", "aten.detach_.default", "aten.contiguous.default",
         "aten.lift_fresh_copy.default", "aten.dropout.default", "aten.feature_dropout.default",
         "aten.alpha_dropout.default")(_identity)


@register("aten.gelu.default")
def _gelu(ctx):
    approx = ctx.args.get("approximate", "none")
    return R.nn.gelu_tanh(ctx.arg(0)) if approx == "tanh" else R.nn.gelu(ctx.arg(0))


@register("aten.hardtanh.default")
def _hardtanh(ctx):
    a = ctx.args
    return R.clip(a["self"], float(a["min_val"]), float(a["max_val"]))


@register("aten.relu6.default")
def _relu6(ctx):
    return R.clip(ctx.arg(0), 0.0, 6.0)


@register("aten.clamp.default")
def _clamp(ctx):
    a = ctx.args
    x, lo, hi = a["self"], a["min"], a["max"]
    if lo is not None and hi is not None:
        return R.clip(x, float(lo), float(hi))
    if lo is not None:
        return R.maximum(*_operands(ctx, x, lo))
    if hi is not None:
        return R.minimum(*_operands(ctx, x, hi))
    return x


@register("aten.leaky_relu.default")
def _leaky(ctx):
    return R.nn.leakyrelu(ctx.arg(0), float(ctx.arg(1)))


def _binary(fn, alpha=False):
    def conv(ctx):
        vals = list(ctx.args.values())
        a, b = vals[0], vals[1]
        if alpha:
            al = ctx.args.get("alpha", 1)
            if al is not None and al != 1:
                b = R.multiply(*_operands(ctx, b, al)) if _is_expr(b) else b * al
        x, y = _operands(ctx, a, b, ctx.out_dtype())
        return fn(x, y)
    return conv


for _ov in ("Tensor", "Scalar"):
    register("aten.add." + _ov)(_binary(R.add, alpha=True))
    register("aten.sub." + _ov)(_binary(R.subtract, alpha=True))
    register("aten.mul." + _ov)(_binary(R.multiply))
    register("aten.eq." + _ov)(_binary(R.equal))
    register("aten.ne." + _ov)(_binary(R.not_equal))
    register("aten.lt." + _ov)(_binary(R.less))
    register("aten.le." + _ov)(_binary(R.less_equal))
    register("aten.gt." + _ov)(_binary(R.greater))
    register("aten.ge." + _ov)(_binary(R.greater_equal))
register("aten.maximum.default")(_binary(R.maximum))
register("aten.minimum.default")(_binary(R.minimum))
register("aten.pow.Tensor_Tensor", "aten.pow.Tensor_Scalar", "aten.pow.Scalar")(_binary(R.power))


@register("aten.div.Tensor", "aten.div.Scalar", "aten.div.Tensor_mode", "aten.div.Scalar_mode")
def _div(ctx):
    vals = list(ctx.args.values())
    mode = ctx.args.get("rounding_mode")
    out = ctx.out_dtype()
    x, y = _operands(ctx, vals[0], vals[1], out)
    if mode is None:
        if not _is_float(ctx.dtype(x if _is_expr(x) else y)):
            x, y = R.astype(x, "float32"), R.astype(y, "float32")
        return R.divide(x, y)
    if mode == "floor":
        return R.floor_divide(x, y)
    raise NotImplementedError("div with rounding_mode=%r" % mode)


@register("aten.floor_divide.default", "aten.floor_divide.Scalar")
def _floor_divide(ctx):
    vals = list(ctx.args.values())
    return R.floor_divide(*_operands(ctx, vals[0], vals[1], ctx.out_dtype()))


@register("aten.rsub.Scalar", "aten.rsub.Tensor")
def _rsub(ctx):
    a = ctx.args
    x, other, al = a["self"], a["other"], a.get("alpha", 1)
    if al is not None and al != 1:
        x = R.multiply(*_operands(ctx, x, al))
    o, t = _operands(ctx, other, x, ctx.out_dtype())
    return R.subtract(o, t)


def _logical(fn_bool, name):
    def conv(ctx):
        vals = list(ctx.args.values())
        a, b = vals[0], vals[1]
        if not _is_expr(b):
            b = _scalar_const(b, ctx.dtype(a))
        if ctx.dtype(a) != "bool" or ctx.dtype(b) != "bool":
            if name.startswith("bitwise"):
                raise NotImplementedError("%s on %s tensors (bool only)" % (name, ctx.dtype(a)))
            a = a if ctx.dtype(a) == "bool" else R.not_equal(a, _scalar_const(0, ctx.dtype(a)))
            b = b if ctx.dtype(b) == "bool" else R.not_equal(b, _scalar_const(0, ctx.dtype(b)))
        return fn_bool(a, b)
    return conv


register("aten.bitwise_and.Tensor", "aten.bitwise_and.Scalar", "aten.__and__.Tensor")(_logical(R.logical_and, "bitwise_and"))
register("aten.bitwise_or.Tensor", "aten.bitwise_or.Scalar", "aten.__or__.Tensor")(_logical(R.logical_or, "bitwise_or"))
register("aten.logical_and.default")(_logical(R.logical_and, "logical_and"))
register("aten.logical_or.default")(_logical(R.logical_or, "logical_or"))


@register("aten.logical_not.default", "aten.bitwise_not.default")
def _not(ctx):
    x = ctx.arg(0)
    if ctx.dtype(x) != "bool":
        if ctx.node.target.__name__.startswith("bitwise"):
            raise NotImplementedError("bitwise_not on %s tensors (bool only)" % ctx.dtype(x))
        return R.equal(x, _scalar_const(0, ctx.dtype(x)))
    return R.logical_not(x)


@register("aten.where.self", "aten.where.ScalarOther", "aten.where.ScalarSelf", "aten.where.Scalar")
def _where(ctx):
    cond, a, b = ctx.arg(0), ctx.arg(1), ctx.arg(2)
    out = ctx.out_dtype()
    a = a if _is_expr(a) else _scalar_const(a, out)
    b = b if _is_expr(b) else _scalar_const(b, out)
    a = a if ctx.dtype(a) == out else R.astype(a, out)
    b = b if ctx.dtype(b) == out else R.astype(b, out)
    return R.where(cond, a, b)


@register("aten._to_copy.default", "aten.to.dtype", "aten.to.dtype_layout", "aten.to.device",
          "aten.type_as.default")
def _to(ctx):
    x = ctx.arg(0)
    dt = ctx.out_dtype()
    return x if dt is None or dt == ctx.dtype(x) else R.astype(x, dt)


# ---------------------------------------------------------------- linear algebra

def _computed(shape):
    return any(isinstance(d, tir.PrimExpr) and not isinstance(d, (tir.Var, tir.IntImm)) for d in shape)


def _flat_matmul(ctx, lhs, rhs):
    """matmul of a deferred flattening (Reshaped) with a 2-d weight (mm/addmm) or of two
    deferred 3-d flattenings with equal leading dims (bmm): the matmul of the bases, itself
    deferred to the flattened shape. None when the operands do not fit."""

    if not isinstance(lhs, Reshaped):
        return None
    base_shape = ctx.shape(lhs.base)
    if not _same(base_shape[-1], lhs.shape[-1]):
        return None
    if len(lhs.shape) == 2 and _is_expr(rhs) and ctx.ndim(rhs) == 2:
        out = ctx.emit(R.matmul(lhs.base, rhs))
        return Reshaped(out, [lhs.shape[0], ctx.shape(rhs)[1]])
    if len(lhs.shape) == 3 and isinstance(rhs, Reshaped) and len(rhs.shape) == 3:
        rbase = ctx.shape(rhs.base)
        lead = len(base_shape) - 2
        if (len(rbase) == len(base_shape) and _same_shape(rbase[:lead], base_shape[:lead])
                and _same(base_shape[-2], lhs.shape[1]) and _same(rbase[-2], rhs.shape[1])
                and _same(rbase[-1], rhs.shape[2])):
            out = ctx.emit(R.matmul(lhs.base, rhs.base))
            return Reshaped(out, [lhs.shape[0], lhs.shape[1], rhs.shape[2]])
    return None


@register("aten.mm.default", "aten.bmm.default", "aten.matmul.default")
def _matmul(ctx):
    flat = _flat_matmul(ctx, ctx.raw(0), ctx.raw(1))
    if flat is not None:
        return flat
    return R.matmul(ctx.arg(0), ctx.arg(1))


@register("aten.addmm.default")
def _addmm(ctx):

    if ctx.raw(3) == 1 and ctx.raw(4) == 1:  # beta, alpha
        flat = _flat_matmul(ctx, ctx.raw(1), ctx.raw(2))
        if flat is not None:
            bias = ctx.raw(0)
            if isinstance(bias, Reshaped):
                bias = bias.materialize(ctx.bb)
            return Reshaped(ctx.emit(R.add(flat.base, bias)), flat.shape)
    a = ctx.args
    out = R.matmul(a["mat1"], a["mat2"])
    if a.get("alpha", 1) != 1:
        out = R.multiply(*_operands(ctx, out, a["alpha"]))
    bias = a["self"]
    if a.get("beta", 1) != 1:
        if a["beta"] == 0:
            return out
        bias = R.multiply(*_operands(ctx, bias, a["beta"]))
    return R.add(out, bias)


@register("aten.linear.default")
def _linear(ctx):

    x = ctx.raw(0)
    if isinstance(x, Reshaped) and _same(ctx.shape(x.base)[-1], x.shape[-1]):
        w, b = ctx.value(ctx.node.args[1]), ctx.raw(2)
        b = b.materialize(ctx.bb) if isinstance(b, Reshaped) else b
        out = ctx.emit(R.linear(x.base, w, b))
        return Reshaped(out, x.shape[:-1] + [ctx.shape(w)[0]])
    a = ctx.args
    return R.linear(a["input"], a["weight"], a.get("bias"))


@register("aten.t.default")
def _t(ctx):
    x = ctx.arg(0)
    return x if ctx.ndim(x) < 2 else R.permute_dims(x, [1, 0])


# ---------------------------------------------------------------- nn

def _axis(d, ndim):
    d = int(d)
    return d + ndim if d < 0 else d


def _conv(ctx, x, w, bias, stride, padding, dilation, groups):
    nsp = ctx.ndim(x) - 2
    if nsp == 2:
        y = R.nn.conv2d(x, w, strides=list(stride), padding=list(padding), dilation=list(dilation),
                        groups=int(groups))
    elif nsp == 1:
        y = R.nn.conv1d(x, w, strides=list(stride), padding=list(padding), dilation=list(dilation),
                        groups=int(groups))
    else:
        raise NotImplementedError("%d-d convolution (1-d and 2-d are supported)" % nsp)
    if bias is not None:
        y = R.add(y, R.reshape(bias, [1, -1] + [1] * nsp))
    return y


@register("aten.convolution.default")
def _convolution(ctx):
    a = ctx.args
    if a["transposed"]:
        from .aten_nn_extra import convolution_transposed
        return convolution_transposed(ctx, a)
    return _conv(ctx, a["input"], a["weight"], a["bias"], a["stride"], a["padding"], a["dilation"],
                 a["groups"])


@register("aten.conv2d.default", "aten.conv1d.default")
def _conv_nd(ctx):
    a = ctx.args
    if isinstance(a["padding"], str):
        raise NotImplementedError("padding=%r" % a["padding"])
    nsp = ctx.ndim(a["input"]) - 2

    def rep(v):
        return [int(v)] * nsp if isinstance(v, int) else list(v) * (nsp if len(v) == 1 else 1)
    return _conv(ctx, a["input"], a["weight"], a["bias"], rep(a["stride"]), rep(a["padding"]),
                 rep(a["dilation"]), a["groups"])


def _bn(ctx, x, weight, bias, mean, var, eps):
    c = ctx.shape(x)[1]
    dt = ctx.dtype(x)
    weight = weight if weight is not None else _expr.const(np.ones(c, dt))
    bias = bias if bias is not None else _expr.const(np.zeros(c, dt))
    return R.nn.batch_norm(x, weight, bias, mean, var, axis=1, epsilon=float(eps), training=False)


@register("aten._native_batch_norm_legit_no_training.default")
def _bn_no_training(ctx):
    a = ctx.args
    t = ctx.emit(_bn(ctx, a["input"], a["weight"], a["bias"], a["running_mean"], a["running_var"],
                     a["eps"]))
    return [_expr.TupleGetItem(t, 0), None, None]


@register("aten.batch_norm.default")
def _batch_norm(ctx):
    a = ctx.args
    if a["training"] or a["running_mean"] is None:
        raise NotImplementedError("batch_norm in training mode (export the model in eval mode)")
    return _expr.TupleGetItem(ctx.emit(_bn(ctx, a["input"], a["weight"], a["bias"], a["running_mean"],
                                           a["running_var"], a["eps"])), 0)


def _pool_args(ctx, a, nsp):
    def rep(v, default):
        if v is None or (isinstance(v, (list, tuple)) and len(v) == 0):
            v = default
        return [int(v)] * nsp if isinstance(v, int) else [int(e) for e in v] * (nsp if len(v) == 1 else 1)
    k = rep(a["kernel_size"], None)
    return k, rep(a["stride"], k), rep(a["padding"], 0)


@register("aten.max_pool2d_with_indices.default", "aten.max_pool2d.default")
def _max_pool2d(ctx):
    a = ctx.args
    k, s, p = _pool_args(ctx, a, 2)
    d = a["dilation"]
    d = [int(d)] * 2 if isinstance(d, int) else [int(e) for e in d] * (2 if len(d) == 1 else 1)
    y = R.nn.max_pool2d(a["self"], pool_size=k, strides=s, padding=p, dilation=d,
                        ceil_mode=bool(a["ceil_mode"]))
    if str(ctx.node.target).endswith("with_indices.default"):
        return [ctx.emit(y), None]
    return y


@register("aten.avg_pool2d.default")
def _avg_pool2d(ctx):
    a = ctx.args
    if a.get("divisor_override") is not None:
        raise NotImplementedError("avg_pool2d with divisor_override")
    k, s, p = _pool_args(ctx, a, 2)
    return R.nn.avg_pool2d(a["self"], pool_size=k, strides=s, padding=p, ceil_mode=bool(a["ceil_mode"]),
                           count_include_pad=bool(a["count_include_pad"]))


@register("aten.adaptive_avg_pool2d.default", "aten._adaptive_avg_pool2d.default")
def _adaptive_avg_pool2d(ctx):
    a = ctx.args
    return R.nn.adaptive_avg_pool2d(a["self"], [int(v) for v in a["output_size"]])


@register("aten.embedding.default")
def _embedding(ctx):
    a = ctx.args
    idx = a["indices"]
    if ctx.dtype(idx) not in ("int64", "int32"):
        idx = R.astype(idx, "int64")
    return R.take(a["weight"], idx, axis=0)


def _layer_norm(ctx, x, shape, weight, bias, eps):
    n = len(shape)
    nd = ctx.ndim(x)
    dt = ctx.dtype(x)
    if weight is None:
        weight = _expr.const(np.ones([int(s) for s in shape], dt))
    if bias is None:
        bias = _expr.const(np.zeros([int(s) for s in shape], dt))
    return R.nn.layer_norm(x, weight, bias, axes=list(range(nd - n, nd)), epsilon=float(eps))


@register("aten.native_layer_norm.default")
def _native_layer_norm(ctx):
    a = ctx.args
    return [ctx.emit(_layer_norm(ctx, a["input"], a["normalized_shape"], a["weight"], a["bias"], a["eps"])),
            None, None]


@register("aten.layer_norm.default")
def _layer_norm_conv(ctx):
    a = ctx.args
    return _layer_norm(ctx, a["input"], a["normalized_shape"], a["weight"], a["bias"], a["eps"])


@register("aten._softmax.default", "aten.softmax.int")
def _softmax(ctx):
    x = ctx.arg(0)
    out = ctx.out_dtype()
    if out != ctx.dtype(x):
        x = R.astype(x, out)
    return R.nn.softmax(x, axis=int(ctx.arg(1)))


@register("aten._log_softmax.default", "aten.log_softmax.int")
def _log_softmax(ctx):
    x = ctx.arg(0)
    out = ctx.out_dtype()
    if out != ctx.dtype(x):
        x = R.astype(x, out)
    return R.nn.log_softmax(x, axis=int(ctx.arg(1)))


@register("aten.scaled_dot_product_attention.default")
def _sdpa(ctx):
    """softmax(q k^T * scale + mask) v over the last two axes; a bool mask keeps True entries
    (False ones get -inf), a float mask is added; is_causal masks j > i (static lengths)."""
    a = ctx.args
    q, k, v = a["query"], a["key"], a["value"]
    if a.get("dropout_p", 0.0) not in (0, 0.0, None):
        raise NotImplementedError("scaled_dot_product_attention with dropout_p > 0")
    if a.get("enable_gqa"):
        raise NotImplementedError("scaled_dot_product_attention with enable_gqa")
    nd = ctx.ndim(q)
    dt = ctx.dtype(q)
    e = ctx.shape(q)[-1]
    scale = a.get("scale")
    if scale is None:
        if not isinstance(e, int):
            raise NotImplementedError("a symbolic head dimension without an explicit scale")
        scale = 1.0 / math.sqrt(e)
    perm = list(range(nd - 2)) + [nd - 1, nd - 2]
    s = R.multiply(R.matmul(q, R.permute_dims(k, perm)), _scalar_const(float(scale), dt))
    mask = a.get("attn_mask")
    if a.get("is_causal"):
        L, S = ctx.shape(q)[-2], ctx.shape(k)[-2]
        if not isinstance(L, int) or not isinstance(S, int):
            raise NotImplementedError("is_causal with symbolic sequence lengths")
        causal = _expr.const(np.tril(np.ones((L, S), dtype=bool)))
        s = R.where(causal, s, _scalar_const(-np.inf, dt))
    if mask is not None:
        if ctx.dtype(mask) == "bool":
            s = R.where(mask, s, _scalar_const(-np.inf, dt))
        else:
            s = R.add(s, mask if ctx.dtype(mask) == dt else R.astype(mask, dt))
    return R.matmul(R.nn.softmax(s, axis=-1), v)


# ---------------------------------------------------------------- reductions

def _dims(dim, ndim):
    if dim is None or (isinstance(dim, (list, tuple)) and len(dim) == 0):
        return None
    if isinstance(dim, int):
        dim = [dim]
    return [_axis(d, ndim) for d in dim]


def _reduction(fn):
    def conv(ctx):
        a = ctx.args
        x = a["self"]
        out = ctx.out_dtype()
        if out is not None and out != ctx.dtype(x):
            x = R.astype(x, out)
        return fn(x, _dims(a.get("dim"), ctx.ndim(x)), bool(a.get("keepdim", False)))
    return conv


register("aten.mean.dim", "aten.mean.default")(_reduction(R.mean))
register("aten.sum.dim_IntList", "aten.sum.default")(_reduction(R.sum))
register("aten.amax.default", "aten.max.default")(_reduction(R.max))
register("aten.amin.default", "aten.min.default")(_reduction(R.min))


@register("aten.any.dim", "aten.any.dims", "aten.any.default", "aten.all.dim", "aten.all.dims",
          "aten.all.default")
def _any_all(ctx):
    a = ctx.args
    x = a["self"]
    axes = _dims(a.get("dim"), ctx.ndim(x))
    keep = bool(a.get("keepdim", False))
    nz = x if ctx.dtype(x) == "bool" else R.not_equal(x, _scalar_const(0, ctx.dtype(x)))
    as_int = R.astype(nz, "int32")
    fn = R.max if "any" in str(ctx.node.target) else R.min
    return R.not_equal(fn(as_int, axes, keep), _scalar_const(0, "int32"))


# ---------------------------------------------------------------- shape and indexing

def _shape_list(ctx, shape):
    out = []
    for s in shape:
        out.append(s if isinstance(s, tir.PrimExpr) else int(s))
    return out


@register("aten.view.default", "aten.reshape.default", "aten._unsafe_view.default")
def _view(ctx):

    x = ctx.raw(0)
    if isinstance(x, Reshaped):
        x = x.base
    shape = ctx.out_shape()  # torch's result shape: -1 resolved, symbolic entries as tir
    if shape is None:
        shape = _shape_list(ctx, ctx.value(ctx.node.args[1]))
    if _same_shape(shape, ctx.shape(x)):
        return x
    if _computed(shape):
        return Reshaped(x, shape)
    return R.reshape(x, shape)


@register("aten.flatten.using_ints")
def _flatten(ctx):
    a = ctx.args
    x = a["self"]
    nd = ctx.ndim(x)
    if nd == 0:
        return R.reshape(x, [1])
    s, e = _axis(a["start_dim"], nd), _axis(a["end_dim"], nd)
    if s >= e:
        return x
    shape = ctx.shape(x)
    return R.reshape(x, shape[:s] + [-1] + shape[e + 1:])


@register("aten.permute.default")
def _permute(ctx):
    x = ctx.arg(0)
    nd = ctx.ndim(x)
    return R.permute_dims(x, [_axis(d, nd) for d in ctx.arg(1)])


@register("aten.transpose.int")
def _transpose(ctx):
    x = ctx.arg(0)
    nd = ctx.ndim(x)
    d0, d1 = _axis(ctx.arg(1), nd), _axis(ctx.arg(2), nd)
    perm = list(range(nd))
    perm[d0], perm[d1] = perm[d1], perm[d0]
    return R.permute_dims(x, perm)


@register("aten.expand.default")
def _expand(ctx):
    x = ctx.arg(0)
    shape = ctx.shape(x)
    target = ctx.out_shape()  # torch's result shape (-1 entries resolved)
    if target is None:
        size = list(ctx.arg(1))
        lead = len(size) - len(shape)
        target = [shape[i - lead] if isinstance(s, int) and s == -1 else s for i, s in enumerate(size)]
    if _same_shape(target, shape):
        return x
    return R.broadcast_to(x, target)


@register("aten.unsqueeze.default")
def _unsqueeze(ctx):
    x = ctx.arg(0)
    d = int(ctx.arg(1))
    if d < 0:
        d += ctx.ndim(x) + 1
    return R.expand_dims(x, d)


@register("aten.squeeze.dim", "aten.squeeze.dims", "aten.squeeze.default")
def _squeeze(ctx):
    x = ctx.arg(0)
    nd = ctx.ndim(x)
    dims = ctx.args.get("dim")
    shape = ctx.shape(x)
    if dims is None:
        dims = [i for i, s in enumerate(shape) if isinstance(s, int) and s == 1]
    else:
        dims = [_axis(d, nd) for d in ([dims] if isinstance(dims, int) else dims)]
        dims = [d for d in dims if isinstance(shape[d], int) and shape[d] == 1]  # torch: others kept
    return x if not dims else R.squeeze(x, dims)


_BIG = 2 ** 63 - 1


@register("aten.slice.Tensor")
def _slice(ctx):
    a = ctx.args
    x = a["self"]
    nd = ctx.ndim(x)
    dim = _axis(a["dim"], nd)
    start = 0 if a["start"] is None else a["start"]
    end = _BIG if a["end"] is None else a["end"]
    step = int(a["step"] or 1)
    extent = ctx.shape(x)[dim]
    if isinstance(start, int) and start == 0 and step == 1 and isinstance(end, int) and (
            end >= 2 ** 31 - 1 or (isinstance(extent, int) and end >= extent)):
        return x
    if isinstance(end, int) and end > 2 ** 31 - 1:
        end = 2 ** 31 - 1
    return R.strided_slice(x, [dim], [start], [end], [step])


@register("aten.select.int")
def _select(ctx):
    a = ctx.args
    x = a["self"]
    nd = ctx.ndim(x)
    dim = _axis(a["dim"], nd)
    index = a["index"]
    if isinstance(index, int):
        extent = ctx.shape(x)[dim]
        if index < 0 and isinstance(extent, int):
            index += extent
        if index >= 0:
            return R.take(x, _expr.const(np.array(index, dtype="int64")), axis=dim)
    end = index + 1 if not (isinstance(index, int) and index == -1) else 2 ** 31 - 1
    return R.squeeze(ctx.emit(R.strided_slice(x, [dim], [index], [end], [1])), [dim])


@register("aten.index.Tensor")
def _index(ctx):
    a = ctx.args
    x = a["self"]
    idx = list(a["indices"])
    used = [i for i, t in enumerate(idx) if t is not None]
    if not used:
        return x
    if any(ctx.dtype(idx[i]) == "bool" for i in used):
        from .aten_scatter import index_columns
        meta = ctx.out_meta
        first = [i for i in used if ctx.dtype(idx[i]) == "bool"][0]
        cols = index_columns(ctx, x, idx, meta.shape[first] if meta is not None and len(used) == 1 else None)
        idx = [cols.get(i) for i in range(max(cols) + 1)]
        used = sorted(cols)
    if len(used) == 1:
        return R.take(x, idx[used[0]], axis=used[0], mode="wrap")
    from .aten_tensor_extra import advanced_index
    return advanced_index(ctx, x, idx, used)


@register("aten.cat.default", "aten.concat.default")
def _cat(ctx):
    tensors = [t for t in ctx.arg(0) if t is not None]
    # torch.cat skips 1-d empty tensors whatever the others' rank (a legacy rule that caches
    # starting from torch.tensor([]) rely on, e.g. transformers' DynamicCache)
    nd = max(ctx.ndim(t) for t in tensors)
    if nd > 1:
        tensors = [t for t in tensors if not (ctx.ndim(t) == 1 and ctx.shape(t)[0] == 0)] or tensors[:1]
    if len(tensors) == 1:
        return tensors[0]
    dim = _axis(ctx.arg(1), ctx.ndim(tensors[0]))
    return R.concat(tensors, axis=dim)


def _split_at(ctx, x, sizes, dim):
    idx, acc = [], 0
    for s in sizes[:-1]:
        acc += int(s)
        idx.append(acc)
    t = ctx.emit(R.split(x, idx, axis=dim))
    return [_expr.TupleGetItem(t, i) for i in range(len(sizes))]


@register("aten.split_with_sizes.default", "aten.split_with_sizes_copy.default")
def _split_with_sizes(ctx):
    a = ctx.args
    x = a["self"]
    return _split_at(ctx, x, list(a["split_sizes"]), _axis(a["dim"], ctx.ndim(x)))


def _static_dim(ctx, what):
    """(x, dim, extent) of the op's `self` along its `dim` argument; the pieces these ops
    make are counted at import, so the extent must be static."""
    x = ctx.args["self"]
    dim = _axis(ctx.args["dim"], ctx.ndim(x))
    n = ctx.shape(x)[dim]
    if not isinstance(n, int):
        raise NotImplementedError("%s of a symbolic dimension" % what)
    return x, dim, n


def _pieces(n, size):
    """Extents of consecutive `size`-long pieces of n, the last one smaller."""
    return [size] * (n // size) + ([n % size] if n % size else [])


@register("aten.split.Tensor", "aten.split_copy.Tensor")
def _split(ctx):
    x, dim, n = _static_dim(ctx, "split")
    return _split_at(ctx, x, _pieces(n, int(ctx.args["split_size"])), dim)


@register("aten.chunk.default")
def _chunk(ctx):
    x, dim, n = _static_dim(ctx, "chunk")
    size = -(-n // int(ctx.args["chunks"]))  # torch: ceil-sized chunks, the last one smaller
    return _split_at(ctx, x, _pieces(n, size), dim)


@register("aten.unbind.int")
def _unbind(ctx):
    x, dim, n = _static_dim(ctx, "unbind")
    parts = _split_at(ctx, x, [1] * n, dim)
    return [ctx.emit(R.squeeze(p, [dim])) for p in parts]


@register("getitem")
def _getitem(ctx):
    seq, i = ctx.node.args
    seq = ctx.value(seq)
    if isinstance(seq, (list, tuple)):
        out = seq[i]
        if out is None:
            raise NotImplementedError("output %d of %s is not produced by this frontend"
                                      % (i, ctx.node.args[0].target))
        return out
    if _is_expr(seq) and isinstance(ctx.sinfo(seq), _expr.TupleStructInfo):
        return _expr.TupleGetItem(seq, int(i))
    raise TypeError("getitem on %r" % type(seq).__name__)


# ---------------------------------------------------------------- creation

@register("aten.full.default")
def _full(ctx):
    a = ctx.args
    dt = ctx.out_dtype()
    return R.full(_shape_list(ctx, a["size"]), _scalar_const(a["fill_value"], dt), dt)


@register("aten.zeros.default", "aten.empty.memory_format", "aten.ones.default")
def _zeros_ones(ctx):
    dt = ctx.out_dtype()
    shape = _shape_list(ctx, ctx.arg(0))
    return R.ones(shape, dt) if "ones" in str(ctx.node.target) else R.zeros(shape, dt)


@register("aten.empty_permuted.default")
def _empty_permuted(ctx):
    # empty_like's core-ATen form: uninitialized memory of a shape (physical_layout only
    # orders strides); zeros, as empty.memory_format gives
    return R.zeros(_shape_list(ctx, ctx.args["size"]), ctx.out_dtype())


@register("aten.full_like.default")
def _full_like(ctx):
    a = ctx.args
    dt = ctx.out_dtype()
    return R.full_like(a["self"], _scalar_const(a["fill_value"], dt), dt)


@register("aten.zeros_like.default", "aten.ones_like.default", "aten.empty_like.default")
def _zeros_like(ctx):
    dt = ctx.out_dtype()
    x = ctx.arg(0)
    return R.ones_like(x, dt) if "ones" in str(ctx.node.target) else R.zeros_like(x, dt)


@register("aten.scalar_tensor.default")
def _scalar_tensor(ctx):
    return _scalar_const(ctx.arg(0), ctx.out_dtype())


@register("aten.arange.default", "aten.arange.start", "aten.arange.start_step")
def _arange(ctx):
    a = ctx.args
    dt = ctx.out_dtype()
    if "start" in a and "end" in a:
        start, end, step = a["start"], a["end"], a.get("step", 1)
    else:
        start, end, step = 0, a["end"], 1
    if not _is_float(dt):
        start, end, step = [v if isinstance(v, tir.PrimExpr) else int(v) for v in (start, end, step)]
    else:
        start, end, step = float(start), float(end), float(step)
    return R.arange(start, end, step, dt)


from . import aten_detection, aten_nn_extra, aten_scatter, aten_sort, aten_tensor_extra, aten_upsample  # noqa: E402,F401,E501  (register their converters)
