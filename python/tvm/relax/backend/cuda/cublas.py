"""Offloading matmuls to cuBLAS, with TVM's names: `partition_for_cublas(mod)` groups each
matmul chain that cuBLAS can run into a function with attrs "Composite": "cublas.<pattern>"
and "Codegen": "cublas"; `relax.transform.RunCodegen()` (also run by every default pipeline)
hands those to `relax.ext.cublas`, registered here, which rewrites each into
`call_dps_packed("tvm.contrib.cublas.matmul" | "tvm.contrib.cublas.batch_matmul",
[lhs, rhs, transa, transb])` followed by its epilogue. The packed functions are
libtvm_runtime_extra's (runtime_extra/src/cublas/): the compiled module calls them by name at
run time; without a GPU, a driver or libcublas.so.13 they raise LibraryNotAvailableError.

Patterns (TVM's names): matmul, matmul_bias, matmul_bias_relu, matmul_bias_gelu and the same
with "_transposed" (rhs is permute_dims of its last two axes: cuBLAS reads it transposed, no
copy). Accepted (lhs, rhs -> out) dtypes: float16 -> float16/float32, bfloat16 ->
bfloat16/float32, float32 -> float32, int8 -> int32 (row lengths multiples of 4). Shapes must
be static, lhs 2-D or 3-D, rhs 2-D or 3-D with its batch equal to lhs's or 1; a bias is a vector
of the output's last dimension. What TVM fuses into cuBLASLt epilogues (bias, relu, gelu) runs
here as the ordinary Relax ops after the call (compiled as kernels; cuBLASLt is not used).
"""

import tvm_ffi

from ... import expr as _expr
from ... import op as R
from ...analysis import use_counts
from ...block_builder import BlockBuilder
from ...expr_functor import ExprMutator, key as _key

# (lhs dtype, out dtype) pairs cuBLAS runs (lhs and rhs have the same dtype).
_DTYPES = {("float16", "float16"), ("float16", "float32"), ("bfloat16", "bfloat16"),
           ("bfloat16", "float32"), ("float32", "float32"), ("int8", "int32")}

PATTERNS = ["cublas." + p for p in (
    "matmul", "matmul_bias", "matmul_bias_relu", "matmul_bias_gelu", "matmul_transposed",
    "matmul_transposed_bias", "matmul_transposed_bias_relu", "matmul_transposed_bias_gelu")]


def _op_name(value):
    if isinstance(value, _expr.Call) and isinstance(value.op, _expr.Op):
        return str(value.op.name)
    return None


def _static_shape(sinfo):
    if not isinstance(sinfo, _expr.TensorStructInfo) or sinfo.shape is None:
        return None
    try:
        return [int(d) for d in sinfo.shape]
    except (TypeError, ValueError):
        return None  # a symbolic dimension


def _is_last_two_transpose(call, ndim):
    axes = call.attrs["axes"]
    if axes is None:
        return ndim == 2
    axes = [int(a) for a in axes]
    return axes == list(range(ndim - 2)) + [ndim - 1, ndim - 2]


class _Match:
    """One chain: [permute_dims], matmul, [add bias, [relu | gelu]] (binding indices)."""

    def __init__(self):
        self.members = []
        self.lhs = self.rhs = self.bias = None
        self.transposed = False
        self.activation = None

    @property
    def pattern(self):
        name = "cublas.matmul" + ("_transposed" if self.transposed else "")
        if self.bias is not None:
            name += "_bias" + ("_" + self.activation if self.activation else "")
        return name


def check_operands(lhs_sinfo, rhs_sinfo, out_dtype, transposed):
    """None when cuBLAS runs lhs @ op(rhs) (rhs as stored), else why not (a string)."""
    ls, rs = _static_shape(lhs_sinfo), _static_shape(rhs_sinfo)
    if ls is None or rs is None:
        return "shapes must be static"
    if lhs_sinfo.dtype != rhs_sinfo.dtype:
        return "lhs and rhs dtypes differ"
    if (str(lhs_sinfo.dtype), str(out_dtype)) not in _DTYPES:
        return "dtype %s -> %s is not one cuBLAS runs" % (lhs_sinfo.dtype, out_dtype)
    if len(ls) not in (2, 3) or len(rs) not in (2, 3):
        return "lhs and rhs must be 2-D or 3-D"
    if len(rs) == 3 and (len(ls) != 3 or rs[0] not in (1, ls[0])):
        return "rhs's batch must equal lhs's or be 1"
    k = ls[-1]
    rk = rs[-1] if transposed else rs[-2]
    if k != rk:
        return "reduction lengths differ"
    if str(lhs_sinfo.dtype) == "int8" and (ls[-1] % 4 or rs[-1] % 4):
        return "int8 needs row lengths that are multiples of 4"
    return None


class _Partitioner(ExprMutator):
    def __init__(self, mod):
        super().__init__(mod)
        self.made = 0

    def enter_function(self, name, func):
        self.counts = use_counts(func)

    def _single_use(self, var):
        return self.counts.get(var, 0) == 1

    def _matches(self, block):
        bindings = block.bindings
        index = {_key(b.var): i for i, b in enumerate(bindings)}
        user = {}  # var key -> index of the binding using it (single-use vars only)
        for i, b in enumerate(bindings):
            if isinstance(b.value, _expr.Call):
                for a in b.value.args:
                    if isinstance(a, _expr.Var):
                        user.setdefault(_key(a), i)
        taken, out = set(), []
        for i, b in enumerate(bindings):
            if i in taken or _op_name(b.value) != "relax.matmul" or isinstance(b, _expr.MatchCast):
                continue
            m = _Match()
            m.lhs, rhs = b.value.args
            m.rhs = rhs
            j = index.get(_key(rhs)) if isinstance(rhs, _expr.Var) else None
            if j is not None and j not in taken and _op_name(bindings[j].value) == "relax.permute_dims" \
                    and self._single_use(rhs):
                inner = bindings[j].value
                nd = len(_static_shape(rhs.struct_info) or [])
                if nd in (2, 3) and _is_last_two_transpose(inner, nd):
                    m.transposed, m.rhs = True, inner.args[0]
                    m.members.append(j)
            out_dtype = b.var.struct_info.dtype
            if check_operands(m.lhs.struct_info, m.rhs.struct_info, out_dtype, m.transposed):
                continue
            m.members.append(i)
            last = b.var
            n = _static_shape(b.var.struct_info)[-1]
            k = user.get(_key(last))
            if k is not None and self._single_use(last) and _op_name(bindings[k].value) == "relax.add":
                x, y = bindings[k].value.args
                bias = y if x.same_as(last) else x
                bs = _static_shape(bias.struct_info) if not bias.same_as(last) else None
                if bs == [n] and bias.struct_info.dtype == out_dtype:
                    m.bias = bias
                    m.members.append(k)
                    last = bindings[k].var
                    a = user.get(_key(last))
                    if a is not None and self._single_use(last) and \
                            _op_name(bindings[a].value) in ("relax.nn.relu", "relax.nn.gelu"):
                        m.activation = _op_name(bindings[a].value).rsplit(".", 1)[1]
                        m.members.append(a)
            taken.update(m.members)
            out.append(m)
        return out

    def visit_dataflow_block_(self, block):
        matches = self._matches(block)
        last_of = {max(m.members): m for m in matches}
        inside = {i for m in matches for i in m.members}
        for i, b in enumerate(block.bindings):
            m = last_of.get(i)
            if m is not None:
                func, args = self._composite(m, b.var.struct_info)
                gvar = self.builder_.add_func(func, "fused_relax_%s_cublas" % m.pattern.split(".")[1])
                self.made += 1
                self.emit_binding(b, _expr.Call(gvar, args, None, [b.var.struct_info]))
            elif i not in inside:
                self.visit_binding(b)

    def _composite(self, m, out_sinfo):
        outside = [m.lhs, m.rhs] + ([m.bias] if m.bias is not None else [])
        params = [_expr.Var(n, e.struct_info) for n, e in zip(("lhs", "rhs", "bias"), outside)]
        fb = BlockBuilder()
        with fb.function("composite", params):
            with fb.dataflow():
                rhs = params[1]
                if m.transposed:
                    nd = len(_static_shape(rhs.struct_info))
                    rhs = fb.emit(R.permute_dims(rhs, list(range(nd - 2)) + [nd - 1, nd - 2]))
                y = R.matmul(params[0], rhs, out_dtype=str(out_sinfo.dtype))
                if m.bias is not None:
                    y = R.add(fb.emit(y), params[2])
                if m.activation:
                    y = getattr(R.nn, m.activation)(fb.emit(y))
                gv = fb.emit_output(y)
            body = fb.emit_func_output(gv).body
        attrs = {"Composite": m.pattern, "Codegen": "cublas"}
        return _expr.Function(params, body, out_sinfo, True, attrs), [self.visit_expr(e) for e in outside]


def partition_for_cublas(mod, bind_constants=False):
    """TVM's entry point: every matmul chain cuBLAS can run becomes a call of a function marked
    {"Composite": "cublas.<pattern>", "Codegen": "cublas"}. `bind_constants` is accepted for
    TVM's signature (constants stay arguments here)."""
    del bind_constants
    part = _Partitioner(mod)
    for name, func in list(mod.functions.items()):
        if isinstance(func, _expr.Function) and "Codegen" not in (func.attrs or {}):
            part.var_remap_, part._bound = {}, {}
            part.visit_function(str(name), func)
    return part.builder_.get()


def _lower(func, options):  # noqa: ARG001 - TVM's codegen signature (function, options)
    """relax.ext.cublas: the composite function as the packed call plus its epilogue."""
    pattern = str(func.attrs["Composite"])
    transposed = "_transposed" in pattern
    lhs, rhs = func.params[0], func.params[1]
    ls, rs = _static_shape(lhs.struct_info), _static_shape(rhs.struct_info)
    out_dtype = str(func.ret_struct_info.dtype)
    fb = BlockBuilder()
    params = [_expr.Var(str(p.name_hint), p.struct_info) for p in func.params]
    with fb.function("cublas", params):
        with fb.dataflow():
            a, b = params[0], params[1]
            batched = len(ls) == 3
            if batched and len(rs) == 2:
                b = fb.emit(R.reshape(b, [1] + rs))  # batch 1: broadcast by stride 0
            m = ls[-2]
            n = rs[-2] if transposed else rs[-1]
            shape = [ls[0], m, n] if batched else [m, n]
            y = R.call_dps_packed(
                "tvm.contrib.cublas." + ("batch_matmul" if batched else "matmul"),
                [a, b, _expr.PrimValue(False), _expr.PrimValue(bool(transposed))],
                _expr.TensorStructInfo(shape, out_dtype))
            if "_bias" in pattern:
                y = R.add(fb.emit(y), params[2])
            if pattern.endswith("_relu"):
                y = R.nn.relu(fb.emit(y))
            elif pattern.endswith("_gelu"):
                y = R.nn.gelu(fb.emit(y))
            gv = fb.emit_output(y)
        body = fb.emit_func_output(gv).body
    return _expr.Function(params, body, func.ret_struct_info, True, {})


tvm_ffi.register_global_func("relax.ext.cublas", _lower, override=True)

__all__ = ["PATTERNS", "check_operands", "partition_for_cublas"]
