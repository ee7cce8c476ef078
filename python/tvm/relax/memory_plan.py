"""Static memory planning of one Relax function (TVM's StaticPlanBlockMemory, done in the
lowering because call_tir outputs are allocated there).

Each output of a call_tir / call_dps_packed is an *allocation*. An allocation's lifetime runs
from its binding to the last binding that uses it through any alias (the variable itself,
another variable bound to it, a tuple holding it, a tuple_getitem of it, a match_cast of it).
Allocations whose sizes are static (or bounded by the function attribute
`tir_var_upper_bound`, as in TVM) are packed into *storage tokens* greedily in program order:
a new allocation takes the smallest free token that fits, else grows the largest free one,
else opens a new token; a token is freed after the last use of its allocation. The outputs of
one binding are placed before its inputs are freed, so a kernel never reads and writes the
same memory. Allocations that escape — returned (through any alias) or passed to anything but
call_tir (an extern or another Relax function may keep or return a view) — keep their own
dynamic allocation, as do those whose size is unknown.
"""

import tvm_ffi

from .. import tir
from ..tir import expr as _te
from . import expr as _expr
from .vm_shape_lower import _BINARY


class MemoryPlan:
    """token[(binding index, output index)] -> storage token; token_bytes[t]; token_dtype[t]."""

    def __init__(self):
        self.token = {}
        self.token_bytes = []
        self.token_dtype = []
        self.num_allocations = 0      # call_tir outputs in the function
        self.unplanned_bytes = 0      # what the static-size planned ones would take unshared

    def stats(self):
        return {"allocations": self.num_allocations, "planned": len(self.token),
                "storages": len(self.token_bytes), "planned_bytes": sum(self.token_bytes),
                "unplanned_bytes": self.unplanned_bytes}


def dps_outputs(e):
    """The output struct infos of a call_tir / call_dps_packed call, else None."""
    if isinstance(e, _expr.Call) and isinstance(e.op, _expr.Op) and \
            str(e.op.name) in ("relax.call_tir", "relax.call_dps_packed"):
        out = e.sinfo_args[0]
        return list(out.fields) if isinstance(out, _expr.TupleStructInfo) else [out]
    return None


def _upper_bound(d, bounds):
    """An upper bound of a non-negative dimension expression, or None."""
    if isinstance(d, _te.IntImm):
        return int(d.value)
    if isinstance(d, tir.Var):
        return bounds.get(str(d.name))
    if type(d) in _BINARY and _BINARY[type(d)] in ("+", "*", "max"):
        a, b = _upper_bound(d.a, bounds), _upper_bound(d.b, bounds)
        if a is None or b is None:
            return None
        return {"+": a + b, "*": a * b, "max": max(a, b)}[_BINARY[type(d)]]
    if type(d) in _BINARY and _BINARY[type(d)] in ("-", "//") and isinstance(d.b, _te.IntImm):
        a, c = _upper_bound(d.a, bounds), int(d.b.value)
        if a is None or (_BINARY[type(d)] == "//" and c <= 0) or (_BINARY[type(d)] == "-" and c < 0):
            return None
        return a - c if _BINARY[type(d)] == "-" else a // c
    return None


def tensor_bytes(sinfo, bounds):
    """Bytes of a tensor struct info (upper bound for symbolic dims), or None."""
    if not isinstance(sinfo, _expr.TensorStructInfo) or not sinfo.shape_known:
        return None
    n = 1
    for d in sinfo.shape:
        ub = _upper_bound(d, bounds)
        if ub is None:
            return None
        n *= max(ub, 0)
    dt = str(sinfo.dtype)
    if dt == "void":
        return None
    t = tvm_ffi.dtype(dt)
    return n * ((t.bits * t.lanes + 7) // 8)


def vars_in(e, out):
    """Relax Vars referenced by expression `e` (without looking into called functions)."""
    if isinstance(e, _expr.Var):
        out.append(e)
    elif isinstance(e, _expr.Tuple):
        for f in e.fields:
            vars_in(f, out)
    elif isinstance(e, _expr.TupleGetItem):
        vars_in(e.tuple_value, out)
    elif isinstance(e, _expr.Call):
        for a in e.args:
            vars_in(a, out)
    return out


def plan_function(func, enabled=True):
    """The MemoryPlan of a legalized Relax function (enabled=False: the analysis only, every
    allocation left dynamic, for the statistics of an unplanned build)."""
    plan = MemoryPlan()
    bounds = {}
    attrs = getattr(func, "attrs", None)
    if attrs is not None and "tir_var_upper_bound" in attrs:
        bounds = {str(k): int(v) for k, v in attrs["tir_var_upper_bound"].items()}
    body = func.body
    bindings = [bd for block in (body.blocks if isinstance(body, _expr.SeqExpr) else [])
                for bd in block.bindings]
    alias = {}       # var handle -> set of allocations it may reference
    fields = {}      # var handle -> per-field allocation sets (call_tir tuple results)
    last_use, escaped, size = {}, set(), {}
    for i, bd in enumerate(bindings):
        e = bd.value
        outs = dps_outputs(e)
        used = set()
        for v in vars_in(e if outs is None else e.args[1], []):
            used |= alias.get(v._h, set())
        for a in used:
            last_use[a] = i
        if outs is not None:
            mine = []
            for k, o in enumerate(outs):
                a = (i, k)
                plan.num_allocations += 1
                last_use[a] = i
                size[a] = (tensor_bytes(o, bounds), str(o.dtype))
                mine.append({a})
            alias[bd.var._h] = set().union(*mine)
            if isinstance(e.sinfo_args[0], _expr.TupleStructInfo):
                fields[bd.var._h] = mine
        elif isinstance(e, _expr.TupleGetItem) and isinstance(e.tuple_value, _expr.Var) and \
                e.tuple_value._h in fields:
            alias[bd.var._h] = set(fields[e.tuple_value._h][int(e.index)])
        elif isinstance(e, (_expr.Var, _expr.Tuple, _expr.TupleGetItem)):
            alias[bd.var._h] = used
            if isinstance(e, _expr.Var) and e._h in fields:
                fields[bd.var._h] = fields[e._h]
        else:
            escaped |= used      # an extern / Relax call may keep or return what it is given
    out = body.body if isinstance(body, _expr.SeqExpr) else body
    for v in vars_in(out, []):
        escaped |= alias.get(v._h, set())

    free = []        # free tokens
    for i, bd in enumerate(bindings):
        outs = dps_outputs(bd.value)
        for k in range(len(outs or [])):
            a = (i, k)
            nbytes, dtype = size[a]
            if a in escaped or nbytes is None:
                continue
            plan.unplanned_bytes += nbytes
            if not enabled:
                continue
            fits = [t for t in free if plan.token_bytes[t] >= nbytes]
            if fits:
                t = min(fits, key=lambda t: plan.token_bytes[t])
            elif free:
                t = max(free, key=lambda t: plan.token_bytes[t])
                plan.token_bytes[t] = nbytes
            else:
                t = len(plan.token_bytes)
                plan.token_bytes.append(nbytes)
                plan.token_dtype.append(dtype)
            if t in free:
                free.remove(t)
            plan.token[a] = t
        for a, t in plan.token.items():
            if last_use[a] == i:
                free.append(t)
    return plan
