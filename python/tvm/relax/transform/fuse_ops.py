"""FuseOps: call_tir bindings that should run as one kernel are grouped into a primitive
Relax function (attr "Primitive": 1) that the caller calls once; FuseTIR then merges each
group's PrimFuncs into one. Run after LegalizeOps and AnnotateTIROpPattern, as in TVM.

Grouping (per dataflow block, in binding order; patterns from the callees' "op_pattern"):
an elementwise or broadcast call joins the group that produced one of its arguments when
that value has no other use, is the group's latest member, and the group's anchor is
elementwise, broadcast, injective, a reduction or out-elementwise-fusable (matmul, conv): so
a matmul or conv takes its bias/normalization/activation epilogue, and elementwise chains
become one. Of several such groups, a matmul's / conv's / reduction's is taken, else the
latest. An injective call of one tensor (reshape, transpose) joins the same way a group
whose anchor is elementwise, broadcast or injective: data movement chains become one. A group holds at most MAX_GROUP calls and has one output (its last binding).
Calls of PrimFuncs without a pattern, and opaque ones (softmax, layer norm as one function),
stay alone.
"""

from ...ir import IRModule
from .. import expr as _expr
from ..analysis import use_counts
from ..block_builder import BlockBuilder, static_type
from ..expr_functor import ExprMutator, key as _key

MAX_GROUP = 8
_FUSABLE_ANCHORS = (0, 1, 2, 3, 4)  # elemwise, broadcast, injective, reduce, out-ewise-fusable
# An injective call joins only a group without a reduction: after a conv or matmul it would
# be a layout change of the tile's output, which the write-back cannot take.
_INJECTIVE_ANCHORS = (0, 1, 2)
# Of several groups an elementwise call could join, these anchors' are preferred: it becomes
# the write-back of a matmul's / conv's tile (or a reduction's epilogue).
_PREFERRED_ANCHORS = (3, 4)  # reduce, out-ewise-fusable


def _callee(mod_funcs, call):
    """The PrimFunc a call_tir binding value calls, or None."""
    if not (isinstance(call, _expr.Call) and isinstance(call.op, _expr.Op)
            and str(call.op.name) == "relax.call_tir"):
        return None
    return mod_funcs.get(str(call.args[0].name_hint))


def _pattern(mod_funcs, call):
    f = _callee(mod_funcs, call)
    if f is None or "op_pattern" not in f.attrs:
        return None
    if len(call.args) > 2:  # scalar arguments (tir_vars): left unfused, as they are
        return None
    return int(f.attrs["op_pattern"])


def _call_args(call):
    return list(call.args[1].fields)


def _groups(mod_funcs, block, counts):
    """Lists of binding indices; each group's last binding is its output."""
    groups, owner = [], {}
    for i, b in enumerate(block.bindings):
        p = _pattern(mod_funcs, b.value) if isinstance(b, _expr.VarBinding) else None
        joined = None
        # an injective call of one tensor (reshape, transpose, slice) joins a group of data
        # movement and elementwise work: a channel shuffle's reshape, transpose, reshape
        # become one gather instead of three copies
        anchors = _FUSABLE_ANCHORS if p in (0, 1) else _INJECTIVE_ANCHORS
        if p in (0, 1) or (p == 2 and len(_call_args(b.value)) == 1):
            cands = set()
            for a in _call_args(b.value):
                if isinstance(a, _expr.Var) and _key(a) in owner and counts.get(a, 0) == 1:
                    g = groups[owner[_key(a)]]
                    if g["anchor"] in anchors and len(g["members"]) < MAX_GROUP \
                            and block.bindings[g["members"][-1]].var.same_as(a):
                        cands.add(owner[_key(a)])
            if cands:
                # Several producers could take it (a mask add after an attention matmul,
                # whose mask comes from an elementwise group of its own): the matmul's or
                # conv's group, whose write-back it becomes, else the latest producer.
                joined = max(cands, key=lambda g: (groups[g]["anchor"] in _PREFERRED_ANCHORS,
                                                   groups[g]["members"][-1]))
        if joined is None:
            groups.append({"members": [i], "anchor": p})
            if p is not None:
                owner[_key(b.var)] = len(groups) - 1
        else:
            groups[joined]["members"].append(i)
            owner[_key(b.var)] = joined
    return [g["members"] for g in groups]


def _group_inputs(bindings):
    """(outside values, each binding's argument references): the values the group reads from
    outside (variables or constants) in first-use order, and per binding its arguments as
    ("p", parameter index) or ("b", index of the group's binding)."""
    inside = {_key(b.var): n for n, b in enumerate(bindings)}
    outside, pindex, refs = [], {}, []
    for b in bindings:
        row = []
        for a in _call_args(b.value):
            k = _key(a)
            if k in inside:
                row.append(("b", inside[k]))
                continue
            if k not in pindex:
                pindex[k] = len(outside)
                outside.append(a)
            row.append(("p", pindex[k]))
        refs.append(tuple(row))
    return outside, refs


def _group_key(bindings, outside, refs):
    """What makes two groups the same primitive function (the same callees wired the same
    way, on parameters and results of the same static types), or None (a symbolic shape, a
    call with attributes or several result types: not shared)."""
    params = [static_type(a.struct_info) for a in outside]
    if any(p is None for p in params):
        return None
    calls = []
    for b, row in zip(bindings, refs):
        v = b.value
        sinfo_args = list(v.sinfo_args)
        out = static_type(sinfo_args[0]) if len(sinfo_args) == 1 else None
        if out is None or (v.attrs is not None and len(dict(v.attrs))):
            return None
        calls.append((str(v.args[0].name_hint), row, out))
    return tuple(params), tuple(calls)


def _primitive_function(bindings, outside, refs):
    """The Relax function computing `bindings` (call_tir each) from parameters standing for
    `outside` (_group_inputs)."""
    params = [_expr.Var("p%d" % i, a.struct_info) for i, a in enumerate(outside)]
    fb = BlockBuilder()
    made = []
    with fb.function("fused", params):
        with fb.dataflow():
            for n, (b, row) in enumerate(zip(bindings, refs)):
                args = [params[i] if kind == "p" else made[i] for kind, i in row]
                value = _expr.Call(b.value.op, [b.value.args[0], _expr.Tuple(args)], dict(b.value.attrs),
                                   list(b.value.sinfo_args))
                emit = fb.emit_output if n == len(bindings) - 1 else fb.emit
                made.append(emit(value, str(b.var.name_hint)))
        body = fb.emit_func_output(made[-1]).body
    return _expr.Function(params, body, None, True, {"Primitive": 1})


class _Fuser(ExprMutator):
    """Rebuilds each function; in dataflow blocks, each group of two or more bindings becomes
    one call of a new primitive function."""

    def __init__(self, mod, mod_funcs):
        super().__init__(mod)
        self.mod_funcs = mod_funcs
        self.groups = {}  # _group_key -> the GlobalVar of its primitive function

    def enter_function(self, name, func):
        self.counts = use_counts(func)

    def visit_dataflow_block_(self, block):
        groups = _groups(self.mod_funcs, block, self.counts)
        last_of = {g[-1]: g for g in groups}
        in_group = {i for g in groups if len(g) > 1 for i in g}
        for i, b in enumerate(block.bindings):
            group = last_of.get(i)
            if group is not None and len(group) > 1:
                bindings = [block.bindings[j] for j in group]
                outside, refs = _group_inputs(bindings)
                # A repeated layer's group (BERT's six) calls the first one's function: one
                # primitive function, one FuseTIR merge, instead of one per layer.
                key = _group_key(bindings, outside, refs)
                gvar = self.groups.get(key) if key is not None else None
                if gvar is None:
                    prim = _primitive_function(bindings, outside, refs)
                    callees = [str(x.value.args[0].name_hint) for x in bindings]
                    gvar = self.builder_.add_func(prim, "fused_" + "_".join(callees[:4]))
                    if key is not None:
                        self.groups[key] = gvar
                args = [self.visit_expr(a) for a in outside]
                self.emit_binding(b, _expr.Call(gvar, args, None, [b.var.struct_info]))
            elif i not in in_group:
                self.visit_binding(b)


def FuseOps(fuse_opt_level=-1):  # noqa: N802 (TVM's name)
    """The pass (TVM's signature; fuse_opt_level 0 disables fusion)."""
    from ...ir.transform import ModulePass, PassContext, PassInfo

    def run(mod, ctx):
        level = fuse_opt_level if fuse_opt_level >= 0 else PassContext.current().opt_level
        if level == 0:
            return mod
        mod_funcs = {str(k): f for k, f in mod.functions.items()}
        fuser = _Fuser(mod, mod_funcs)
        for name, func in mod_funcs.items():
            if isinstance(func, _expr.Function) and "Primitive" not in func.attrs:
                fuser.var_remap_, fuser._bound = {}, {}
                fuser.visit_function(name, func)
        return fuser.builder_.get()
    return ModulePass(run, PassInfo(0, "relax.FuseOps"))
