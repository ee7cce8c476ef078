"""More ONNX converters (issue 20), each a composite of existing Relax operators as TVM's
frontend builds them: CastLike, Mod, Size, IsInf, trigonometric/hyperbolic functions, the
activations (Elu, Selu, Celu, ThresholdedRelu, Softsign, Softplus, Mish, PRelu, Shrink), the
whole Reduce* family with axes given as attributes, constants or run-time inputs, ArgMax /
ArgMin, Hardmax, CumSum, Trilu, OneHot, EyeLike, DepthToSpace / SpaceToDepth and the
normalizations (InstanceNormalization, GroupNormalization, LpNormalization,
MeanVarianceNormalization, LRN). Registered into CONVERTERS on import."""

import numpy as np

from ... import expr as _expr
from ... import op as R
from .converters import CONVERTERS, Converter, _ints, _supported_dtype, register
from .run_time_bounds import bind_lengths


def _k(ctx, x, v):
    """A 0-d constant of x's dtype."""
    return _expr.const(np.array(v, dtype=ctx.dtype_of(x)))


def _i64(v):
    return _expr.const(np.asarray(v, "int64"))


def _is_float(ctx, x):
    return ctx.dtype_of(x) in ("float16", "bfloat16", "float32", "float64")


def _rank(ctx, x, op):
    shape = ctx.shape_of(x)
    if shape is None:
        raise NotImplementedError("%s of an input of unknown rank" % op)
    return len(shape)


def _static(ctx, x, op):
    s = ctx.static_shape(x)
    if s is None:
        raise NotImplementedError("%s needs static input dimensions" % op)
    return s


# ---------------------------------------------------------------- casts, elementwise

@register("CastLike")
class CastLike(Converter):
    @classmethod
    def _impl_v15(cls, ctx, inputs, attrs):
        dt = _supported_dtype(ctx.dtype_of(inputs[1]), "CastLike")
        if ctx.consts[0] is not None:
            return ctx.consts[0].astype(dt)
        return R.astype(inputs[0], dt)


def _np_mod(a, b, fmod):
    if fmod:
        return np.fmod(a, b)
    return np.mod(a, b)


@register("Mod")
class Mod(Converter):
    """fmod=0: the result has the divisor's sign (integers only); fmod=1: the dividend's (C
    fmod)."""

    @classmethod
    def _impl_v10(cls, ctx, inputs, attrs):
        fmod = int(attrs.get("fmod", 0))
        a, b = inputs
        if ctx.all_const():
            return _np_mod(ctx.consts[0], ctx.consts[1], fmod).astype(ctx.consts[0].dtype)
        if not fmod:
            return R.floor_mod(a, b)
        if _is_float(ctx, a):
            return R.subtract(a, R.multiply(R.trunc(R.divide(a, b)), b))
        return R.subtract(a, R.multiply(R.divide(a, b), b))  # integer divide truncates


@register("Size")
class Size(Converter):
    @classmethod
    def _impl_v1(cls, ctx, inputs, attrs):
        shape = ctx.shape_of(inputs[0])
        if shape is None:
            raise NotImplementedError("Size of an input of unknown rank")
        static = ctx.static_shape(inputs[0])
        if static is not None:
            return np.array(int(np.prod(static, dtype=np.int64)), dtype="int64")
        total = shape[0] if shape else 1
        for d in shape[1:]:
            total = total * d
        t = R.shape_to_tensor(_expr.ShapeExpr([total]))
        return R.reshape(t, [])


@register("IsInf")
class IsInf(Converter):
    @classmethod
    def _impl_v10(cls, ctx, inputs, attrs):
        x = inputs[0]
        pos = R.equal(x, _k(ctx, x, np.inf))
        neg = R.equal(x, _k(ctx, x, -np.inf))
        dp, dn = int(attrs.get("detect_positive", 1)), int(attrs.get("detect_negative", 1))
        if dp and dn:
            return R.logical_or(pos, neg)
        if dp:
            return pos
        if dn:
            return neg
        return R.logical_and(pos, neg)  # all false


def _unary(name, fn):
    class _C(Converter):
        @classmethod
        def _impl_v1(cls, ctx, inputs, attrs):
            return fn(ctx, inputs[0], attrs)
    _C.__name__ = name
    CONVERTERS[name] = _C


def _asinh(ctx, x, attrs):
    return R.log(R.add(x, R.sqrt(R.add(R.multiply(x, x), _k(ctx, x, 1.0)))))


def _acosh(ctx, x, attrs):
    return R.log(R.add(x, R.sqrt(R.subtract(R.multiply(x, x), _k(ctx, x, 1.0)))))


def _atanh(ctx, x, attrs):
    one = _k(ctx, x, 1.0)
    return R.multiply(_k(ctx, x, 0.5), R.log(R.divide(R.add(one, x), R.subtract(one, x))))


def _softplus(ctx, x):
    # log(1 + exp(x)) without overflow: max(x, 0) + log(1 + exp(-|x|))
    zero = _k(ctx, x, 0.0)
    return R.add(R.maximum(x, zero), R.log(R.add(_k(ctx, x, 1.0), R.exp(R.negative(R.abs(x))))))


def _elu(ctx, x, attrs):
    a = _k(ctx, x, attrs.get("alpha", 1.0))
    return R.where(R.less(x, _k(ctx, x, 0.0)), R.multiply(a, R.subtract(R.exp(x), _k(ctx, x, 1.0))), x)


def _selu(ctx, x, attrs):
    a = _k(ctx, x, attrs.get("alpha", 1.67326319217681884765625))
    g = _k(ctx, x, attrs.get("gamma", 1.05070102214813232421875))
    neg = R.multiply(a, R.subtract(R.exp(x), _k(ctx, x, 1.0)))
    return R.multiply(g, R.where(R.greater(x, _k(ctx, x, 0.0)), x, neg))


def _celu(ctx, x, attrs):
    alpha = attrs.get("alpha", 1.0)
    a = _k(ctx, x, alpha)
    zero = _k(ctx, x, 0.0)
    neg = R.multiply(a, R.subtract(R.exp(R.divide(x, a)), _k(ctx, x, 1.0)))
    return R.add(R.maximum(x, zero), R.minimum(zero, neg))


def _thresholded_relu(ctx, x, attrs):
    return R.where(R.greater(x, _k(ctx, x, attrs.get("alpha", 1.0))), x, _k(ctx, x, 0.0))


def _softsign(ctx, x, attrs):
    return R.divide(x, R.add(_k(ctx, x, 1.0), R.abs(x)))


def _mish(ctx, x, attrs):
    return R.multiply(x, R.tanh(_softplus(ctx, x)))


def _shrink(ctx, x, attrs):
    lambd = _k(ctx, x, attrs.get("lambd", 0.5))
    bias = _k(ctx, x, attrs.get("bias", 0.0))
    zero = _k(ctx, x, 0)
    return R.where(R.less(x, R.negative(lambd)), R.add(x, bias),
                   R.where(R.greater(x, lambd), R.subtract(x, bias), zero))


for _name, _fn in [
        ("Tan", lambda c, x, a: R.tan(x)), ("Asin", lambda c, x, a: R.asin(x)),
        ("Acos", lambda c, x, a: R.acos(x)), ("Atan", lambda c, x, a: R.atan(x)),
        ("Sinh", lambda c, x, a: R.sinh(x)), ("Cosh", lambda c, x, a: R.cosh(x)),
        ("Asinh", _asinh), ("Acosh", _acosh), ("Atanh", _atanh),
        ("Elu", _elu), ("Selu", _selu), ("Celu", _celu), ("ThresholdedRelu", _thresholded_relu),
        ("Softsign", _softsign), ("Softplus", lambda c, x, a: _softplus(c, x)), ("Mish", _mish),
        ("Shrink", _shrink)]:
    _unary(_name, _fn)


@register("PRelu")
class PRelu(Converter):
    """slope broadcasts against x (unidirectionally, numpy rules)."""

    @classmethod
    def _impl_v1(cls, ctx, inputs, attrs):
        """Before opset 7 a 1-d slope of C values is per channel (axis 1), as pytorch's
        exporter wrote nn.PReLU(num_parameters=C)."""
        x, slope = inputs
        xs, ss = ctx.shape_of(x), ctx.static_shape(slope)
        if xs is not None and ss is not None and len(ss) == 1 and ss[0] != 1 and len(xs) > 2:
            slope = R.reshape(slope, [ss[0]] + [1] * (len(xs) - 2))
        return cls._impl_v7(ctx, [x, slope], attrs)

    @classmethod
    def _impl_v7(cls, ctx, inputs, attrs):
        x, slope = inputs
        return R.where(R.less(x, _k(ctx, x, 0)), R.multiply(x, slope), x)


# ---------------------------------------------------------------- reductions

# kind -> (pre-map, combiner, post-map); a combiner is a relax reduction
def _pre_abs(ctx, x):
    return R.abs(x)


def _pre_sq(ctx, x):
    return R.multiply(x, x)


def _pre_exp(ctx, x):
    return R.exp(x)


_REDUCE_KINDS = {
    "ReduceSum": (None, R.sum, None), "ReduceMean": (None, R.mean, None),
    "ReduceMax": (None, R.max, None), "ReduceMin": (None, R.min, None),
    "ReduceProd": (None, R.prod, None), "ReduceL1": (_pre_abs, R.sum, None),
    "ReduceL2": (_pre_sq, R.sum, "sqrt"), "ReduceSumSquare": (_pre_sq, R.sum, None),
    "ReduceLogSum": (None, R.sum, "log"), "ReduceLogSumExp": (_pre_exp, R.sum, "log"),
}
_NP_COMBINE = {R.sum: np.sum, R.mean: np.mean, R.max: np.max, R.min: np.min, R.prod: np.prod}


def _post(ctx, x, post, dtype):
    if post is None:
        return x
    if dtype.startswith("int") or dtype.startswith("uint"):
        out = getattr(R, post)(R.astype(x, "float64"))
        return R.astype(out, dtype)
    return getattr(R, post)(x)


def _reduce_static(ctx, name, x, axes, keep):
    pre, comb, post = _REDUCE_KINDS[name]
    dt = ctx.dtype_of(x)
    if name == "ReduceLogSumExp" and _is_float(ctx, x):
        # log(sum(exp(x - m))) + m, m the (finite) max: no overflow
        m = R.max(x, axis=axes, keepdims=True)
        m = ctx.bb.emit(R.where(R.less(R.abs(m), _k(ctx, x, np.inf)), m, _k(ctx, x, 0.0)))
        s = R.log(R.sum(R.exp(R.subtract(x, m)), axis=axes, keepdims=True))
        out = R.add(s, m)
        if not keep:
            out = R.squeeze(out, axes if axes is not None else list(range(_rank(ctx, x, name))))
        return out
    y = pre(ctx, x) if pre else x
    return _post(ctx, comb(y, axis=axes, keepdims=keep), post, dt)


def _reduce_const(name, arr, axes, keep):
    pre, comb, post = _REDUCE_KINDS[name]
    ax = None if axes is None else tuple(axes)
    y = arr
    if pre is _pre_abs:
        y = np.abs(y)
    elif pre is _pre_sq:
        y = y * y
    elif pre is _pre_exp:
        y = np.exp(y)
    out = _NP_COMBINE[comb](y, axis=ax, keepdims=keep)
    if post:
        out = getattr(np, post)(out)
    return np.asarray(out).astype(arr.dtype)


def _reduce_empty(ctx, name, x, axes, keep):
    """A reduction over an empty set (a reduced extent is 0 at import) is the combiner's
    identity everywhere (0, 1, -inf / the type's minimum for max, ...): known at import. The
    kernel would leave its output unwritten (its init runs inside the empty loop)."""
    static = ctx.static_shape(x)
    if static is None:
        return None
    ax = list(range(len(static))) if axes is None else [int(a) % len(static) for a in axes]
    if not any(static[a] == 0 for a in ax):
        return None
    return _reduce_of_empty(name, np.zeros(static, ctx.dtype_of(x)), ax, keep)


def _reduce_of_empty(name, arr, ax, keep):
    """The reduction `name` of `arr` over the axes `ax`, one of which has extent 0: numpy's
    answer, with the type's extreme as the start of max / min (numpy has none for them)."""
    comb = _REDUCE_KINDS[name][1]
    if comb in (R.max, R.min):
        dt = arr.dtype
        if dt == np.bool_:
            ident = comb is R.min
        elif np.issubdtype(dt, np.integer):
            ident = np.iinfo(dt).min if comb is R.max else np.iinfo(dt).max
        else:
            ident = -np.inf if comb is R.max else np.inf
        fn = np.max if comb is R.max else np.min
        return np.asarray(fn(arr, axis=tuple(ax), keepdims=keep, initial=ident)).astype(dt)
    with np.errstate(divide="ignore", invalid="ignore"):
        return _reduce_const(name, arr, ax, keep)


def _reduce_run_time_axes(ctx, name, x, axes_t, keep):
    """Axes known only at run time (their count is static): each axis k is reduced (keepdims)
    and broadcast back where the axes name it, so the shape never changes; then the output's
    extents (1 or the input's, dropped when keepdims=0) are computed into a tensor, bound to
    new symbolic dimensions, and the data sliced / reshaped to them."""
    from .... import tir

    pre, comb, post = _REDUCE_KINDS[name]
    shape = ctx.shape_of(x)
    nd = len(shape)
    dt = ctx.dtype_of(x)
    axes_t = R.astype(axes_t, "int64") if ctx.dtype_of(axes_t) != "int64" else axes_t
    axes_t = ctx.bb.emit(R.reshape(axes_t, [-1]))
    # normalized axes, [r] -> flags[nd] (bool: the axis is reduced)
    norm = R.where(R.less(axes_t, _i64(0)), R.add(axes_t, _i64(nd)), axes_t)
    hit = R.equal(R.expand_dims(norm, 1), _i64(np.arange(nd).reshape(1, nd)))
    flags = ctx.bb.emit(R.max(R.astype(hit, "int64"), axis=0))  # [nd], 0/1
    full = ctx.bb.emit(R.shape_to_tensor(_expr.ShapeExpr(list(shape))))
    # keepdims extents: 1 where reduced, else the input's
    ext = ctx.bb.emit(R.where(R.astype(flags, "bool"), _i64(np.ones(nd, "int64")), full))
    ns = bind_lengths(ctx, ext, nd, "reduce")
    if any(isinstance(d, tir.IntImm) and d.value == 0 for d in shape):
        # An input with no elements: where a reduced axis is the empty one, every output
        # element is the reduction of an empty set; otherwise the output has none. Reducing
        # and broadcasting back cannot hold that (the empty input has no point to hold it,
        # and a kernel reducing an empty axis never writes its output): the identity, filled.
        empty = _reduce_of_empty(name, np.zeros((0,), dt), [0], False)
        idx = ctx.bb.emit(R.full(_expr.ShapeExpr(ns), _expr.const(empty, dt), dt))
    else:
        y = pre(ctx, x) if pre else x
        if name == "ReduceLogSumExp" and _is_float(ctx, x):
            y = R.exp(x)
        y = ctx.bb.emit(y)
        for k in range(nd):
            red = R.broadcast_to(comb(y, axis=[k], keepdims=True), _expr.ShapeExpr(list(shape)))
            flag = R.reshape(R.take(flags, _i64([k]), 0), [])
            y = ctx.bb.emit(R.where(R.astype(flag, "bool"), red, y))
        y = _post(ctx, y, post, dt) if post else y
        idx = y
        for k in range(nd):
            idx = ctx.bb.emit(R.take(idx, R.arange(0, ns[k], 1, dtype="int64"), k))
    if keep:
        return idx
    r = ctx.static_shape(axes_t)[0]
    if nd - r < 0:
        raise ValueError("more axes (%d) than dimensions (%d)" % (r, nd))
    # the kept extents in order: out[j] = sum_k keep_k * (pos_k == j) * dim_k
    kept = R.subtract(_i64(1), flags)
    tri = _i64(np.triu(np.ones((nd, nd), "int64"), 1))  # pos_k = sum_{m<k} kept_m
    pos = R.sum(R.multiply(R.expand_dims(kept, 1), tri), axis=0)
    sel = R.multiply(R.multiply(R.expand_dims(kept, 1), R.astype(R.equal(
        R.expand_dims(pos, 1), _i64(np.arange(nd - r).reshape(1, -1))), "int64")), R.expand_dims(full, 1))
    out_dims = ctx.bb.emit(R.sum(sel, axis=0))
    ms = bind_lengths(ctx, out_dims, nd - r, "reduce_out") if nd - r else []
    return R.reshape(idx, _expr.ShapeExpr(ms))


def _reduce_converter(name, axes_input_from):
    class _C(Converter):
        @classmethod
        def _go(cls, ctx, inputs, attrs, axes, axes_t=None):
            keep = bool(attrs.get("keepdims", 1))
            x = inputs[0]
            if axes_t is not None:
                n = (ctx.static_shape(axes_t) or [None])[0]
                if n is None:
                    raise NotImplementedError("axes of unknown length")
                if n == 0:
                    axes = []
                else:
                    if _rank(ctx, x, name) == 0:
                        return x
                    return _reduce_run_time_axes(ctx, name, x, axes_t, keep)
            if axes is not None and len(axes) == 0:
                axes = None
                if attrs.get("noop_with_empty_axes", 0):
                    if name in ("ReduceL1", "ReduceSumSquare"):
                        pre = _REDUCE_KINDS[name][0]
                        return pre(ctx, x)
                    if name == "ReduceL2":
                        return R.abs(x)
                    if name == "ReduceLogSum":
                        return R.log(x)
                    return x
            if ctx.consts[0] is not None:
                return _reduce_const(name, ctx.consts[0], axes, keep)
            empty = _reduce_empty(ctx, name, x, axes, keep)
            if empty is not None:
                return empty
            return _reduce_static(ctx, name, x, axes, keep)

        @classmethod
        def _impl_v1(cls, ctx, inputs, attrs):
            return cls._go(ctx, inputs, attrs, _ints(attrs["axes"]) if "axes" in attrs else None)

    def _from_input(cls, ctx, inputs, attrs):
        if len(inputs) > 1 and inputs[1] is not None:
            if ctx.consts[1] is not None:
                return cls._go(ctx, inputs, attrs, _ints(ctx.consts[1]))
            return cls._go(ctx, inputs, attrs, None, inputs[1])
        return cls._go(ctx, inputs, attrs, None)
    setattr(_C, "_impl_v%d" % axes_input_from, classmethod(_from_input))
    _C.__name__ = name
    CONVERTERS[name] = _C


for _name, _v in [("ReduceSum", 13), ("ReduceMean", 18), ("ReduceMax", 18), ("ReduceMin", 18),
                  ("ReduceProd", 18), ("ReduceL1", 18), ("ReduceL2", 18), ("ReduceSumSquare", 18),
                  ("ReduceLogSum", 18), ("ReduceLogSumExp", 18)]:
    _reduce_converter(_name, _v)


# ---------------------------------------------------------------- index ops

def _positions(nd, axis, n):
    """arange(n) shaped to broadcast along `axis` of an nd-d tensor."""
    return _i64(np.arange(n, dtype="int64").reshape([n if k == axis else 1 for k in range(nd)]))


def _arg(ctx, x, axis, keep, last, is_max):
    shape = _static(ctx, x, "ArgMax/ArgMin")
    nd = len(shape)
    axis = axis % nd
    n = shape[axis]
    best = (R.max if is_max else R.min)(x, axis=[axis], keepdims=True)
    hit = R.equal(x, best)
    pos = _positions(nd, axis, n)
    if last:
        out = R.max(R.where(hit, pos, _i64(-1)), axis=[axis], keepdims=True)
    else:
        out = R.min(R.where(hit, pos, _i64(n)), axis=[axis], keepdims=True)
    return out if keep else R.squeeze(out, [axis])


def _argconv(name, is_max):
    class _C(Converter):
        @classmethod
        def _impl_v1(cls, ctx, inputs, attrs):
            return _arg(ctx, inputs[0], int(attrs.get("axis", 0)), bool(attrs.get("keepdims", 1)),
                        bool(attrs.get("select_last_index", 0)), is_max)
    _C.__name__ = name
    CONVERTERS[name] = _C


_argconv("ArgMax", True)
_argconv("ArgMin", False)


@register("Hardmax")
class Hardmax(Converter):
    @classmethod
    def _impl_v1(cls, ctx, inputs, attrs):
        x = inputs[0]
        shape = _static(ctx, x, "Hardmax")
        axis = int(attrs.get("axis", 1)) % len(shape)
        inner = int(np.prod(shape[axis:]))
        flat = R.reshape(x, [int(np.prod(shape[:axis])), inner])
        idx = _arg(ctx, flat, 1, True, False, True)
        out = R.astype(R.equal(idx, _positions(2, 1, inner)), ctx.dtype_of(x))
        return R.reshape(out, shape)

    @classmethod
    def _impl_v13(cls, ctx, inputs, attrs):
        x = inputs[0]
        shape = _static(ctx, x, "Hardmax")
        axis = int(attrs.get("axis", -1)) % len(shape)
        idx = _arg(ctx, x, axis, True, False, True)
        return R.astype(R.equal(idx, _positions(len(shape), axis, shape[axis])), ctx.dtype_of(x))


def _cumsum_axis(ctx, x, axis, exclusive, reverse):
    shape = _static(ctx, x, "CumSum")
    nd = len(shape)
    n = shape[axis]
    i = np.arange(n).reshape(n, 1)
    j = np.arange(n).reshape(1, n)
    # out[..., j] = sum_i x[..., i] * m[i, j]
    if reverse:
        m = (i > j) if exclusive else (i >= j)
    else:
        m = (i < j) if exclusive else (i <= j)
    dt = ctx.dtype_of(x)
    perm = [k for k in range(nd) if k != axis] + [axis]
    inv = list(np.argsort(perm))
    xt = R.permute_dims(x, perm) if axis != nd - 1 else x
    if dt.startswith("float"):
        out = R.matmul(xt, _expr.const(m.astype(dt)))
    else:  # integers: exact sums
        prod = R.multiply(R.expand_dims(xt, -1), _expr.const(m.astype(dt)))
        out = R.sum(prod, axis=[-2])
    return R.permute_dims(out, inv) if axis != nd - 1 else out


@register("CumSum")
class CumSum(Converter):
    """The axis may be a run-time input: every candidate axis is computed and the one named
    selected (same shapes)."""

    @classmethod
    def _impl_v11(cls, ctx, inputs, attrs):
        x = inputs[0]
        nd = _rank(ctx, x, "CumSum")
        ex, rev = int(attrs.get("exclusive", 0)), int(attrs.get("reverse", 0))
        if ctx.consts[1] is not None:
            return _cumsum_axis(ctx, x, int(np.asarray(ctx.consts[1]).reshape(-1)[0]) % nd, ex, rev)
        a = R.reshape(R.astype(inputs[1], "int64"), [])
        a = ctx.bb.emit(R.where(R.less(a, _i64(0)), R.add(a, _i64(nd)), a))
        out = _cumsum_axis(ctx, x, nd - 1, ex, rev)
        for k in range(nd - 2, -1, -1):
            out = R.where(R.equal(a, _i64(k)), _cumsum_axis(ctx, x, k, ex, rev), out)
        return out


@register("Trilu")
class Trilu(Converter):
    @classmethod
    def _impl_v14(cls, ctx, inputs, attrs):
        x = inputs[0]
        shape = ctx.shape_of(x)
        if shape is None or len(shape) < 2:
            raise ValueError("Trilu needs an input of rank 2 or more")
        s = _static(ctx, x, "Trilu")
        n, m = s[-2], s[-1]
        if len(inputs) > 1 and inputs[1] is not None:
            k = R.reshape(R.astype(inputs[1], "int64"), []) if ctx.consts[1] is None else \
                _i64(int(np.asarray(ctx.consts[1]).reshape(-1)[0]))
        else:
            k = _i64(0)
        diff = _i64(np.arange(m).reshape(1, m) - np.arange(n).reshape(n, 1))  # col - row
        upper = int(attrs.get("upper", 1))
        keep = R.greater_equal(diff, k) if upper else R.less_equal(diff, k)
        return R.where(keep, x, _k(ctx, x, 0))


@register("OneHot")
class OneHot(Converter):
    @classmethod
    def _impl_v9(cls, ctx, inputs, attrs):
        ind, depth, values = inputs
        shape = _static(ctx, ind, "OneHot")
        nd = len(shape) + 1
        axis = int(attrs.get("axis", -1)) % nd
        idx = R.astype(ind, "int64")
        if ctx.consts[1] is not None:
            d = int(np.asarray(ctx.consts[1]).reshape(-1)[0])
            dt, pos = _i64(d), _positions(nd, axis, d)
        else:  # the depth (the output's extent) known at run time
            dt = ctx.bb.emit(R.reshape(R.astype(depth, "int64"), [1]))
            (n,) = bind_lengths(ctx, dt, 1, "onehot")
            pos = R.reshape(R.arange(0, n, 1, dtype="int64"), [-1 if k == axis else 1 for k in range(nd)])
            dt = R.reshape(dt, [])
        idx = R.where(R.less(idx, _i64(0)), R.add(idx, dt), idx)
        idx = R.expand_dims(idx, axis)
        hit = R.equal(idx, pos)
        off = R.reshape(R.take(values, _i64([0]), 0), [])
        on = R.reshape(R.take(values, _i64([1]), 0), [])
        return R.where(hit, on, off)


@register("EyeLike")
class EyeLike(Converter):
    @classmethod
    def _impl_v9(cls, ctx, inputs, attrs):
        from onnx import helper
        shape = _static(ctx, inputs[0], "EyeLike")
        if len(shape) != 2:
            raise ValueError("EyeLike needs a 2-d input")
        dt = _supported_dtype(helper.tensor_dtype_to_np_dtype(attrs["dtype"]), "EyeLike") \
            if "dtype" in attrs else ctx.dtype_of(inputs[0])
        return np.eye(shape[0], shape[1], k=int(attrs.get("k", 0)), dtype=dt)


@register("DepthToSpace")
class DepthToSpace(Converter):
    @classmethod
    def _impl_v1(cls, ctx, inputs, attrs):
        x = inputs[0]
        n, c, h, w = _static(ctx, x, "DepthToSpace")
        b = int(attrs["blocksize"])
        if attrs.get("mode", "DCR") == "DCR":
            y = R.reshape(x, [n, b, b, c // (b * b), h, w])
            y = R.permute_dims(y, [0, 3, 4, 1, 5, 2])
        else:
            y = R.reshape(x, [n, c // (b * b), b, b, h, w])
            y = R.permute_dims(y, [0, 1, 4, 2, 5, 3])
        return R.reshape(y, [n, c // (b * b), h * b, w * b])


@register("SpaceToDepth")
class SpaceToDepth(Converter):
    @classmethod
    def _impl_v1(cls, ctx, inputs, attrs):
        x = inputs[0]
        n, c, h, w = _static(ctx, x, "SpaceToDepth")
        b = int(attrs["blocksize"])
        y = R.reshape(x, [n, c, h // b, b, w // b, b])
        if attrs.get("mode", "DCR") == "CRD":
            y = R.permute_dims(y, [0, 1, 3, 5, 2, 4])
        else:
            y = R.permute_dims(y, [0, 3, 5, 1, 2, 4])
        return R.reshape(y, [n, c * b * b, h // b, w // b])


# ---------------------------------------------------------------- normalizations

def _normalize(ctx, x, axes, eps):
    mean = ctx.bb.emit(R.mean(x, axis=axes, keepdims=True))
    cen = ctx.bb.emit(R.subtract(x, mean))
    var = R.mean(R.multiply(cen, cen), axis=axes, keepdims=True)
    return R.divide(cen, R.sqrt(R.add(var, _k(ctx, x, eps))))


@register("InstanceNormalization")
class InstanceNormalization(Converter):
    @classmethod
    def _impl_v6(cls, ctx, inputs, attrs):
        x, scale, bias = inputs
        nd = _rank(ctx, x, "InstanceNormalization")
        y = _normalize(ctx, x, list(range(2, nd)), attrs.get("epsilon", 1e-5))
        bshape = [-1] + [1] * (nd - 2)
        return R.add(R.multiply(y, R.reshape(scale, bshape)), R.reshape(bias, bshape))


@register("MeanVarianceNormalization")
class MeanVarianceNormalization(Converter):
    @classmethod
    def _impl_v9(cls, ctx, inputs, attrs):
        x = inputs[0]
        axes = _ints(attrs.get("axes", [0, 2, 3]))
        mean = ctx.bb.emit(R.mean(x, axis=axes, keepdims=True))
        cen = ctx.bb.emit(R.subtract(x, mean))
        var = R.mean(R.multiply(cen, cen), axis=axes, keepdims=True)
        return R.divide(cen, R.add(R.sqrt(var), _k(ctx, x, 1e-9)))


@register("LpNormalization")
class LpNormalization(Converter):
    @classmethod
    def _impl_v1(cls, ctx, inputs, attrs):
        x = inputs[0]
        axis = int(attrs.get("axis", -1))
        p = int(attrs.get("p", 2))
        if p == 1:
            norm = R.sum(R.abs(x), axis=[axis], keepdims=True)
        elif p == 2:
            norm = R.sqrt(R.sum(R.multiply(x, x), axis=[axis], keepdims=True))
        else:
            raise ValueError("p must be 1 or 2, got %d" % p)
        return R.divide(x, norm)


@register("GroupNormalization")
class GroupNormalization(Converter):
    """Opset 18: scale and bias per group; 21: per channel."""

    @classmethod
    def _go(cls, ctx, inputs, attrs, per_channel):
        x, scale, bias = inputs
        shape = _static(ctx, x, "GroupNormalization")
        n, c = shape[0], shape[1]
        g = int(attrs["num_groups"])
        if c % g:
            raise ValueError("%d channels are not divisible into %d groups" % (c, g))
        dt = ctx.dtype_of(x)
        xf = R.astype(x, "float32") if dt == "float16" else x
        y = R.reshape(xf, [n, g, -1])
        y = _normalize(ctx, y, [2], attrs.get("epsilon", 1e-5))
        if dt == "float16":
            y = R.astype(y, dt)
        if not per_channel:
            y = R.add(R.multiply(y, R.reshape(scale, [g, 1])), R.reshape(bias, [g, 1]))
            return R.reshape(y, shape)
        y = R.reshape(y, shape)
        bshape = [c] + [1] * (len(shape) - 2)
        return R.add(R.multiply(y, R.reshape(scale, bshape)), R.reshape(bias, bshape))

    @classmethod
    def _impl_v18(cls, ctx, inputs, attrs):
        return cls._go(ctx, inputs, attrs, False)

    @classmethod
    def _impl_v21(cls, ctx, inputs, attrs):
        return cls._go(ctx, inputs, attrs, True)


@register("LRN")
class LRN(Converter):
    """y = x / (bias + alpha / size * sum of squares over the `size` channels around c)^beta."""

    @classmethod
    def _impl_v1(cls, ctx, inputs, attrs):
        x = inputs[0]
        shape = _static(ctx, x, "LRN")
        size = int(attrs["size"])
        alpha, beta, bias = attrs.get("alpha", 1e-4), attrs.get("beta", 0.75), attrs.get("bias", 1.0)
        c = shape[1]
        lo, hi = (size - 1) // 2, size - 1 - (size - 1) // 2
        # window matrix: out channel j sums in channels i with j - lo <= i <= j + hi
        i = np.arange(c).reshape(c, 1)
        j = np.arange(c).reshape(1, c)
        win = ((i >= j - lo) & (i <= j + hi)).astype(ctx.dtype_of(x))
        sq = R.multiply(x, x)
        nd = len(shape)
        perm = [0] + list(range(2, nd)) + [1]
        inv = list(np.argsort(perm))
        s = R.permute_dims(R.matmul(R.permute_dims(sq, perm), _expr.const(win)), inv)
        den = R.power(R.add(_k(ctx, x, bias), R.multiply(_k(ctx, x, alpha / size), s)), _k(ctx, x, beta))
        return R.divide(x, den)
