"""FuseTIR: each primitive Relax function made by FuseOps becomes ONE PrimFunc, and its
callers call that PrimFunc with call_tir. The merge itself is C++
(relax.transform.FusePrimFuncs, compiler/src/relax/transform/fuse_tir.cc): the group's
PrimFuncs are copied in call order into one function whose intermediate values are buffers
of its root block. Afterwards the primitive functions and the PrimFuncs only they called are
dropped. A group that cannot be merged (a callee with scalar parameters or not in block
form) is inlined back into its caller unfused, so FuseTIR never loses a computation.
"""

from ...ir import IRModule, _api
from .. import expr as _expr
from ..block_builder import BlockBuilder
from ..op import call_tir
from ..expr_functor import ExprMutator, ExprVisitor


def _tensor_infos(sinfo):
    if isinstance(sinfo, _expr.TupleStructInfo):
        return list(sinfo.fields)
    return [sinfo]


def _merge(name, prim, mod_funcs):
    """The PrimFunc computing primitive function `prim`, or None when it cannot be merged."""
    values, shapes, dtypes = {}, [], []

    def new_value(sinfo):
        if not isinstance(sinfo, _expr.TensorStructInfo) or not sinfo.shape_known:
            raise ValueError("not a tensor of known rank")
        shapes.append(list(sinfo.shape))
        dtypes.append(sinfo.dtype)
        return len(shapes) - 1

    try:
        for p in prim.params:
            values[p._h] = [new_value(p.struct_info)]
        funcs, calls = [], []
        body = prim.body
        for block in body.blocks:
            for b in block.bindings:
                v = b.value
                if isinstance(v, _expr.TupleGetItem) and v.tuple_value._h in values:
                    values[b.var._h] = [values[v.tuple_value._h][int(v.index)]]
                    continue
                if not (isinstance(v, _expr.Call) and isinstance(v.op, _expr.Op)
                        and str(v.op.name) == "relax.call_tir"):
                    return None
                callee = mod_funcs.get(str(v.args[0].name_hint))
                if callee is None or isinstance(callee, _expr.Function):
                    return None
                ins = []
                for a in v.args[1].fields:
                    if a._h not in values or len(values[a._h]) != 1:
                        return None
                    ins += values[a._h]
                outs = [new_value(s) for s in _tensor_infos(v.sinfo_args[0])]
                values[b.var._h] = outs
                funcs.append(callee)
                calls.append(ins + outs)
        result = body.body
        if not isinstance(result, _expr.Var) or result._h not in values:
            return None
        return _api("relax.transform.FusePrimFuncs")(funcs, calls, shapes, dtypes, len(prim.params),
                                                     values[result._h], name)
    except ValueError:
        return None


class _CallFused(ExprMutator):
    """Rebuilds the callers: a call of a merged group calls its PrimFunc with call_tir; a
    group that could not be merged is inlined back, its bindings emitted in place."""

    def __init__(self, mod, gvars, prims):
        super().__init__(mod)
        self.gvars, self.prims = gvars, prims
        self.tir_vars = {}

    def visit_var_binding_(self, b):
        v = b.value
        name = str(v.op.name_hint) if isinstance(v, _expr.Call) and isinstance(v.op, _expr.GlobalVar) else None
        if name in self.gvars:
            args = [self.visit_expr(a) for a in v.args]
            extra = self.tir_vars.get(name)
            self.emit_binding(b, call_tir(self.gvars[name], args, b.var.struct_info,
                                          tir_vars=_expr.ShapeExpr(extra) if extra else None))
        elif name in self.prims:
            self.inline(self.prims[name], [self.visit_expr(a) for a in v.args], b)
        else:
            super().visit_var_binding_(b)

    def inline(self, prim, args, binding):
        for p, a in zip(prim.params, args):
            self.var_remap_[p._h] = a
        for block in prim.body.blocks:
            for b in block.bindings:
                self.var_remap_[b.var._h] = self.builder_.emit(self.visit_expr(b.value), str(b.var.name_hint))
        self.emit_binding(binding, self.visit_expr(prim.body.body))


def _with_unbound_vars(func):
    """The merged kernel's buffers are declared on the caller's shapes; a variable that only
    appears inside computed extents (s + 3) is bound by no buffer, so it becomes a scalar
    parameter passed by the call (tir_vars), as call_te does for single kernels."""
    from ... import tir
    from ..shape_expr import prim_free_vars

    shapes = [list(b.shape) for b in dict(func.buffer_map).values()]
    bound = {d._h for sh in shapes for d in sh if isinstance(d, tir.Var)}
    free = {}
    for sh in shapes:
        for d in sh:
            if not isinstance(d, (tir.Var, tir.IntImm)):
                prim_free_vars(d, free)
    unbound = [v for v in free.values() if v._h not in bound]
    if not unbound:
        return func, []
    return tir.PrimFunc(list(func.params) + unbound, func.body, dict(func.buffer_map), dict(func.attrs)), unbound


def FuseTIR():  # noqa: N802 (TVM's name)
    from ...ir.transform import ModulePass, PassInfo

    def run(mod, ctx):
        mod_funcs = {str(k): f for k, f in mod.functions.items()}
        prims = {k: f for k, f in mod_funcs.items() if isinstance(f, _expr.Function) and "Primitive" in f.attrs}
        fused = {k: _merge(k, f, mod_funcs) for k, f in prims.items()}
        extra = {}
        for k, f in fused.items():
            if f is not None:
                fused[k], extra[k] = _with_unbound_vars(f)
        keep = {k: f for k, f in mod_funcs.items() if k not in prims}
        rw = _CallFused(IRModule(keep), {}, prims)
        rw.tir_vars = {k: v for k, v in extra.items() if v}
        rw.gvars = {k: rw.builder_.add_func(f, k) for k, f in fused.items() if f is not None}
        return _drop_unreferenced(rw.transform_module())
    return ModulePass(run, PassInfo(0, "relax.FuseTIR"))


class _GlobalRefs(ExprVisitor):
    def __init__(self):
        self.names = set()

    def visit_global_var_(self, g):
        self.names.add(str(g.name_hint))


def _drop_unreferenced(mod):
    """Drops the PrimFuncs that no Relax function calls any more (the group members), keeping
    every function that was in the module for other reasons."""
    refs = _GlobalRefs()
    funcs = {str(k): f for k, f in mod.functions.items()}
    for f in funcs.values():
        if isinstance(f, _expr.Function):
            refs.visit_expr(f)
    return IRModule({k: f for k, f in funcs.items()
                     if isinstance(f, _expr.Function) or k in refs.names or "op_pattern" not in f.attrs})
