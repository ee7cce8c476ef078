"""The shape heap of one Relax function (TVM's VMShapeLower design).

Every symbolic variable and every computed dimension (e.g. (h - 3) // 2 + 1, n - 1, b * t)
that the function mentions gets a slot in an int64 tensor made at entry by
vm.builtin.alloc_shape_heap. vm.builtin.match_shape stores variables into their slots when it
first reads them from an input and checks later uses against the slot; computed dimensions are
filled by a generated TIR shape function (a PrimFunc compiled with the kernels, reading and
writing the heap) as soon as all their variables are known; vm.builtin.make_shape builds
output shapes from slots. Compiling the arithmetic with the kernels keeps the VM free of an
expression interpreter and gives TIR's exact floordiv/floormod semantics.
"""

from .. import tir
from ..tir import expr as _te
from . import expr as _expr

# Codes of vm.builtin.match_shape / make_shape (runtime/src/vm/shape_heap.h, TVM's values).
NO_OP, ASSERT_IMM, STORE, ASSERT_LOAD = 0, 1, 2, 3
USE_IMM, LOAD = 0, 1

_BINARY = {_te.Add: "+", _te.Sub: "-", _te.Mul: "*", _te.FloorDiv: "//", _te.FloorMod: "%",
           _te.Div: "/", _te.Mod: "mod", _te.Min: "min", _te.Max: "max"}
_DIVISIONS = (_te.FloorDiv, _te.FloorMod, _te.Div, _te.Mod)


def expr_key(e):
    """A hashable structural key of an integer PrimExpr (variables by identity)."""
    if isinstance(e, _te.IntImm):
        return ("imm", int(e.value))
    if isinstance(e, tir.Var):
        return ("var", e._h)
    if type(e) in _BINARY:
        return (_BINARY[type(e)], expr_key(e.a), expr_key(e.b))
    if isinstance(e, _te.Cast):
        return ("cast", str(e.dtype), expr_key(e.value))
    raise NotImplementedError("relax.build: shape expression %s (%s) is not supported"
                              % (e, type(e).__name__))


def free_vars(e, out):
    """Collects the variables of `e` into the dict `out` (key -> Var)."""
    if isinstance(e, tir.Var):
        out[expr_key(e)] = e
    elif type(e) in _BINARY:
        free_vars(e.a, out)
        free_vars(e.b, out)
    elif isinstance(e, _te.Cast):
        free_vars(e.value, out)
    return out


def sinfo_dims(sinfo):
    """Every dimension PrimExpr in a struct info (tensors, shapes, tuples)."""
    if isinstance(sinfo, _expr.TensorStructInfo):
        return list(sinfo.shape) if sinfo.shape_known else []
    if isinstance(sinfo, _expr.TupleStructInfo):
        return [d for f in sinfo.fields for d in sinfo_dims(f)]
    if isinstance(sinfo, _expr.ShapeStructInfo) and getattr(sinfo, "values", None) is not None:
        return list(sinfo.values)
    return []


def _call_dims(e):
    dims = []
    if isinstance(e, _expr.Call):
        for s in e.sinfo_args:
            dims += sinfo_dims(s)
        for a in e.args:
            dims += _call_dims(a)
    elif isinstance(e, _expr.Tuple):
        for f in e.fields:
            dims += _call_dims(f)
    elif isinstance(e, _expr.ShapeExpr):
        dims += list(e.values)
    elif isinstance(e, _expr.PrimValue) and not isinstance(e.value, (_te.IntImm, _te.FloatImm)):
        dims.append(e.value)
    return dims


class ShapeHeap:
    """Slot assignment for one function plus the codegen state of which slots are filled."""

    def __init__(self, name, func):
        self.name = name
        self.slots = {}       # expr key -> slot
        self.computed = {}    # expr key -> PrimExpr (non-variable dimensions)
        self.deps = {}        # expr key -> {var key}
        self.known = set()    # keys whose slot is filled at this point of the code
        self.num_funcs = 0
        dims = []
        for p in func.params:
            dims += sinfo_dims(p.struct_info)
        body = func.body
        for block in (body.blocks if isinstance(body, _expr.SeqExpr) else []):
            for bd in block.bindings:
                dims += sinfo_dims(bd.var.struct_info) + _call_dims(bd.value)
        for d in dims:
            self._add(d)

    def _add(self, d):
        if isinstance(d, _te.IntImm):
            return
        k = expr_key(d)
        if k in self.slots:
            return
        if not isinstance(d, tir.Var):
            fv = free_vars(d, {})
            for v in fv.values():
                self._add(v)
            self.computed[k] = d
            self.deps[k] = set(fv)
        self.slots[k] = len(self.slots)

    @property
    def size(self):
        return len(self.slots)

    def ready(self):
        """Computed dimensions whose variables are all known but that are not filled yet."""
        return [k for k in self.computed if k not in self.known and self.deps[k] <= self.known]

    def shape_func(self, keys):
        """A PrimFunc filling the slots of `keys` from the variables' slots; its name."""
        heap = tir.decl_buffer((max(self.size, 1),), "int64", name="heap")
        stores = [tir.BufferStore(heap, _as_int64(self.computed[k]), [self.slots[k]]) for k in keys]
        body = stores[0] if len(stores) == 1 else tir.SeqStmt(stores)
        # A zero divisor would trap in compiled code: assert it away (a ValueError at run time).
        for k in keys:
            for div in _divisors(self.computed[k]):
                body = tir.AssertStmt(div != 0, "ValueError", "%s: a symbolic dimension divides "
                                      "by zero (%s)" % (self.name, self.computed[k]), body)
        needed = {}
        for k in keys:
            needed.update({vk: v for vk, v in free_vars(self.computed[k], {}).items()})
        for vk, v in needed.items():
            load = tir.BufferLoad(heap, [self.slots[vk]])
            body = tir.LetStmt(v, load if str(v.dtype) == "int64" else tir.Cast(str(v.dtype), load), body)
        name = "__vm_shape_func_%s_%d" % (self.name, self.num_funcs)
        self.num_funcs += 1
        self.known.update(keys)
        return name, tir.PrimFunc([heap], body).with_attr("global_symbol", name)


def _as_int64(e):
    return e if str(e.dtype) == "int64" else tir.Cast("int64", e)


def _divisors(e):
    if isinstance(e, _DIVISIONS) and not isinstance(e.b, _te.IntImm):
        yield e.b
    if type(e) in _BINARY:
        yield from _divisors(e.a)
        yield from _divisors(e.b)
    elif isinstance(e, _te.Cast):
        yield from _divisors(e.value)
