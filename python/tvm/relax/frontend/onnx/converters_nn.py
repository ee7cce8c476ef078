"""ONNX converters for convolution, normalization, pooling and the indexing/shape operators
(registered into CONVERTERS on import; converters.py has the elementwise/linear ones)."""

import math

import numpy as np

from ... import expr as _expr
from ... import op as R
from .converters import Converter, _ints, _np, register
from . import run_time_shapes
from .run_time_bounds import pad_at_run_time, slice_at_run_time
from .shape_values import dims_of, expand_dims_to, simplify


def _auto_pad(ctx, x, attrs, kernel, strides, dilations):
    """Explicit (begin..., end...) pads, SAME_UPPER/SAME_LOWER resolved from static shapes."""
    nsp = len(kernel)
    mode = attrs.get("auto_pad", "NOTSET")
    if mode in ("NOTSET", ""):
        pads = _ints(attrs.get("pads", [0] * (2 * nsp)))
        return pads
    if mode == "VALID":
        return [0] * (2 * nsp)
    shape = ctx.static_shape(x)
    if shape is None:
        raise NotImplementedError("auto_pad=%s needs static spatial dimensions" % mode)
    begin, end = [], []
    for k in range(nsp):
        size = shape[2 + k]
        out = int(math.ceil(size / strides[k]))
        total = max((out - 1) * strides[k] + (kernel[k] - 1) * dilations[k] + 1 - size, 0)
        small, big = total // 2, total - total // 2
        if mode == "SAME_UPPER":
            begin.append(small)
            end.append(big)
        else:
            begin.append(big)
            end.append(small)
    return begin + end


def conv_geometry(ctx, x, w, attrs):
    """(strides, pads, dilations, groups) of an ONNX Conv-like node (auto_pad resolved)."""
    wshape = ctx.static_shape(w)
    if wshape is None:
        raise NotImplementedError("a convolution weight of unknown shape")
    nsp = len(wshape) - 2
    kernel = _ints(attrs.get("kernel_shape", wshape[2:]))
    strides = _ints(attrs.get("strides", [1] * nsp))
    dil = _ints(attrs.get("dilations", [1] * nsp))
    pads = _auto_pad(ctx, x, attrs, kernel, strides, dil)
    return strides, pads, dil, int(attrs.get("group", 1))


@register("Conv")
class Conv(Converter):
    requires = ("nn.conv2d", "nn.conv1d")

    @classmethod
    def _impl_v1(cls, ctx, inputs, attrs):
        from . import qdq
        out = qdq.conv(ctx, inputs, attrs, conv_geometry)  # dequantized operands: an integer product
        if out is not None:
            return out
        x, w = inputs[0], inputs[1]
        strides, pads, dil, groups = conv_geometry(ctx, x, w, attrs)
        nsp = len(strides)
        fn = {1: R.nn.conv1d, 2: R.nn.conv2d, 3: R.nn.conv3d}.get(nsp)
        if fn is None:
            raise NotImplementedError("Conv with %d spatial dimensions (1, 2 and 3 are supported)" % nsp)
        out = fn(x, w, strides=strides, padding=pads, dilation=dil, groups=groups)
        if len(inputs) > 2 and inputs[2] is not None:
            bias = inputs[2]
            if ctx.consts[2] is not None:
                bias = _expr.const(ctx.consts[2].reshape([1, -1] + [1] * nsp))
            else:
                bias = R.reshape(bias, [1, -1] + [1] * nsp)
            out = R.add(out, bias)
        return out


@register("BatchNormalization")
class BatchNormalization(Converter):
    requires = ("nn.batch_norm",)

    @classmethod
    def _impl_v1(cls, ctx, inputs, attrs):
        eps = attrs.get("epsilon", 1e-5)
        if attrs.get("training_mode", 0):
            # batch statistics (population variance); ONNX's running = running * momentum +
            # batch * (1 - momentum) is TVM's with momentum 1 - momentum
            out = ctx.bb.emit(R.nn.batch_norm(*inputs[:5], axis=1, epsilon=eps,
                                              momentum=1.0 - attrs.get("momentum", 0.9), training=True))
            n = len([o for o in ctx.node.output if o])
            return tuple(_expr.TupleGetItem(out, i) for i in range(min(n, 3)))
        out = R.nn.batch_norm(*inputs[:5], axis=1, epsilon=eps, training=False)
        return _expr.TupleGetItem(ctx.bb.emit(out), 0)


def _pool(name):
    class _C(Converter):
        requires = ("nn.%s1d" % name, "nn.%s2d" % name)

        @classmethod
        def _impl_v1(cls, ctx, inputs, attrs):
            if len([o for o in ctx.node.output if o]) > 1:
                raise NotImplementedError("MaxPool's Indices output is not supported")
            kernel = _ints(attrs["kernel_shape"])
            nsp = len(kernel)
            strides = _ints(attrs.get("strides", [1] * nsp))
            dil = _ints(attrs.get("dilations", [1] * nsp))
            pads = _auto_pad(ctx, inputs[0], attrs, kernel, strides, dil)
            fn = getattr(R.nn, "%s%dd" % (name, nsp), None)
            if fn is None:
                raise NotImplementedError("%s with %d spatial dimensions" % (name, nsp))
            kw = dict(pool_size=kernel, strides=strides, padding=pads, dilation=dil,
                      ceil_mode=bool(attrs.get("ceil_mode", 0)))
            if name == "avg_pool":
                kw["count_include_pad"] = bool(attrs.get("count_include_pad", 0))
            out = fn(inputs[0], **kw)
            shape = ctx.static_shape(inputs[0])
            if kw["ceil_mode"] and shape is not None:
                # ONNX (like PyTorch) drops a last window that would start in the end padding;
                # the ceil formula keeps it: slice it off.
                ends = []
                for k in range(nsp):
                    size, begin = shape[2 + k], pads[k]
                    span = size + pads[k] + pads[nsp + k] - dil[k] * (kernel[k] - 1) - 1
                    n = -(-span // strides[k]) + 1
                    if (n - 1) * strides[k] >= size + begin:
                        n -= 1
                    ends.append(n)
                got = ctx.static_shape(ctx.bb.emit(out))
                if got is not None and any(g > e for g, e in zip(got[2:], ends)):
                    out = R.strided_slice(out, list(range(2, 2 + nsp)), [0] * nsp, ends)
            return out
    _C.__name__ = name
    return _C


register("MaxPool")(_pool("max_pool"))
register("AveragePool")(_pool("avg_pool"))


def _full_pads(ctx, x, pads, axes):
    """Pad's [2k] pads for run-time axes spread over all nd axes ([2nd], zero where no axis
    names a position): one-hot rows of the (normalized) axes times the pads."""
    from .run_time_bounds import _i64, _rank

    nd = _rank(ctx, x, "Pad axes")
    a = ctx.bb.emit(_i64(ctx, axes))
    k = ctx.static_shape(a)[0]
    p = ctx.bb.emit(_i64(ctx, pads))
    c = (lambda v: _expr.const(np.asarray(v, "int64")))
    a = R.where(R.less(a, c(0)), R.add(a, c(nd)), a)
    sel = R.astype(R.equal(R.reshape(R.arange(0, nd, 1, dtype="int64"), [nd, 1]),
                           R.reshape(a, [1, k])), "int64")
    halves = [R.sum(R.multiply(sel, R.reshape(R.take(p, c(list(range(h * k, h * k + k))), 0),
                                              [1, k])), 1) for h in (0, 1)]
    return ctx.bb.emit(R.concat(halves, 0))


@register("Pad")
class Pad(Converter):
    requires = ("nn.pad",)

    @classmethod
    def _go(cls, ctx, x, pads, value, mode):
        nd = len(pads) // 2
        width = [(int(pads[k]), int(pads[nd + k])) for k in range(nd)]
        if any(b < 0 or a < 0 for b, a in width):
            raise NotImplementedError("Pad with negative pads (cropping)")
        mode = {"edge": "edge", "reflect": "reflect", "constant": "constant", "wrap": "circular"}.get(mode)
        if mode is None:
            raise NotImplementedError("Pad mode %r" % mode)
        return R.nn.pad(x, width, pad_mode=mode, pad_value=float(value))

    @classmethod
    def _impl_v2(cls, ctx, inputs, attrs):
        return cls._go(ctx, inputs[0], _ints(attrs["pads"]), attrs.get("value", 0.0), attrs.get("mode", "constant"))

    @classmethod
    def _impl_v11(cls, ctx, inputs, attrs):
        pads = _np(ctx, 1)
        value = _np(ctx, 2) if len(inputs) > 2 and inputs[2] is not None else None
        run_time_axes = len(inputs) > 3 and inputs[3] is not None and _np(ctx, 3) is None
        if pads is None or run_time_axes:
            axes = None
            pads_in = inputs[1]
            if run_time_axes:
                pads_in = _full_pads(ctx, inputs[0], inputs[1], inputs[3])
            elif len(inputs) > 3 and inputs[3] is not None:
                axes = _np(ctx, 3)
            dt = ctx.dtype_of(inputs[0])
            if value is not None or len(inputs) <= 2 or inputs[2] is None:
                v = _expr.const(np.asarray(0 if value is None else value).reshape(()).astype(dt))
            else:
                v = R.reshape(inputs[2], [])
            return pad_at_run_time(ctx, inputs[0], pads_in, v, attrs.get("mode", "constant"), axes)
        pads = [int(p) for p in pads]
        if len(inputs) > 3 and inputs[3] is not None:
            axes = _np(ctx, 3)
            if axes is None:
                raise NotImplementedError("Pad with axes computed at run time")
            nd = len(ctx.shape_of(inputs[0]))
            full = [0] * (2 * nd)
            na = len(axes)
            for i, a in enumerate(int(a) % nd for a in axes):
                full[a], full[nd + a] = pads[i], pads[na + i]
            pads = full
        return cls._go(ctx, inputs[0], pads, 0.0 if value is None else np.asarray(value).reshape(-1)[0],
                       attrs.get("mode", "constant"))


@register("Split")
class Split(Converter):
    requires = ("split",)

    @classmethod
    def _go(cls, ctx, inputs, attrs, split):
        axis = attrs.get("axis", 0)
        n_out = len(ctx.node.output)
        if split is None:
            num = attrs.get("num_outputs", n_out)
            shape = ctx.static_shape(inputs[0])
            size = shape[axis] if shape is not None else None
            if size is not None and size % num:
                # ONNX: the last chunk is smaller (ceil-sized chunks).
                chunk = -(-size // num)
                idx = [chunk * (k + 1) for k in range(num - 1)]
                out = R.split(inputs[0], idx, axis)
            else:
                out = R.split(inputs[0], num, axis)
        else:
            idx = list(np.cumsum([int(s) for s in split])[:-1])
            out = R.split(inputs[0], [int(i) for i in idx], axis)
        tup = ctx.bb.emit(out)
        return tuple(_expr.TupleGetItem(tup, k) for k in range(n_out))

    @classmethod
    def _impl_v2(cls, ctx, inputs, attrs):
        return cls._go(ctx, inputs, attrs, attrs.get("split"))

    @classmethod
    def _impl_v13(cls, ctx, inputs, attrs):
        split = None
        if len(inputs) > 1 and inputs[1] is not None:
            split = _np(ctx, 1)
            if split is None:
                return run_time_shapes.split(ctx, inputs[0], inputs[1], attrs.get("axis", 0),
                                             len(ctx.node.output))
        return cls._go(ctx, inputs, attrs, split)


def _slice_axes(ctx, x, starts, axes):
    nd = len(ctx.shape_of(x))
    return list(range(len(starts))) if axes is None else [int(a) % nd for a in axes]


@register("Slice")
class Slice(Converter):
    requires = ("strided_slice",)

    @classmethod
    def _go(cls, ctx, x, starts, ends, axes, steps):
        nd = len(ctx.shape_of(x))
        axes = list(range(len(starts))) if axes is None else [int(a) % nd for a in axes]
        steps = [1] * len(starts) if steps is None else [int(s) for s in steps]
        starts, ends = [int(s) for s in starts], [int(e) for e in ends]
        if ctx.consts[0] is not None:
            sl = [slice(None)] * nd
            for a, b, e, s in zip(axes, starts, ends, steps):
                sl[a] = slice(b, e, s)
            return ctx.consts[0][tuple(sl)]
        big = 2 ** 62
        ends = [min(max(e, -big), big) for e in ends]
        return R.strided_slice(x, axes, starts, ends, steps)

    @classmethod
    def _impl_v1(cls, ctx, inputs, attrs):
        return cls._go(ctx, inputs[0], _ints(attrs["starts"]), _ints(attrs["ends"]),
                       attrs.get("axes"), None)

    @classmethod
    def _impl_v10(cls, ctx, inputs, attrs):
        given = [len(ctx.node.input) > k and bool(ctx.node.input[k]) for k in range(5)]
        vals = [_np(ctx, k) if given[k] else None for k in range(1, 5)]
        if given[3] and vals[2] is None:
            return run_time_shapes.slice_axes(ctx, inputs[0], inputs[1], inputs[2], inputs[3],
                                              inputs[4] if given[4] else None)
        steps_at_run_time = given[4] and vals[3] is None
        starts, ends = dims_of(ctx, 1), dims_of(ctx, 2)
        if (vals[0] is None or vals[1] is None) and None not in (starts, ends) and not steps_at_run_time:
            # symbolic bounds (shape_values.py): strided_slice takes them as they are
            return R.strided_slice(inputs[0], _slice_axes(ctx, inputs[0], starts, vals[2]),
                                   starts, ends, vals[3])
        if vals[0] is None or vals[1] is None or steps_at_run_time:
            return slice_at_run_time(ctx, inputs[0], inputs[1], inputs[2], vals[2],
                                     inputs[4] if steps_at_run_time else vals[3])
        return cls._go(ctx, inputs[0], vals[0], vals[1], vals[2], vals[3])


@register("Expand")
class Expand(Converter):
    requires = ("broadcast_to",)

    @classmethod
    def _impl_v8(cls, ctx, inputs, attrs):
        target = dims_of(ctx, 1)  # constant, or symbolic from Shape nodes (shape_values.py)
        if target is None:
            return run_time_shapes.expand(ctx, inputs[0], inputs[1])
        out = expand_dims_to(ctx.shape_of(inputs[0]), target)
        if ctx.all_const():
            return np.broadcast_to(ctx.consts[0], [int(o) for o in out]).copy()
        return R.broadcast_to(inputs[0], out)


@register("Tile")
class Tile(Converter):
    requires = ("tile",)

    @classmethod
    def _impl_v6(cls, ctx, inputs, attrs):
        reps = dims_of(ctx, 1)
        if reps is None:
            return run_time_shapes.tile(ctx, inputs[0], inputs[1])
        if ctx.all_const():
            return np.tile(ctx.consts[0], reps)
        if ctx.consts[1] is not None:
            return R.tile(inputs[0], reps)
        # symbolic repeats: x [d] -> [1, d] per axis, broadcast to [r, d], merged to [r * d]
        src = ctx.shape_of(inputs[0])
        x = R.reshape(inputs[0], [v for d in src for v in (1, d)])
        x = R.broadcast_to(x, [v for r, d in zip(reps, src) for v in (r, d)])
        return R.reshape(x, [simplify(ctx, r * d) for r, d in zip(reps, src)])


@register("GatherElements")
class GatherElements(Converter):
    requires = ("gather_elements",)

    @classmethod
    def _impl_v11(cls, ctx, inputs, attrs):
        return R.gather_elements(inputs[0], inputs[1], axis=attrs.get("axis", 0))


@register("GatherND")
class GatherND(Converter):
    requires = ("gather_nd",)

    @classmethod
    def _impl_v11(cls, ctx, inputs, attrs):
        return R.gather_nd(inputs[0], inputs[1], batch_dims=attrs.get("batch_dims", 0))
