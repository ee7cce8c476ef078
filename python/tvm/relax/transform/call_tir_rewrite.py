"""CallTIRRewrite (TVM's pass): each call_tir / call_dps_packed becomes explicit
destination-passing style:

    lv = R.call_tir(f, (x, w), out_sinfo=R.Tensor((n, 4), "float32"))
  ->
    alloc = R.builtin.alloc_tensor(R.shape([n, 4]), R.dtype("float32"), R.prim_value(0))
    _ = f(x, w, alloc)                   # the kernel writes its outputs, returns nothing
    lv = alloc                           # (a tuple of the allocations for several outputs)

so memory planning sees every allocation as a binding of its own. A call_tir with a third
argument (the symbolic values a kernel takes as scalars, TVM's tir_vars) passes those values
after the outputs."""

from .. import expr as _expr
from ..expr_functor import ExprMutator, module_pass
from ..op import builtin
from .lowering_common import op_name, void_sinfo

DPS_OPS = ("relax.call_tir", "relax.call_dps_packed")


class _CallTIRRewrite(ExprMutator):
    def visit_var_binding_(self, b):
        value = self.visit_expr(b.value)
        if op_name(value) not in DPS_OPS:
            self.emit_binding(b, value)
            return
        bb = self.builder_
        callee, args = value.args[0], list(value.args[1].fields)
        out = value.sinfo_args[0]
        outs = list(out.fields) if isinstance(out, _expr.TupleStructInfo) else [out]
        allocs = [bb.emit(builtin.alloc_tensor(_expr.ShapeExpr(list(o.shape)), str(o.dtype), 0),
                          bb._name("alloc")) for o in outs]
        extra = []
        if len(value.args) > 2:
            extra = [_expr.PrimValue(d) for d in value.args[2].values]
        bb.emit(_expr.Call(callee, args + allocs + extra, None, [void_sinfo()]), bb._name("_"))
        self.emit_binding(b, allocs[0] if len(allocs) == 1 and
                          not isinstance(out, _expr.TupleStructInfo) else _expr.Tuple(allocs))


def CallTIRRewrite():  # noqa: N802 - TVM's pass name
    return module_pass(_CallTIRRewrite, "relax.CallTIRRewrite")
