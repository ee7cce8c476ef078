"""relax.build: a Relax IRModule -> a VM executable plus the compiled kernels.

    ex = relax.build(mod, target="llvm")            # or tvm.compile(mod, target)
    vm = relax.VirtualMachine(ex, tvm.cpu())
    out = vm["main"](x)
    ex.export_library("model.so")                   # bytecode + constants + kernels, one file

Lowering (after the pipeline legalized every operator into call_tir):
  - PrimFuncs get a default schedule (tvm.relax.backend default_schedule) and are compiled
    with tvm.compile into one library;
  - each Relax function becomes a bytecode function (runtime/ docs/vm.md): parameters in
    registers, symbolic dimensions stored in a shape heap by vm.builtin.match_shape and
    computed ones filled by generated TIR shape functions (vm_shape_lower.py), outputs of
    call_tir placed by the static memory plan (memory_plan.py: shared alloc_storage blocks, or
    vm.builtin.empty) and passed after the arguments (destination-passing style), tuples with
    vm.builtin.make_tuple / tuple_getitem, constants in the constant pool.
"""

import tvm_ffi

from .. import tir
from ..driver.build_module import compile as _tvm_compile
from ..ir import IRModule
from ..runtime import vm as _rvm
from ..runtime.vm_builder import Builder
from ..tir import expr as _te
from . import expr as _expr
from .memory_plan import vars_in, plan_function
from .vm_shape_lower import (ASSERT_IMM, ASSERT_LOAD, LOAD, NO_OP, STORE, USE_IMM, ShapeHeap,
                             expr_key)


class _FunctionCodegen:
    def __init__(self, b, name, func, shape_funcs, memory_plan=True):
        self.b = b
        self.name = name
        self.func = func
        self.regs = {}       # relax Var handle -> register
        self.next_reg = len(func.params)
        self.heap = ShapeHeap(name, func)
        self.heap_reg = None
        self.shape_funcs = shape_funcs   # name -> PrimFunc, compiled with the kernels
        self.plan = plan_function(func, memory_plan)
        self.storage_regs = []           # token -> register holding its storage
        self.binding = None              # index of the binding being lowered

    def reg(self):
        r = self.next_reg
        self.next_reg += 1
        return r

    # ---- symbolic shapes (vm_shape_lower.py) ----
    def heap_operand(self):
        return self.b.VOID if self.heap_reg is None else self.b.r(self.heap_reg)

    def slot_of(self, d, what):
        k = expr_key(d)
        if k not in self.heap.known:
            raise NotImplementedError("relax.build: %s: %s depends on symbolic variables that are "
                                      "not bound from the inputs at this point" % (what, d))
        return self.heap.slots[k]

    def compute_ready(self):
        """Calls a new shape function for the computed dimensions that just became known."""
        keys = self.heap.ready()
        if keys:
            name, f = self.heap.shape_func(keys)
            self.shape_funcs[name] = f
            self.b.emit_call(name, [self.heap_operand()])

    def check_tensor(self, r, sinfo, ctx):
        """Checks the value in register `r` against TensorStructInfo `sinfo` at run time
        (ndim, dtype, every known dimension); the first use of a symbolic variable stores it in
        its heap slot, later uses and computed dimensions are checked against their slots."""
        b = self.b
        b.emit_call("vm.builtin.check_tensor_info",
                    [b.r(r), b.imm(int(sinfo.ndim)), b.c(tvm_ffi.dtype(str(sinfo.dtype)))
                     if str(sinfo.dtype) != "void" else b.VOID, b.c(ctx)])
        if sinfo.shape_known:
            self.match_dims(r, list(sinfo.shape), ctx)

    def match_dims(self, r, dims, ctx):
        """Matches the dims of the tensor or Shape in register `r` against `dims`."""
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
        self.emit_match(r, pairs, ctx)
        if later:     # computed dimensions of a value that also binds their variables
            self.compute_ready()
            pairs = []
            for d in dims:
                if isinstance(d, (_te.IntImm, tir.Var)):
                    pairs += [NO_OP, 0]
                else:
                    pairs += [ASSERT_LOAD, self.slot_of(d, ctx)]
            self.emit_match(r, pairs, ctx)

    def emit_match(self, r, pairs, ctx):
        b = self.b
        b.emit_call("vm.builtin.match_shape", [b.r(r), self.heap_operand(), b.imm(len(pairs) // 2)]
                    + [b.imm(v) for v in pairs] + [b.c(ctx)])

    def bind_param_shapes(self):
        b = self.b
        if self.heap.size:
            self.heap_reg = self.reg()
            b.emit_call("vm.builtin.alloc_shape_heap", [b.VM, b.imm(self.heap.size)], self.heap_reg)
        for i, p in enumerate(self.func.params):
            if isinstance(p.struct_info, _expr.TensorStructInfo):
                self.check_tensor(i, p.struct_info, "%s: argument %d (%s)" % (self.name, i, p.name_hint))
        self.compute_ready()

    def shape_operand(self, shape):
        """An operand holding the Shape of `shape` (a list of PrimExpr)."""
        b = self.b
        if all(isinstance(d, _te.IntImm) for d in shape):
            return b.c(tvm_ffi.Shape([int(d.value) for d in shape]))
        args = []
        for d in shape:
            if isinstance(d, _te.IntImm):
                args += [b.imm(USE_IMM), b.imm(int(d.value))]
            else:
                args += [b.imm(LOAD), b.imm(self.slot_of(d, "%s: shape" % self.name))]
        r = self.reg()
        b.emit_call("vm.builtin.make_shape", [self.heap_operand(), b.imm(len(shape))] + args, r)
        return b.r(r)

    def prim_operand(self, v):
        """A register holding the int value of a symbolic PrimExpr (read from its slot)."""
        b = self.b
        s = self.reg()
        b.emit_call("vm.builtin.make_shape", [self.heap_operand(), b.imm(1), b.imm(LOAD),
                                              b.imm(self.slot_of(v, "%s: value" % self.name))], s)
        r = self.reg()
        b.emit_call("vm.builtin.tuple_getitem", [b.r(s), b.imm(0)], r)
        return b.r(r)

    # ---- storage (memory_plan.py) ----
    def alloc_storages(self):
        """One vm.builtin.alloc_storage per planned token, at entry (sizes are static)."""
        b = self.b
        for nbytes, dtype in zip(self.plan.token_bytes, self.plan.token_dtype):
            r = self.reg()
            b.emit_call("vm.builtin.alloc_storage", [b.VM, b.imm(nbytes), b.imm(0),
                                                     b.c(tvm_ffi.dtype(dtype))], r)
            self.storage_regs.append(r)

    # ---- expressions ----
    def operand(self, e):
        b = self.b
        if isinstance(e, _expr.Var):
            if e._h not in self.regs:
                raise ValueError("relax.build: variable %s used before it is bound" % e.name_hint)
            return b.r(self.regs[e._h])
        if isinstance(e, _expr.Constant):
            return b.c(e.data)
        if isinstance(e, _expr.ShapeExpr):
            return self.shape_operand(list(e.values))
        if isinstance(e, _expr.PrimValue):
            v = e.value
            if isinstance(v, _te.IntImm):
                return b.imm(int(v.value))
            if isinstance(v, _te.FloatImm):
                return b.c(float(v.value))
            return self.prim_operand(v)
        if isinstance(e, _expr.StringImm):
            return b.c(str(e.value))
        if isinstance(e, _expr.DataTypeImm):
            return b.c(e.value)
        # anything else is computed into a register first
        r = self.reg()
        self.emit_value(e, r)
        return b.r(r)

    def alloc(self, sinfo, k, r=None):
        """The `k`-th output of the current binding, into register `r` (a new one by default):
        a view of its planned storage, or its own allocation (escaping or dynamically sized)."""
        b = self.b
        r = self.reg() if r is None else r
        shape = self.shape_operand(list(sinfo.shape))
        dtype = b.c(tvm_ffi.dtype(str(sinfo.dtype)))
        token = self.plan.token.get((self.binding, k))
        if token is None:
            b.emit_call("vm.builtin.empty", [b.VM, shape, dtype, b.imm(0)], r)
        else:
            b.emit_call("vm.builtin.alloc_tensor", [b.r(self.storage_regs[token]), b.imm(0),
                                                    shape, dtype], r)
        return r

    def emit_value(self, e, dst):
        b = self.b
        if isinstance(e, _expr.Call) and isinstance(e.op, _expr.Op):
            name = str(e.op.name)
            if name in ("relax.call_tir", "relax.call_dps_packed"):
                callee = e.args[0]
                fname = str(callee.name_hint) if isinstance(callee, _expr.GlobalVar) else str(callee.global_symbol)
                args = [self.operand(a) for a in e.args[1].fields]
                out = e.sinfo_args[0]
                if isinstance(out, _expr.TupleStructInfo):
                    outs = [self.alloc(f, k) for k, f in enumerate(out.fields)]
                    b.emit_call(fname, args + [b.r(o) for o in outs])
                    b.emit_call("vm.builtin.make_tuple", [b.r(o) for o in outs], dst)
                    for o in outs:  # the tuple holds them now
                        b.emit_call("vm.builtin.null_value", [], o)
                else:
                    self.alloc(out, 0, dst)
                    b.emit_call(fname, args + [b.r(dst)])
                return
            raise NotImplementedError("relax.build: operator %s was not legalized (run "
                                      "relax.transform.LegalizeOps / the default pipeline)" % name)
        if isinstance(e, _expr.Call):
            if isinstance(e.op, _expr.ExternFunc):
                b.emit_call(str(e.op.global_symbol), [self.operand(a) for a in e.args], dst)
                return
            if isinstance(e.op, _expr.GlobalVar):
                b.emit_call(str(e.op.name_hint), [self.operand(a) for a in e.args], dst)
                return
            raise NotImplementedError("relax.build: call of %s" % type(e.op).__name__)
        if isinstance(e, _expr.Tuple):
            b.emit_call("vm.builtin.make_tuple", [self.operand(f) for f in e.fields], dst)
            return
        if isinstance(e, _expr.TupleGetItem):
            b.emit_call("vm.builtin.tuple_getitem", [self.operand(e.tuple_value), b.imm(int(e.index))], dst)
            return
        if isinstance(e, (_expr.Var, _expr.Constant, _expr.ShapeExpr, _expr.PrimValue,
                          _expr.StringImm, _expr.DataTypeImm)):
            b.emit_call("vm.builtin.identity", [self.operand(e)], dst)
            return
        raise NotImplementedError("relax.build: cannot lower %s" % type(e).__name__)

    def run(self):
        b = self.b
        params = [str(p.name_hint) for p in self.func.params]
        for i, p in enumerate(self.func.params):
            self.regs[p._h] = i
        with b.function(self.name, len(params), params):
            self.bind_param_shapes()
            self.alloc_storages()
            body = self.func.body
            bindings = [bd for block in (body.blocks if isinstance(body, _expr.SeqExpr) else [])
                        for bd in block.bindings]
            kills = _last_uses(bindings, body.body if isinstance(body, _expr.SeqExpr) else body)
            for i, bd in enumerate(bindings):      # (indices as in memory_plan.plan_function)
                self.binding = i
                r = self.reg()
                self.emit_value(bd.value, r)
                if isinstance(bd, _expr.MatchCast):
                    self.match_cast(r, bd.struct_info)
                self.regs[bd.var._h] = r
                # KillAfterLastUse: a register whose variable is not read again drops its
                # reference, so a dynamically allocated tensor goes back to the pool for the
                # next allocation (values are reference counted: a tuple or a later alias
                # keeps what it still needs).
                for h in kills.get(i, ()):
                    b.emit_call("vm.builtin.null_value", [], self.regs[h])
            self.binding = None
            out = body.body if isinstance(body, _expr.SeqExpr) else body
            r = self.reg()
            self.emit_value(out, r)
            b.emit_ret(r)

    def match_cast(self, r, sinfo):
        if isinstance(sinfo, _expr.TensorStructInfo):
            self.check_tensor(r, sinfo, "%s: match_cast" % self.name)
            self.compute_ready()
        elif isinstance(sinfo, _expr.ShapeStructInfo):
            # a Shape computed at run time (tensor_to_shape): its values bind symbolic vars
            ctx = "%s: match_cast" % self.name
            b = self.b
            b.emit_call("vm.builtin.check_shape_info", [b.r(r), b.imm(int(sinfo.ndim)), b.c(ctx)])
            if sinfo.values is not None:
                self.match_dims(r, list(sinfo.values), ctx)
            self.compute_ready()


def _last_uses(bindings, result):
    """{binding index: handles of the binding variables last read there}. Variables the
    result reads are never killed; a variable never read is killed right after its binding."""
    last = {}
    for i, bd in enumerate(bindings):
        last[bd.var._h] = i
        for v in vars_in(bd.value, []):
            if v._h in last:
                last[v._h] = i
    for v in vars_in(result, []):
        last.pop(v._h, None)
    kills = {}
    for h, i in last.items():
        kills.setdefault(i, []).append(h)
    return kills


def vm_codegen(mod, memory_plan=True):
    """The bytecode of every Relax function of `mod` (legalized), as a tvm.runtime Executable;
    the shape functions it calls (name -> PrimFunc, to compile with the kernels); and the
    memory plan statistics per function (memory_plan.MemoryPlan.stats)."""
    b = Builder()
    shape_funcs, stats = {}, {}
    for name, func in mod.functions.items():
        if isinstance(func, _expr.Function):
            cg = _FunctionCodegen(b, str(name), func, shape_funcs, memory_plan)
            cg.run()
            stats[str(name)] = cg.plan.stats()
    return b.get(), shape_funcs, stats


class VMExecutable:
    """What relax.build returns: the bytecode executable and the compiled kernels."""

    def __init__(self, bytecode, kernels, memory_stats=None):
        self.bytecode = bytecode      # tvm.runtime.vm.Executable (no imports)
        self.kernels = kernels        # tvm.driver Executable, or None when there are none
        # function name -> {"allocations", "planned", "storages", "planned_bytes",
        # "unplanned_bytes"}: what static memory planning did (memory_plan.py)
        self.memory_stats = dict(memory_stats or {})

    def _runnable(self):
        """A copy of the bytecode executable importing the kernels (for in-process runs)."""
        exe = _rvm.Executable.load_from_bytes(self.bytecode.save_to_bytes())
        if self.kernels is not None:
            exe.mod.import_module(self.kernels.mod)
        return exe

    def export_library(self, path, cc=None, options=None):
        """One .so: kernels, with the bytecode and constants as the root module, so
        load_module(path) gives the VM executable (also in a runtime-only process)."""
        if self.kernels is None:
            raise ValueError("export_library: the module has no kernels to link")
        return self.kernels.export_library(path, cc=cc, options=options, root_module=self.bytecode.mod)

    def as_text(self):
        return self.bytecode.as_text()


class VirtualMachine(_rvm.VirtualMachine):
    """relax.VirtualMachine(ex, device): ex is relax.build's result or a loaded module."""

    def __init__(self, rt_mod, device=None, memory="pooled"):
        if isinstance(rt_mod, VMExecutable):
            rt_mod = rt_mod._runnable()
        super().__init__(rt_mod, device, memory)


def build(mod, target=None, pipeline="default", memory_plan=True):
    """Compiles a Relax IRModule: the pipeline ("default": relax.get_default_pipeline(target),
    which schedules kernels for the target's kind; another name: relax.get_pipeline(name); or
    a pass), then kernels and bytecode. For a GPU target ("cuda -arch=sm_80") the kernels are
    in a CUDA module imported by the host library and the VM runs on tvm.cuda(). Returns a
    VMExecutable. memory_plan=False gives every call_tir output its own allocation (no
    storage sharing; for comparison and debugging)."""
    from .pipeline import get_default_pipeline, get_pipeline
    from ..target import Target

    if not isinstance(mod, IRModule):
        raise TypeError("relax.build expects an IRModule, got %r" % type(mod).__name__)
    target = Target(target or "llvm")
    if pipeline == "default":
        pipeline = get_default_pipeline(target)   # by target kind: GPU targets get dlight
    if pipeline is not None:
        with target:  # passes that size things by the target (DefaultSchedule) read it
            mod = get_pipeline(pipeline)(mod) if isinstance(pipeline, str) else pipeline(mod)
    bytecode, shape_funcs, stats = vm_codegen(mod, memory_plan)
    prims = {k: f for k, f in mod.functions.items() if not isinstance(f, _expr.Function)}
    if target.is_device:
        # Shape functions compute dimensions from the VM's shape heap, a host tensor: they
        # are host code (their target is the host, so SplitHostDevice leaves them alone).
        host = Target(target.host or "llvm")
        shape_funcs = {k: f.with_attr("target", host) for k, f in shape_funcs.items()}
    prims.update(shape_funcs)
    kernels = _tvm_compile(IRModule(prims), target) if prims else None
    return VMExecutable(bytecode, kernels, stats)
