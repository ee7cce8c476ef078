"""ConvertLayout: convolutions and the operators between them run in a desired data layout
(TVM's relax.transform.ConvertLayout(desired_layouts)), so a CNN written NCHW runs NHWC end
to end with one transpose at each edge instead of two per convolution.

    ConvertLayout({"relax.nn.conv2d": ["NHWC", "default"]})

Each 4-d NCHW conv2d whose weight is a constant (any groups) becomes an NHWC conv2d (the
kernel layout is kept: "default"; legalization transposes constant weights once). The
layout then travels forward through the operators that do not care where the channels are,
each rewritten for the new layout: unary elementwise ops, binary broadcast ops (a constant
operand is transposed here; a 4-d variable operand is transposed by a permute_dims), max /
average / adaptive average pooling (their `layout`), concat along the channels and inference
batch_norm with constant parameters (its normalized output as x * scale + shift), and the
channel shuffle of ShuffleNet (reshape to (N, g, C/g, H, W), swap the two channel axes,
reshape back: rewritten as the same shuffle of the channels-last axis). Any other
use of a converted value reads an NCHW copy made just before that use (once per value), and
so do the function's outputs; values nobody reads in NCHW are never transposed back.
Bindings outside dataflow blocks are left alone.
"""

import numpy as np

from ... import tir
from .. import expr as _expr
from .. import op as _op
from ..expr_functor import ExprMutator, key
from .lowering_common import op_name

_TO_LAST = [0, 2, 3, 1]  # NCHW -> NHWC
_TO_FIRST = [0, 3, 1, 2]  # NHWC -> NCHW

_UNARY = {"relax.nn.relu", "relax.clip", "relax.sigmoid", "relax.tanh", "relax.nn.silu",
          "relax.nn.gelu", "relax.nn.gelu_tanh", "relax.nn.leakyrelu", "relax.exp", "relax.negative",
          "relax.sqrt", "relax.abs"}
_BINARY = {"relax.add", "relax.subtract", "relax.multiply", "relax.divide", "relax.maximum",
           "relax.minimum", "relax.power"}
_POOLS = {"relax.nn.max_pool2d", "relax.nn.avg_pool2d", "relax.nn.adaptive_avg_pool2d"}


def _op_name(e):
    return op_name(e)


def _attr(call, name, default=None):
    a = call.attrs
    return a[name] if name in a and a[name] is not None else default


def _rank(e):
    si = e.struct_info
    return getattr(si, "ndim", -1) if si is not None else -1


class _Converter(ExprMutator):
    def __init__(self, mod, layout):
        super().__init__(mod)
        self._layout = layout

    def visit_function(self, name, func):
        body = func.body
        blocks = body.blocks if isinstance(body, _expr.SeqExpr) else []
        if not any(op_name(b.value) == "relax.nn.conv2d" for block in blocks for b in block.bindings):
            return func  # no convolution, nothing to convert: not rebuilt
        self._last = {}   # key(original var) -> its value in the desired layout (new var)
        self._first = {}  # key(original var) -> its NCHW copy, once made
        self._orig = {}   # key(original var) -> its original bound value
        body = func.body
        for block in (body.blocks if isinstance(body, _expr.SeqExpr) else []):
            for b in block.bindings:
                self._orig[key(b.var)] = b.value
        return super().visit_function(name, func)

    # A converted value read where NCHW is needed: its NCHW copy, made on first such read.
    def visit_var_(self, v):
        k = key(v)
        if k in self._last and k not in self.var_remap_:
            if k not in self._first:
                self._first[k] = self.builder_.emit(
                    _op.permute_dims(self._last[k], _TO_FIRST), str(v.name_hint) + "_nchw")
            return self._first[k]
        return super().visit_var_(v)

    visit_dataflow_var_ = visit_var_

    def _in_last(self, e, convert=False):
        """`e` in the desired layout: a converted var's NHWC value, a constant transposed
        here, or (`convert`) a 4-d value transposed by a permute_dims; None otherwise."""
        if isinstance(e, _expr.Var) and key(e) in self._last:
            return self._last[key(e)]
        if isinstance(e, _expr.Constant):
            data = e.data.numpy()
            if data.ndim > 4:
                return None
            if data.size == 1 or data.ndim == 0:
                return e
            data = data.reshape((1,) * (4 - data.ndim) + data.shape).transpose(_TO_LAST)
            return _expr.const(np.ascontiguousarray(data))
        if convert and isinstance(e, _expr.Var) and _rank(e) == 4:
            return self.builder_.emit(_op.permute_dims(self.visit_expr(e), _TO_LAST),
                                      str(e.name_hint) + "_nhwc")
        return None

    def visit_var_binding_(self, b):
        if not isinstance(b.var, _expr.DataflowVar):
            return super().visit_var_binding_(b)
        if isinstance(b.value, _expr.TupleGetItem):
            new = self._batch_norm_output(b.value)
            if new is None:
                return super().visit_var_binding_(b)
            self._last[key(b.var)] = self.builder_.emit(new, str(b.var.name_hint) + "_nhwc")
            return self._last[key(b.var)]
        if not isinstance(b.value, _expr.Call):
            return super().visit_var_binding_(b)
        new = self._convert(b.value)
        if new is None:
            return super().visit_var_binding_(b)
        self._last[key(b.var)] = self.builder_.emit(new, str(b.var.name_hint) + "_nhwc")
        return self._last[key(b.var)]

    def _batch_norm_output(self, item):
        """Item 0 of an inference batch_norm on the channels of a converted value, with
        constant parameters: x * scale + shift in the desired layout (scale and shift computed
        here). The batch_norm binding itself is left to DeadCodeElimination when nothing
        else reads it. None when it does not apply."""
        t = item.tuple_value
        call = self._orig.get(key(t)) if isinstance(t, _expr.Var) and item.index == 0 else None
        if _op_name(call) != "relax.nn.batch_norm" or bool(_attr(call, "training", False)):
            return None
        x = call.args[0]
        if not (isinstance(x, _expr.Var) and key(x) in self._last and _rank(x) == 4
                and int(_attr(call, "axis", 1)) in (1, -3)):
            return None
        params = [self._constant(a) for a in call.args[1:5]]
        if any(p is None for p in params):
            return None
        gamma, beta, mean, var = [p.astype("float64") for p in params]
        if not bool(_attr(call, "scale", True)):
            gamma = np.ones_like(gamma)
        if not bool(_attr(call, "center", True)):
            beta = np.zeros_like(beta)
        scale = gamma / np.sqrt(var + float(_attr(call, "epsilon", 1e-5)))
        dtype = params[0].dtype
        shape = (1, 1, 1, -1)
        y = self.builder_.emit(_op.multiply(self._last[key(x)], _expr.const(scale.astype(dtype).reshape(shape))))
        return _op.add(y, _expr.const((beta - mean * scale).astype(dtype).reshape(shape)))

    def _constant(self, e):
        """The numpy value of a constant (or of a var bound to one), else None."""
        while isinstance(e, _expr.Var) and key(e) in self._orig:
            e = self._orig[key(e)]
        return e.data.numpy() if isinstance(e, _expr.Constant) else None

    def _static_shape(self, e):
        values = getattr(e.struct_info, "shape_values", None)
        if values is None or not all(isinstance(d, tir.IntImm) for d in values):
            return None
        return [int(d) for d in values]

    def _channel_shuffle(self, call):
        """reshape(permute_dims(reshape(x, (N, a, b, H, W)), [0, 2, 1, 3, 4]), (N, C, H, W))
        with x converted: read in NCHW it would cost a transpose out of and back into NHWC.
        In NHWC it is the same channel shuffle: reshape to (N, H, W, a, b), swap the last two
        axes, reshape to (N, H, W, C). None when `call` is not that pattern."""
        perm_var = call.args[0]
        perm = self._orig.get(key(perm_var)) if isinstance(perm_var, _expr.Var) else None
        if _op_name(perm) != "relax.permute_dims":
            return None
        axes = _attr(perm, "axes")
        split_var = perm.args[0]
        split = self._orig.get(key(split_var)) if isinstance(split_var, _expr.Var) else None
        if axes is None or [int(a) for a in axes] != [0, 2, 1, 3, 4] or _op_name(split) != "relax.reshape":
            return None
        x = split.args[0]
        if not (isinstance(x, _expr.Var) and key(x) in self._last):
            return None
        src, mid, out = self._static_shape(x), self._static_shape(split_var), self._static_shape(call)
        if src is None or mid is None or out is None or len(src) != 4 or len(mid) != 5:
            return None
        n, c, h, w = src
        if mid[0] != n or mid[1] * mid[2] != c or mid[3:] != [h, w] or out != src:
            return None
        grouped = self.builder_.emit(_op.reshape(self._last[key(x)], [n, h, w, mid[1], mid[2]]))
        swapped = self.builder_.emit(_op.permute_dims(grouped, [0, 1, 2, 4, 3]))
        return _op.reshape(swapped, [n, h, w, c])

    def _convert(self, call):
        """The call rewritten for operands in the desired layout, or None to keep it."""
        name = _op_name(call)
        args = list(call.args)
        if name == "relax.nn.conv2d":
            if (_rank(call) != 4 or _attr(call, "data_layout", "NCHW") != "NCHW"
                    or _attr(call, "out_layout", "NCHW") != "NCHW"
                    or not isinstance(args[1], _expr.Constant)):
                return None
            x = self._in_last(args[0], convert=True)
            if x is None:
                return None
            attrs = dict(call.attrs, data_layout=self._layout, out_layout=self._layout)
            return _expr.Call(call.op, [x, args[1]], attrs, list(call.sinfo_args))
        if _rank(call) != 4:
            return None
        if name == "relax.reshape":
            return self._channel_shuffle(call)
        if name in _UNARY:
            x = self._in_last(args[0])
            if x is None or not isinstance(args[0], _expr.Var):
                return None
            rest = [self.visit_expr(a) for a in args[1:]]
            return _expr.Call(call.op, [x] + rest, dict(call.attrs), list(call.sinfo_args))
        if name in _BINARY:
            if not any(isinstance(a, _expr.Var) and key(a) in self._last for a in args):
                return None
            new = [self._in_last(a, convert=True) for a in args]
            if any(a is None for a in new):
                return None
            return _expr.Call(call.op, new, dict(call.attrs), list(call.sinfo_args))
        if name in _POOLS:
            x = self._in_last(args[0])
            if x is None or _attr(call, "layout", "NCHW") != "NCHW" or _attr(call, "out_layout", "NCHW") != "NCHW":
                return None
            attrs = dict(call.attrs, layout=self._layout, out_layout=self._layout)
            return _expr.Call(call.op, [x], attrs, list(call.sinfo_args))
        if name == "relax.concat" and isinstance(args[0], _expr.Tuple):
            axis = int(_attr(call, "axis", 0))
            fields = list(args[0].fields)
            if axis not in (1, -3) or not any(isinstance(f, _expr.Var) and key(f) in self._last for f in fields):
                return None
            new = [self._in_last(f, convert=True) for f in fields]
            if any(f is None for f in new):
                return None
            return _expr.Call(call.op, [_expr.Tuple(new)], dict(call.attrs, axis=3), list(call.sinfo_args))
        return None


def ConvertLayout(desired_layouts):  # noqa: N802 (TVM's naming of passes)
    """TVM's relax.transform.ConvertLayout: `desired_layouts` maps an operator name to
    [data layout, kernel layout]; relax.nn.conv2d with "NHWC" is what this pass converts
    (kernel layout "default": kept as it is). Other requests raise ValueError."""
    from ..expr_functor import module_pass

    layouts = dict(desired_layouts)
    unknown = sorted(set(layouts) - {"relax.nn.conv2d"})
    if unknown:
        raise ValueError("ConvertLayout: only relax.nn.conv2d can be converted, not %s" % ", ".join(unknown))
    want = list(layouts.get("relax.nn.conv2d", ["NCHW", "default"]))
    if want[0] not in ("NHWC", "NCHW") or (len(want) > 1 and want[1] != "default"):
        raise ValueError("ConvertLayout: relax.nn.conv2d converts to ['NHWC', 'default'], not %s" % want)
    if want[0] == "NCHW":
        from ...ir.transform import ModulePass, PassInfo

        return ModulePass(lambda mod, ctx: mod, PassInfo(0, "relax.ConvertLayout"))
    return module_pass(lambda mod: _Converter(mod, want[0]), "relax.ConvertLayout")
