"""StaticPlanBlockMemory (TVM's pass): intermediates whose lifetimes do not overlap share
storage.

Runs after CallTIRRewrite, on the R.builtin.alloc_tensor bindings. An allocation's lifetime
runs from its binding to the last binding that reads it through any alias (the variable, a
variable bound to it, a tuple holding it, an item of such a tuple). Allocations whose size is
static, or bounded through the function attribute `tir_var_upper_bound` (as in TVM; bounds by
arith.Analyzer's const_int_bound on the element count), are packed into storage tokens
greedily in program order: a new allocation takes the smallest free token that fits, else
grows the largest free one, else opens a new token; a token is free again after the last use
of its allocation. An allocation is bound before the kernel that writes it reads its inputs,
so a kernel never reads and writes the same memory. Allocations that escape (returned through
any alias, or passed to anything but a kernel's destination-passing call: an extern function
or another Relax function may keep or return a view) keep their own allocation, as do those
whose size is unknown; LowerAllocTensor lowers those.

Rewrite: one R.memory.alloc_storage per token at the function's entry (bytes, dtype uint8),
each planned allocation an R.memory.alloc_tensor at offset 0 of its token. A run-time size
over the bound is a ValueError from the VM ("does not fit"). The function gets the attribute
`static_memory_plan` (allocations, planned, storages, planned_bytes, unplanned_bytes), which
relax.build reports as VMExecutable.memory_stats.
"""

import tvm_ffi

from ... import tir
from ...arith import Analyzer, ConstIntBound
from .. import expr as _expr
from ..analysis import free_vars, function_bindings, function_result
from ..expr_functor import ExprMutator
from ..op import memory
from .lowering_common import is_void, op_name, relax_functions
from .vm_shape_lower import prim_free_vars, sinfo_dims

ATTR = "static_memory_plan"


def tensor_bytes(sinfo, analyzer):
    """Bytes of an allocation of TensorStructInfo `sinfo` (its upper bound), or None."""
    if not isinstance(sinfo, _expr.TensorStructInfo) or not sinfo.shape_known or str(sinfo.dtype) == "void":
        return None
    n = tir.const(1, "int64")
    for d in sinfo.shape:
        n = n * (d if str(d.dtype) == "int64" else tir.Cast("int64", d))
    hi = analyzer.const_int_bound(n).max_value
    if hi >= ConstIntBound.POS_INF:
        return None
    t = tvm_ffi.dtype(str(sinfo.dtype))
    return max(int(hi), 0) * ((t.bits * t.lanes + 7) // 8)


def _analyzer(func):
    """Symbolic variables bounded by `tir_var_upper_bound`, all of them non-negative."""
    a = Analyzer()
    if "tir_var_upper_bound" not in func.attrs:
        return a
    bounds = {str(k): int(v) for k, v in func.attrs["tir_var_upper_bound"].items()}
    seen = {}
    for v in _symbolic_vars(func):
        seen.setdefault(str(v.name), []).append(v)
    for name, ub in bounds.items():
        for v in seen.get(name, []):
            a.update(v, (0, ub))
    return a


def _symbolic_vars(func):
    """The symbolic variables of the parameters' and bindings' tensor shapes."""
    out = {}
    sinfos = [p.struct_info for p in func.params] + [b.var.struct_info for b in function_bindings(func)]
    for s in sinfos:
        for d in sinfo_dims(s):
            out.update(prim_free_vars(d, {}))
    return list(out.values())


class Plan:
    """token[alloc var] -> storage token; token_bytes[t]; stats."""

    def __init__(self):
        self.token, self.token_bytes = {}, []
        self.num_allocations, self.unplanned_bytes = 0, 0

    def stats(self):
        return {"allocations": self.num_allocations, "planned": len(self.token),
                "storages": len(self.token_bytes), "planned_bytes": sum(self.token_bytes),
                "unplanned_bytes": self.unplanned_bytes}


def _is_kernel_call(e, mod_funcs):
    """A destination-passing call made by CallTIRRewrite: a PrimFunc of the module, or an
    extern function called for its effect, which writes into its last arguments."""
    if not isinstance(e, _expr.Call) or not is_void(e.struct_info):
        return False
    if isinstance(e.op, _expr.GlobalVar):
        return isinstance(mod_funcs.get(str(e.op.name_hint)), tir.PrimFunc)
    return isinstance(e.op, _expr.ExternFunc)


def plan_function(func, mod_funcs):
    plan = Plan()
    analyzer = _analyzer(func)
    bindings = function_bindings(func)
    alias = {}       # var -> set of allocation vars it may reference
    fields = {}      # var -> per-field allocation sets (a tuple of allocations)
    last_use, escaped, size = {}, set(), {}
    # each field read is an FFI call and a new wrapper: every binding's var and value once
    bvars = []
    for i, b in enumerate(bindings):
        var, e = b.var, b.value
        bvars.append(var)
        used = set()
        for v in free_vars(e):
            used |= alias.get(v, set())
        for a in used:
            last_use[a] = i
        if op_name(e) == "relax.builtin.alloc_tensor":
            plan.num_allocations += 1
            last_use[var] = i
            size[var] = tensor_bytes(var.struct_info, analyzer)
            alias[var] = {var}
        elif isinstance(e, _expr.Tuple):
            alias[var] = used
            fields[var] = [set().union(*[alias.get(v, set()) for v in free_vars(f)]) for f in e.fields]
        elif isinstance(e, _expr.TupleGetItem) and isinstance(e.tuple_value, _expr.Var) and \
                e.tuple_value in fields:
            alias[var] = set(fields[e.tuple_value][int(e.index)])
        elif isinstance(e, (_expr.Var, _expr.TupleGetItem)):
            alias[var] = used
            if isinstance(e, _expr.Var) and e in fields:
                fields[var] = fields[e]
        elif not _is_kernel_call(e, mod_funcs):
            escaped |= used      # an extern / Relax call may keep or return what it is given
    for v in free_vars(function_result(func)):
        escaped |= alias.get(v, set())

    free = []
    for i, a in enumerate(bvars):
        if a in size and a not in escaped and size[a] is not None:
            nbytes = size[a]
            plan.unplanned_bytes += nbytes
            fits = [t for t in free if plan.token_bytes[t] >= nbytes]
            if fits:
                t = min(fits, key=lambda t: plan.token_bytes[t])
            elif free:
                t = max(free, key=lambda t: plan.token_bytes[t])
                plan.token_bytes[t] = nbytes
            else:
                t = len(plan.token_bytes)
                plan.token_bytes.append(nbytes)
            if t in free:
                free.remove(t)
            plan.token[a] = t
        for alloc, t in plan.token.items():
            if last_use[alloc] == i:
                free.append(t)
    return plan


class _Rewrite(ExprMutator):
    def __init__(self, mod):
        super().__init__(mod)
        self.mod_funcs = {str(k): f for k, f in mod.functions.items()}
        self.plan, self.storages = None, []

    def enter_function(self, name, func):
        self.plan = plan_function(func, self.mod_funcs)
        self.storages = [self.builder_.emit(memory.alloc_storage([n], 0, "global", "uint8"),
                                            self.builder_._name("storage"))
                         for n in self.plan.token_bytes]

    def visit_var_binding_(self, b):
        t = self.plan.token.get(b.var)
        if t is None:
            super().visit_var_binding_(b)
            return
        shape, dtype = b.value.args[0], b.value.args[1]
        self.emit_binding(b, memory.alloc_tensor(self.storages[t], 0, self.visit_expr(shape), dtype))


def StaticPlanBlockMemory():  # noqa: N802 - TVM's pass name
    from ...ir.transform import ModulePass, PassInfo

    def run(mod, ctx):
        rw = _Rewrite(mod)
        stats = {}
        for name, func in relax_functions(mod):
            if ATTR in func.attrs:
                continue        # planned already
            rw.var_remap_, rw._bound = {}, {}
            rw.visit_function(name, func)
            stats[name] = rw.plan.stats()
        out = rw.builder_.get()
        funcs = {str(k): f for k, f in out.functions.items()}
        for name, st in stats.items():
            funcs[name] = funcs[name].with_attr(ATTR, st)
        return type(out)(funcs)
    return ModulePass(run, PassInfo(0, "relax.StaticPlanBlockMemory"))
