"""FuseAndLegalizeOps: what TVM's LegalizeOps + FuseOps + FuseTIR give, in one pass: chains
of operators become ONE PrimFunc (one kernel) instead of one per operator.

Grouping (per dataflow block, in order; op patterns from the C++ registry, TVM's
OpPatternKind): an elementwise or broadcast operator joins the group that produced one of its
inputs when that value has no other use and the group's anchor is elementwise, broadcast,
injective, a reduction, or an "out-elementwise-fusable" kernel (matmul, conv); a group holds
at most MAX_GROUP operators. Each group of two or more is legalized by composing the TE of its
operators (each operator's registered legalization runs against a composer that returns TE
tensors instead of emitting calls) into one `te.create_prim_func`: its stages become blocks of
one function, and DefaultSchedule inlines the elementwise ones (compute_inline /
reverse_compute_inline into a matmul's write-back). A group whose legalization needs more than
call_te falls back to one kernel per operator.
"""

from ... import te
from ...ir import IRModule, _api
from .. import expr as _expr
from ..block_builder import BlockBuilder
from .legalize_ops import LEGALIZE, _key, emit_binding, legalize_function

MAX_GROUP = 8
_FUSABLE_ANCHORS = (0, 1, 2, 3, 4)  # elemwise, broadcast, injective, reduce, out-ewise-fusable


class _NotFusable(Exception):
    pass


class _TEResult:
    def __init__(self, tensor):
        self.tensor = tensor


class _Composer:
    """Stands in for the BlockBuilder while a group's operators are legalized."""

    def __init__(self, bb, env):
        self.bb = bb
        self.env = env  # relax expr key -> te.Tensor

    def normalize(self, e):
        return self.bb.normalize(e)

    def call_te(self, fn, *args, primfunc_name_hint=None, **kwargs):
        tensors = []
        for a in args:
            k = _key(a)
            if k not in self.env:
                raise _NotFusable()
            tensors.append(self.env[k])
        out = fn(*tensors, **kwargs)
        if isinstance(out, (list, tuple)):
            raise _NotFusable()
        return _TEResult(out)

    def __getattr__(self, name):
        raise _NotFusable()


def _pattern(call):
    if not (isinstance(call, _expr.Call) and isinstance(call.op, _expr.Op)):
        return None
    name = str(call.op.name)
    if name not in LEGALIZE:
        return None
    return int(_api("relax.OpPattern")(name))


def _use_counts(func):
    counts = {}

    def visit(e):
        if isinstance(e, _expr.Var):
            counts[_key(e)] = counts.get(_key(e), 0) + 1
        elif isinstance(e, _expr.Call):
            for a in e.args:
                visit(a)
        elif isinstance(e, _expr.Tuple):
            for f in e.fields:
                visit(f)
        elif isinstance(e, _expr.TupleGetItem):
            visit(e.tuple_value)
    body = func.body
    for block in body.blocks:
        for b in block.bindings:
            visit(b.value)
    visit(body.body)
    return counts


def _groups(block, counts):
    """Lists of binding indices; each group's last binding is its output."""
    groups, owner = [], {}
    for i, b in enumerate(block.bindings):
        p = _pattern(b.value)
        joined = None
        if p in (0, 1) and isinstance(b, _expr.VarBinding):
            cands = set()
            for a in b.value.args:
                if isinstance(a, _expr.Var) and _key(a) in owner and counts.get(_key(a), 0) == 1:
                    g = owner[_key(a)]
                    if groups[g]["anchor"] in _FUSABLE_ANCHORS and len(groups[g]["members"]) < MAX_GROUP \
                            and groups[g]["members"][-1] == _index_of(block, a):
                        cands.add(g)
            if len(cands) == 1:
                joined = cands.pop()
        if joined is None:
            groups.append({"members": [i], "anchor": p})
            if p is not None and isinstance(b, _expr.VarBinding):
                owner[_key(b.var)] = len(groups) - 1
        else:
            groups[joined]["members"].append(i)
            owner[_key(b.var)] = joined
    return [g["members"] for g in groups]


def _index_of(block, var):
    for i, b in enumerate(block.bindings):
        if b.var.same_as(var):
            return i
    return -1


def _emit_group(bb, rw, block, members, dataflow):
    """Emits one fused call_tir for the bindings `members`; False when it cannot."""
    bindings = [block.bindings[i] for i in members]
    inside = {_key(b.var) for b in bindings}
    env, placeholders, ext_args = {}, [], []
    try:
        for b in bindings:
            call = bb.normalize(_expr.Call(b.value.op, [rw.expr(a) if _key(a) not in inside else a
                                                        for a in b.value.args],
                                           dict(b.value.attrs), list(b.value.sinfo_args)))
            for a in call.args:
                k = _key(a)
                if k in env or k in inside:
                    continue
                s = bb.normalize(a).struct_info
                if not isinstance(s, _expr.TensorStructInfo) or not s.shape_known:
                    raise _NotFusable()
                ph = te.placeholder(list(s.shape), str(s.dtype), "arg%d" % len(placeholders))
                env[k] = ph
                placeholders.append(ph)
                ext_args.append(a)
            res = LEGALIZE[str(b.value.op.name)](_Composer(bb, env), call)
            if not isinstance(res, _TEResult):
                raise _NotFusable()
            env[_key(b.var)] = res.tensor
    except _NotFusable:
        return False
    out = env[_key(bindings[-1].var)]
    names = [str(b.value.op.name).split(".")[-1] for b in bindings]
    name = "fused_" + "_".join(names[:4])
    func = te.create_prim_func(placeholders + [out])
    gvar = bb.add_func(func.with_attr("global_symbol", name), name)
    bb.update_func(gvar, func.with_attr("global_symbol", str(gvar.name_hint)))
    from ...arith import Analyzer
    ana = Analyzer()
    sinfo = _expr.TensorStructInfo([ana.simplify(d) for d in out.shape], str(out.dtype))
    from ..op import call_tir
    emit_binding(bb, rw, bindings[-1], call_tir(gvar, ext_args, sinfo), dataflow)
    return True


def _fuse_function(bb, name, func):
    counts = _use_counts(func)

    def emit_block(bb, rw, block, dataflow):
        groups = _groups(block, counts) if dataflow else [[i] for i in range(len(block.bindings))]
        # A group is emitted at its last member (its inputs are all defined by then).
        last_of = {g[-1]: g for g in groups}
        in_group = {i for g in groups if len(g) > 1 for i in g}
        for i in range(len(block.bindings)):
            if i in last_of and len(last_of[i]) > 1 and _emit_group(bb, rw, block, last_of[i], dataflow):
                continue
            if i in in_group and i not in last_of:
                continue  # emitted with its group (or below, if the group fell back)
            for j in last_of.get(i, [i]):
                b = block.bindings[j]
                emit_binding(bb, rw, b, rw.legalize(b.value), dataflow)

    legalize_function(bb, name, func, emit_block)


def FuseAndLegalizeOps():  # noqa: N802 (TVM's naming of passes)
    from ...ir.transform import ModulePass, PassInfo

    def run(mod, ctx):
        bb = BlockBuilder(IRModule({k: f for k, f in mod.functions.items()
                                    if not isinstance(f, _expr.Function)}))
        for name, func in mod.functions.items():
            if isinstance(func, _expr.Function):
                _fuse_function(bb, str(name), func)
        return bb.get()
    return ModulePass(run, PassInfo(0, "relax.FuseAndLegalizeOps"))
