"""LegalizeOps: every operator call becomes a call_tir of a PrimFunc made from its TE
definition (tvm.topi), added to the module. Operators keep their C++ inference; the
legalization of each is registered here by name (TVM's FLegalize)."""

from ... import topi
from ...topi import matmul_packed
from .. import expr as _expr
from ..expr_functor import ExprMutator
from .legalize_f16 import in_float32

LEGALIZE = {}


def register_legalize(op_name, fn=None):
    """Registers `fn(bb, call) -> Expr` as the legalization of `op_name` (decorator too)."""
    def reg(f):
        LEGALIZE[op_name] = f
        return f
    return reg(fn) if fn is not None else reg


def _attr(call, key, default=None):
    attrs = call.attrs
    return attrs[key] if key in attrs and attrs[key] is not None else default


def _te(fn, name=None, **kw):
    def legalize(bb, call):
        return bb.call_te(fn, *call.args, primfunc_name_hint=name or fn.__name__, **kw)
    return legalize


for _name in ("exp", "log", "sqrt", "rsqrt", "tanh", "sigmoid", "erf", "sin", "cos", "floor", "ceil",
              "round", "abs", "negative", "square", "reciprocal", "sign", "logical_not", "tan", "asin", "acos",
              "atan", "sinh", "cosh", "trunc", "bitwise_not"):
    register_legalize("relax." + _name, _te(getattr(topi, _name)))
for _name in ("add", "subtract", "multiply", "divide", "power", "maximum", "minimum", "floor_divide",
              "floor_mod", "equal", "not_equal", "less", "less_equal", "greater", "greater_equal",
              "logical_and", "logical_or", "bitwise_and", "bitwise_or", "bitwise_xor", "left_shift",
              "right_shift"):
    register_legalize("relax." + _name, _te(getattr(topi, _name)))
register_legalize("relax.where", _te(topi.where))
register_legalize("relax.nn.relu", _te(topi.relu))
register_legalize("relax.nn.gelu", _te(topi.gelu))
register_legalize("relax.nn.gelu_tanh", _te(topi.gelu_tanh))
register_legalize("relax.nn.silu", _te(topi.silu))
register_legalize("relax.flatten", _te(topi.flatten))


@register_legalize("relax.nn.leakyrelu")
def _leaky(bb, call):
    return bb.call_te(topi.leaky_relu, call.args[0], alpha=float(_attr(call, "alpha", 0.01)))


@register_legalize("relax.clip")
def _clip(bb, call):
    return bb.call_te(topi.clip, call.args[0], a_min=float(_attr(call, "min")), a_max=float(_attr(call, "max")))


@register_legalize("relax.astype")
def _astype(bb, call):
    return bb.call_te(topi.astype, call.args[0], dtype=str(_attr(call, "dtype")))


@register_legalize("relax.matmul")
def _matmul(bb, call):
    od = _attr(call, "out_dtype")
    res = str(call.struct_info.dtype)
    packed = _packed_weight(call)
    if packed is not None:
        n = int(call.args[1].struct_info.shape[1].value)
        n_out = n if n != int(packed.data.shape[0]) * int(packed.data.shape[2]) else None
        return bb.call_te(in_float32(matmul_packed.matmul_packed, res), call.args[0], packed,
                          out_dtype=None if od is None else str(od), pad_rows_to=_rows_tile(call),
                          n_out=n_out, primfunc_name_hint="matmul")
    cols = _run_time_pack_cols(call)
    if cols is not None:
        return bb.call_te(in_float32(_packed_at_run_time, res), call.args[0], call.args[1],
                          out_dtype=None if od is None else str(od), cols=cols, pad_rows_to=_rows_tile(call),
                          primfunc_name_hint="matmul")
    return bb.call_te(in_float32(topi.matmul, res), call.args[0], call.args[1],
                      out_dtype=None if od is None else str(od))


def _packed_at_run_time(a, b, out_dtype=None, cols=16, pad_rows_to=None):
    """a @ b with b packed into `cols`-wide panels inside the kernel (a module-level function,
    so call_te reuses the kernel of an equal earlier call: BERT's 12 attention products)."""
    return matmul_packed.matmul_packed(a, matmul_packed.pack_stage(b, cols), out_dtype=out_dtype,
                                       pad_rows_to=pad_rows_to)


_PACKED = ("float32", "int8", "uint8")

# Rows from which a product with a run-time right operand packs it first (a copy of K x N
# floats against M x K x N multiply-adds: at 16 rows it costs a few percent). Fewer rows
# (a matrix-vector product) read the operand as it is.
_PACK_AT_RUN_TIME_MIN_ROWS = 16


def _run_time_pack_cols(call):
    """The panel width when the product's right operand is a 2-d float32 value known only at
    run time, with static shapes, at least _PACK_AT_RUN_TIME_MIN_ROWS rows and N a multiple of
    the register tile's columns: the kernel then packs it (matmul_packed.pack_stage) and runs
    the packed product. Unpacked, each step of the reduction reads its 16 columns from another
    row of B, N floats apart (1024^3: 39 GFLOP/s; packed: the constant-weight speed). None
    otherwise."""
    from ...target import Target
    from .default_schedule import tile_shape

    a, b = call.args[0].struct_info, call.args[1].struct_info
    target = Target.current()
    if target is not None and target.is_device:
        return None
    if isinstance(call.args[1], _expr.Constant) or b.ndim != 2 or a.ndim < 2:
        return None
    if str(a.dtype) != "float32" or str(b.dtype) != "float32" or not (a.shape_known and b.shape_known):
        return None
    dims = list(a.shape) + list(b.shape)
    if not all(hasattr(d, "value") for d in dims):
        return None
    m, n = int(a.shape[-2].value), int(b.shape[1].value)
    _, cols = tile_shape((target or Target("llvm")).fp32_lanes, m, n)
    if m < _PACK_AT_RUN_TIME_MIN_ROWS or n % cols:
        return None
    return cols


def _rows_tile(call):
    """What the product's rows are rounded up to (matmul_packed's pad_rows_to): the register
    tile's row count when the left operand is 2-d with a symbolic row count (a dynamic
    batch); for static rows, default_schedule.row_padding (a 6-row tile over 1026 rows rather
    than a 4-row one over 1024); else None."""
    from ...target import Target
    from .default_schedule import row_padding, tile_shape

    a = call.args[0].struct_info
    lanes = (Target.current() or Target("llvm")).fp32_lanes
    rows = a.shape[-2] if a.ndim >= 2 else None
    if rows is not None and hasattr(rows, "value"):
        return row_padding(lanes, int(rows.value))
    if a.ndim != 2:
        return None
    n = int(call.args[1].struct_info.shape[1].value)
    return tile_shape(lanes, None, n)[0]


def _packed_weight(call):
    """A constant 2-d float32 / int8 / uint8 right operand, packed (N / cols, K, cols) for the CPU register
    tile DefaultSchedule will give the product (same tile_shape, same target), so the tile
    streams its weights contiguously; None when it does not apply (GPU targets, other
    dtypes)."""
    from ...target import Target
    from .default_schedule import tile_shape

    b, a_sinfo = call.args[1], call.args[0].struct_info
    target = Target.current()
    if target is not None and target.is_device:
        return None
    # float32, or 8-bit integers (the quantized operators' int8 x int8 -> int32 products)
    if not isinstance(b, _expr.Constant) or b.struct_info.ndim != 2 or str(b.struct_info.dtype) not in _PACKED \
            or str(a_sinfo.dtype) != str(b.struct_info.dtype) or a_sinfo.ndim < 2 or not a_sinfo.shape_known:
        return None
    m = a_sinfo.shape[-2]
    ext_i = int(m.value) if hasattr(m, "value") else None
    n = int(b.struct_info.shape[1].value)
    # N not a multiple of 16 (a classifier's 10 or 1000 outputs) is padded with zero columns
    # to whole panels: a tile predicated on its columns is not vectorized (10 outputs of
    # the MLP: 4 GFLOP/s). The tile is chosen for the padded extent, as DefaultSchedule will.
    _, cols = tile_shape((target or Target("llvm")).fp32_lanes, ext_i, -(-n // 16) * 16)
    return _expr.const(matmul_packed.pack_weight(b.data, cols))


@register_legalize("relax.tensor_to_shape")
def _tensor_to_shape(bb, call):
    # not a kernel: the VM builtin reads the tensor's values into a Shape (as TVM lowers it)
    return _expr.Call(_expr.ExternFunc("vm.builtin.tensor_to_shape"), [call.args[0]], None,
                      [call.struct_info])


@register_legalize("relax.shape_to_tensor")
def _shape_to_tensor(bb, call):
    return _expr.Call(_expr.ExternFunc("vm.builtin.shape_to_tensor"), [call.args[0]], None,
                      [call.struct_info])


@register_legalize("relax.reshape")
def _reshape(bb, call):
    out = call.struct_info
    return bb.call_te(topi.reshape, call.args[0], newshape=list(out.shape))


@register_legalize("relax.permute_dims")
def _permute(bb, call):
    axes = _attr(call, "axes")
    return bb.call_te(topi.transpose, call.args[0], axes=None if axes is None else [int(a) for a in axes])


@register_legalize("relax.expand_dims")
def _expand_dims(bb, call):
    axis = _attr(call, "axis")
    axis = int(axis) if isinstance(axis, int) else [int(a) for a in axis]
    nd = len(call.struct_info.shape)
    axes = [axis] if isinstance(axis, int) else axis
    return bb.call_te(topi.expand_dims, call.args[0], axis=[a % nd for a in axes])


@register_legalize("relax.squeeze")
def _squeeze(bb, call):
    axis = _attr(call, "axis")
    if axis is not None and not isinstance(axis, int):
        axis = [int(a) for a in axis]
    return bb.call_te(topi.squeeze, call.args[0], axis=axis)


@register_legalize("relax.concat")
def _concat(bb, call):
    fields = call.args[0]
    if isinstance(fields, _expr.Tuple):
        items = list(fields.fields)
    else:
        items = [_expr.TupleGetItem(fields, i) for i in range(len(fields.struct_info.fields))]
    axis = int(_attr(call, "axis", 0))
    return bb.call_te(lambda *ts: topi.concatenate(ts, axis), *items, primfunc_name_hint="concatenate")


def _reduce_legalize(name):
    def legalize(bb, call):
        axis = _attr(call, "axis")
        if axis is not None and not isinstance(axis, int):
            axis = [int(a) for a in axis]
        fn = getattr(topi, name)
        # max/min are exact in half precision; sum, mean and prod accumulate
        fn = fn if name in ("max", "min") else in_float32(fn)
        return bb.call_te(fn, call.args[0], axis=axis,
                          keepdims=bool(_attr(call, "keepdims", False)), primfunc_name_hint=name)
    return legalize


for _name in ("sum", "mean", "max", "min", "prod"):
    register_legalize("relax." + _name, _reduce_legalize(_name))


@register_legalize("relax.nn.softmax")
def _softmax(bb, call):
    return bb.call_te(in_float32(topi.softmax), call.args[0], axis=int(_attr(call, "axis", -1)))


@register_legalize("relax.nn.log_softmax")
def _log_softmax(bb, call):
    return bb.call_te(in_float32(topi.log_softmax), call.args[0], axis=int(_attr(call, "axis", -1)))


@register_legalize("relax.nn.layer_norm")
def _layer_norm(bb, call):
    axes = [int(a) for a in _attr(call, "axes", [-1])]
    return bb.call_te(in_float32(topi.layer_norm), *call.args, axes=axes, epsilon=float(_attr(call, "epsilon", 1e-5)))


del _name


class Legalizer(ExprMutator):
    """Rebuilds each function binding by binding; every operator call becomes the call_tir its
    legalization makes (call_tir and call_dps_packed are left as they are)."""

    def visit_call_(self, e):
        call = super().visit_call_(e)          # nested operator calls are legalized first
        if not isinstance(call, _expr.Call) or not isinstance(call.op, _expr.Op):
            return call
        name = str(call.op.name)
        if name in ("relax.call_tir", "relax.call_dps_packed"):
            return call
        fn = LEGALIZE.get(name)
        if fn is None:
            raise NotImplementedError("LegalizeOps: no legalization for %s" % name)
        # a nested call (R.add(x, R.zeros(...)), composites such as R.linear) is bound first,
        # as TVM's normalization to ANF would
        args = [self.builder_.emit(a) if isinstance(a, _expr.Call) else a for a in call.args]
        if any(not a.same_as(b) for a, b in zip(args, call.args)):
            call = _expr.Call(call.op, args, dict(call.attrs), list(call.sinfo_args))
        return fn(self.builder_, self.builder_.normalize(call))


def LegalizeOps():  # noqa: N802 (TVM's name)
    """The pass: every Relax function's operator calls become call_tir of PrimFuncs."""
    from ...ir.transform import ModulePass, PassInfo

    def run(mod, ctx):
        return Legalizer(mod).transform_module()
    return ModulePass(run, PassInfo(0, "relax.LegalizeOps"))
