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
from .legalize_ops import emit_binding, legalize_function


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


def _inline(bb, rw, prim, args, binding, dataflow):
    """Emits the bindings of primitive function `prim` applied to `args` (unfused)."""
    for p, a in zip(prim.params, args):
        rw.vmap[p._h] = a
    blocks = list(prim.body.blocks)
    for block in blocks:
        for b in block.bindings:
            rw.vmap[b.var._h] = bb.emit(rw.expr(b.value), str(b.var.name_hint))
    emit_binding(bb, rw, binding, rw.expr(prim.body.body), dataflow)


def FuseTIR():  # noqa: N802 (TVM's name)
    from ...ir.transform import ModulePass, PassInfo

    def run(mod, ctx):
        mod_funcs = {str(k): f for k, f in mod.functions.items()}
        prims = {k: f for k, f in mod_funcs.items() if isinstance(f, _expr.Function) and "Primitive" in f.attrs}
        fused = {k: _merge(k, f, mod_funcs) for k, f in prims.items()}
        keep = {k: f for k, f in mod_funcs.items() if k not in prims}
        bb = BlockBuilder(IRModule({k: f for k, f in keep.items() if not isinstance(f, _expr.Function)}))
        gvars = {k: bb.add_func(f, k) for k, f in fused.items() if f is not None}

        def emit_block(bb, rw, block, dataflow):
            for b in block.bindings:
                v = b.value
                name = str(v.op.name_hint) if isinstance(v, _expr.Call) and isinstance(v.op, _expr.GlobalVar) else None
                if name in gvars:
                    args = [rw.expr(a) for a in v.args]
                    emit_binding(bb, rw, b, call_tir(gvars[name], args, b.var.struct_info), dataflow)
                elif name in prims:
                    _inline(bb, rw, prims[name], [rw.expr(a) for a in v.args], b, dataflow)
                else:
                    emit_binding(bb, rw, b, rw.expr(v), dataflow)

        for k, f in keep.items():
            if isinstance(f, _expr.Function):
                legalize_function(bb, k, f, emit_block)
        return _drop_unreferenced(bb.get())
    return ModulePass(run, PassInfo(0, "relax.FuseTIR"))


def _drop_unreferenced(mod):
    """Drops the PrimFuncs that no Relax function calls any more (the group members), keeping
    every function that was in the module for other reasons."""
    called = set()

    def visit(e):
        if isinstance(e, _expr.Call):
            if isinstance(e.op, _expr.GlobalVar):
                called.add(str(e.op.name_hint))
            for a in e.args:
                visit(a)
        elif isinstance(e, _expr.GlobalVar):
            called.add(str(e.name_hint))
        elif isinstance(e, _expr.Tuple):
            for f in e.fields:
                visit(f)

    funcs = {str(k): f for k, f in mod.functions.items()}
    for f in funcs.values():
        if isinstance(f, _expr.Function):
            for block in f.body.blocks:
                for b in block.bindings:
                    visit(b.value)
            visit(f.body.body)
    return IRModule({k: f for k, f in funcs.items()
                     if isinstance(f, _expr.Function) or k in called or "op_pattern" not in f.attrs})
