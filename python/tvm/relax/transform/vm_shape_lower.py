"""VMShapeLower (TVM's pass): symbolic shapes become explicit run-time work in the IR.

Every symbolic variable and every computed dimension (e.g. (h - 3) // 2 + 1, n - 1, b * t)
that a function mentions gets a slot in an int64 "shape heap" made at entry
(vm.builtin.alloc_shape_heap). Parameters and match_cast values are checked against their
struct info (vm.builtin.check_tensor_info / check_shape_info) and their dimensions matched
(vm.builtin.match_shape: the first use of a variable stores it in its slot, later uses and
computed dimensions are checked against the slot); computed dimensions are filled by a
generated TIR shape function (a PrimFunc added to the module, compiled with the kernels,
reading and writing the heap) as soon as all their variables are known; shapes and
prim values with symbolic parts are built from slots (vm.builtin.make_shape). After the pass
a function has no MatchCast bindings left. Compiling the arithmetic with the kernels keeps the
VM free of an expression interpreter and gives TIR's exact floordiv/floormod semantics.
"""

from ... import tir
from ...tir import expr as _te
from .. import expr as _expr
from ..expr_functor import ExprMutator, ExprVisitor
from ..op import call_builtin_with_ctx, call_packed, null_value
from ..shape_expr import _BINARY, _DIVISIONS, _children, expr_key, prim_free_vars  # noqa: F401
from .lowering_common import relax_functions, void_sinfo

# Codes of vm.builtin.match_shape / make_shape (runtime/src/vm/shape_heap.h, TVM's values).
NO_OP, ASSERT_IMM, STORE, ASSERT_LOAD = 0, 1, 2, 3
USE_IMM, LOAD = 0, 1

def sinfo_dims(sinfo):
    """Every dimension PrimExpr in a struct info (tensors, shapes, tuples)."""
    if isinstance(sinfo, _expr.TensorStructInfo):
        return list(sinfo.shape) if sinfo.shape_known else []
    if isinstance(sinfo, _expr.TupleStructInfo):
        return [d for f in sinfo.fields for d in sinfo_dims(f)]
    if isinstance(sinfo, _expr.ShapeStructInfo) and getattr(sinfo, "values", None) is not None:
        return list(sinfo.values)
    return []


class _Dims(ExprVisitor):
    """Every dimension a function mentions, in order: its parameters' and bindings' struct
    info, the struct info calls declare, shapes and symbolic prim values in its expressions."""

    def __init__(self):
        self.dims = []

    def visit_var_def(self, v):
        self.dims += sinfo_dims(v.struct_info)

    def visit_call_(self, e):
        for s in e.sinfo_args:
            self.dims += sinfo_dims(s)
        super().visit_call_(e)

    def visit_shape_expr_(self, e):
        self.dims += list(e.values)

    def visit_prim_value_(self, e):
        if not isinstance(e.value, (_te.IntImm, _te.FloatImm)):
            self.dims.append(e.value)


class ShapeHeap:
    """Slot assignment for one function plus the codegen state of which slots are filled."""

    def __init__(self, name, func):
        self.name = name
        self.slots = {}       # expr key -> slot
        self.computed = {}    # expr key -> PrimExpr (non-variable dimensions)
        self.deps = {}        # expr key -> {var key}
        self.known = set()    # keys whose slot is filled at this point of the code
        self.num_funcs = 0
        walk = _Dims()
        walk.visit_expr(func)
        dims = walk.dims
        for d in dims:
            self._add(d)

    def _add(self, d):
        if isinstance(d, _te.IntImm):
            return
        k = expr_key(d)
        if k in self.slots:
            return
        if not isinstance(d, tir.Var):
            fv = prim_free_vars(d, {})
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
            needed.update({vk: v for vk, v in prim_free_vars(self.computed[k], {}).items()})
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
    for c in _children(e) or []:
        yield from _divisors(c)


# ---------------------------------------------------------------- the pass

LOWERED_ATTR = "relax.vm_shape_lowered"


class _VMShapeLower(ExprMutator):
    def enter_function(self, name, func):
        self.name = name
        self.heap = ShapeHeap(name, func)
        self.heap_var = self.none_var = None
        bb = self.builder_
        if self.heap.size:
            self.heap_var = bb.emit(call_builtin_with_ctx(
                "vm.builtin.alloc_shape_heap", [_expr.PrimValue(_int64(self.heap.size))],
                sinfo_args=_expr.TensorStructInfo(ndim=1, dtype="int64")), "shape_heap")
        for i, p in enumerate(func.params):
            if isinstance(p.struct_info, _expr.TensorStructInfo):
                self.check_tensor(p, p.struct_info, "%s: argument %d (%s)" % (name, i, p.name_hint))
        self.compute_ready()

    # ---- helpers emitting run-time work
    def effect(self, func, *args):
        self.builder_.emit(call_packed(func, *args, sinfo_args=void_sinfo()), self.builder_._name("_"))

    def none(self):
        if self.none_var is None:
            self.none_var = self.builder_.emit(null_value(), "null")
        return self.none_var

    def heap_operand(self):
        return self.heap_var if self.heap_var is not None else self.none()

    def slot_of(self, d, what):
        k = expr_key(d)
        if k not in self.heap.known:
            raise NotImplementedError("VMShapeLower: %s: %s depends on symbolic variables that are "
                                      "not bound from the inputs at this point" % (what, d))
        return self.heap.slots[k]

    def compute_ready(self):
        """Calls a new shape function for the computed dimensions that just became known."""
        keys = self.heap.ready()
        if not keys:
            return
        name, f = self.heap.shape_func(keys)
        from ...target import Target

        target = Target.current()
        if target is not None and target.is_device:
            # The heap is a host tensor: shape functions are host code (SplitHostDevice leaves
            # functions whose target is the host alone).
            f = f.with_attr("target", Target(target.host or "llvm"))
        gv = self.builder_.add_func(f, name)
        self.builder_.emit(_expr.Call(gv, [self.heap_operand()], None, [void_sinfo()]),
                           self.builder_._name("_"))

    def check_tensor(self, value, sinfo, ctx):
        dtype = str(sinfo.dtype)
        self.effect("vm.builtin.check_tensor_info", value, _expr.PrimValue(_int64(int(sinfo.ndim))),
                    _expr.DataTypeImm(dtype) if dtype != "void" else self.none(), _expr.StringImm(ctx))
        if sinfo.shape_known:
            self.match_dims(value, list(sinfo.shape), ctx)

    def match_dims(self, value, dims, ctx):
        pairs, later = [], False
        for d in dims:
            k = None if isinstance(d, _te.IntImm) else expr_key(d)
            if k is None:
                pairs += [ASSERT_IMM, int(d.value)]
            elif k in self.heap.known:
                pairs += [ASSERT_LOAD, self.heap.slots[k]]
            elif isinstance(d, tir.Var):
                pairs += [STORE, self.heap.slots[k]]
                self.heap.known.add(k)
            else:
                pairs += [NO_OP, 0]
                later = True
        self.emit_match(value, pairs, ctx)
        if later:     # computed dimensions of a value that also binds their variables
            self.compute_ready()
            pairs = []
            for d in dims:
                if isinstance(d, (_te.IntImm, tir.Var)):
                    pairs += [NO_OP, 0]
                else:
                    pairs += [ASSERT_LOAD, self.slot_of(d, ctx)]
            self.emit_match(value, pairs, ctx)

    def emit_match(self, value, pairs, ctx):
        self.effect("vm.builtin.match_shape", value, self.heap_operand(),
                    _expr.PrimValue(_int64(len(pairs) // 2)),
                    *[_expr.PrimValue(_int64(v)) for v in pairs], _expr.StringImm(ctx))

    # ---- symbolic leaves become values read from the heap
    def visit_shape_expr_(self, e):
        shape = list(e.values)
        if all(isinstance(d, _te.IntImm) for d in shape):
            return e
        args = []
        for d in shape:
            if isinstance(d, _te.IntImm):
                args += [USE_IMM, int(d.value)]
            else:
                args += [LOAD, self.slot_of(d, "%s: shape" % self.name)]
        return self.builder_.emit(call_packed(
            "vm.builtin.make_shape", self.heap_operand(), _expr.PrimValue(_int64(len(shape))),
            *[_expr.PrimValue(_int64(v)) for v in args],
            sinfo_args=_expr.ShapeStructInfo(values=shape)), self.builder_._name("shape"))

    def visit_prim_value_(self, e):
        v = e.value
        if isinstance(v, (_te.IntImm, _te.FloatImm)):
            return e
        slot = self.slot_of(v, "%s: value" % self.name)
        s = self.builder_.emit(call_packed(
            "vm.builtin.make_shape", self.heap_operand(), _expr.PrimValue(_int64(1)),
            _expr.PrimValue(_int64(LOAD)), _expr.PrimValue(_int64(slot)),
            sinfo_args=_expr.ShapeStructInfo(values=[v])), self.builder_._name("shape"))
        return self.builder_.emit(call_packed("vm.builtin.tuple_getitem", s, _expr.PrimValue(_int64(0)),
                                              sinfo_args=_expr.PrimStructInfo(str(v.dtype), v)),
                                  self.builder_._name("value"))

    # ---- match_cast: a plain binding of the checked value
    def visit_match_cast_(self, b):
        value = self.visit_expr(b.value)
        sinfo = b.struct_info
        bb = self.builder_
        var = _expr.Var(str(b.var.name_hint), sinfo)   # keeps the matched (more precise) info
        bb._scope.bindings.append(_expr.VarBinding(var, bb.normalize(value)))
        self.var_remap_[b.var._h] = var
        ctx = "%s: match_cast" % self.name
        if isinstance(sinfo, _expr.TensorStructInfo):
            self.check_tensor(var, sinfo, ctx)
        elif isinstance(sinfo, _expr.ShapeStructInfo):
            # a Shape computed at run time (tensor_to_shape): its values bind symbolic vars
            self.effect("vm.builtin.check_shape_info", var, _expr.PrimValue(_int64(int(sinfo.ndim))),
                        _expr.StringImm(ctx))
            if sinfo.values is not None:
                self.match_dims(var, list(sinfo.values), ctx)
        self.compute_ready()


def _int64(v):
    return tir.IntImm("int64", int(v))


def VMShapeLower():  # noqa: N802 - TVM's pass name
    from ...ir.transform import ModulePass, PassInfo

    def run(mod, ctx):
        rw = _VMShapeLower(mod)
        done = []
        for name, func in relax_functions(mod):
            if LOWERED_ATTR in func.attrs:
                continue
            rw.var_remap_, rw._bound = {}, {}
            rw.visit_function(name, func)
            done.append(name)
        out = rw.builder_.get()
        funcs = {str(k): f for k, f in out.functions.items()}
        for name in done:
            funcs[name] = funcs[name].with_attr(LOWERED_ATTR, True)
        return type(out)(funcs)
    return ModulePass(run, PassInfo(0, "relax.VMShapeLower"))
