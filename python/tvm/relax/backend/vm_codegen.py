"""VMCodeGen (TVM's relax.VMCodeGen): lowered Relax functions -> VM bytecode, one instruction
per binding. Everything it needs is explicit in the IR by now (allocations, kills, checks,
shapes read from the heap: the passes of relax.backend's finalize_passes), so each binding
maps to one `call`:

    x = R.vm.alloc_storage(size, dev, dtype, scope)   call vm.builtin.alloc_storage(vm, ...)
    x = R.vm.alloc_tensor(s, offset, shape, dtype)    call vm.builtin.alloc_tensor(s, ...)
    _ = R.vm.kill_object(x)                           call vm.builtin.null_value() -> x's register
    x = R.call_builtin_with_ctx(f, (args...))         call f(vm, args...)
    x = R.null_value()                                call vm.builtin.null_value()
    x = f(args...)   (PrimFunc, extern or Relax fn)   call f(args...)  (no result when void)
    x = (a, b) / x = t[i]                             vm.builtin.make_tuple / tuple_getitem
    x = a constant                                    vm.builtin.identity
    x = y                                             no instruction: x names y's register

An alias shares its value's register (the VM's values are reference counted, so the two names
hold one reference between them): a kill_object of one name while another still uses the
register is dropped, and the register is cleared when its last name is killed. A returned
call_tir output (`gv = alloc`, then alloc's kill) costs no instruction that way.

Operands: parameters and bindings are registers (parameters first), constants go to the
constant pool, int prim values are immediates, constant shapes / strings / dtypes constants.
"""

import tvm_ffi

from ...runtime.vm_builder import Builder
from ...tir import expr as _te
from .. import expr as _expr
from ..transform.lowering_common import is_void, op_name

_NOT_LOWERED = {
    "relax.call_tir": "CallTIRRewrite", "relax.call_dps_packed": "CallTIRRewrite",
    "relax.builtin.alloc_tensor": "LowerAllocTensor or LowerRuntimeBuiltin",
    "relax.memory.alloc_storage": "LowerRuntimeBuiltin", "relax.memory.alloc_tensor":
    "LowerRuntimeBuiltin", "relax.memory.kill_tensor": "LowerRuntimeBuiltin",
    "relax.memory.kill_storage": "LowerRuntimeBuiltin",
}


class _FunctionCodegen:
    def __init__(self, b, name, func):
        self.b, self.name, self.func = b, name, func
        self.regs = {}
        self.names = {}  # register -> how many live variables name it (aliases share one)
        self.next_reg = len(func.params)

    def reg(self):
        r = self.next_reg
        self.next_reg += 1
        return r

    def operand(self, e):
        b = self.b
        if isinstance(e, _expr.Var):
            if e not in self.regs:
                raise ValueError("VMCodeGen: %s: variable %s is used before it is bound (or has "
                                 "no value)" % (self.name, e.name_hint))
            return b.r(self.regs[e])
        if isinstance(e, _expr.Constant):
            return b.c(e.data)
        if isinstance(e, _expr.ShapeExpr):
            if not all(isinstance(d, _te.IntImm) for d in e.values):
                raise ValueError("VMCodeGen: %s: symbolic shape %s (run relax.transform."
                                 "VMShapeLower)" % (self.name, list(e.values)))
            return b.c(tvm_ffi.Shape([int(d.value) for d in e.values]))
        if isinstance(e, _expr.PrimValue):
            v = e.value
            if isinstance(v, _te.IntImm):
                return b.imm(int(v.value))
            if isinstance(v, _te.FloatImm):
                return b.c(float(v.value))
            raise ValueError("VMCodeGen: %s: symbolic value %s (run relax.transform.VMShapeLower)"
                             % (self.name, v))
        if isinstance(e, _expr.StringImm):
            return b.c(str(e.value))
        if isinstance(e, _expr.DataTypeImm):
            return b.c(tvm_ffi.dtype(str(e.value)))
        raise ValueError("VMCodeGen: %s: %s is not an operand (bind it first)"
                         % (self.name, type(e).__name__))

    def emit(self, e, dst):
        """One instruction computing `e` into register `dst` (None: for its effect)."""
        b = self.b
        call = b.emit_call
        if isinstance(e, _expr.Call):
            name = op_name(e)
            if name is None:
                if isinstance(e.op, _expr.ExternFunc):
                    callee = str(e.op.global_symbol)
                elif isinstance(e.op, _expr.GlobalVar):
                    callee = str(e.op.name_hint)
                else:
                    raise ValueError("VMCodeGen: %s: call of %s" % (self.name, type(e.op).__name__))
                return call(callee, [self.operand(a) for a in e.args], dst)
            a = list(e.args)
            if name == "relax.vm.alloc_storage":
                return call("vm.builtin.alloc_storage", [b.VM, self.operand(a[0]), self.operand(a[1]),
                                                         self.operand(a[2])], dst)
            if name == "relax.vm.alloc_tensor":
                return call("vm.builtin.alloc_tensor", [self.operand(x) for x in a], dst)
            if name == "relax.vm.kill_object":
                if not isinstance(a[0], _expr.Var) or a[0] not in self.regs:
                    raise ValueError("VMCodeGen: %s: kill_object of a value without a register" % self.name)
                reg = self.regs[a[0]]
                if self.names.get(reg, 1) > 1:  # another name still holds the value
                    self.names[reg] -= 1
                    return None
                return call("vm.builtin.null_value", [], reg)
            if name == "relax.call_builtin_with_ctx":
                return call(str(a[0].global_symbol), [b.VM] + [self.operand(x) for x in a[1].fields], dst)
            if name == "relax.null_value":
                return call("vm.builtin.null_value", [], dst)
            raise ValueError("VMCodeGen: %s: operator %s is not lowered (run relax.transform.%s)"
                             % (self.name, name, _NOT_LOWERED.get(name, "LegalizeOps")))
        if isinstance(e, _expr.Tuple):
            return call("vm.builtin.make_tuple", [self.operand(f) for f in e.fields], dst)
        if isinstance(e, _expr.TupleGetItem):
            return call("vm.builtin.tuple_getitem", [self.operand(e.tuple_value), b.imm(int(e.index))], dst)
        if isinstance(e, _expr.SeqExpr) or isinstance(e, _expr.Function):
            raise ValueError("VMCodeGen: %s: nested %s is not supported" % (self.name, type(e).__name__))
        return call("vm.builtin.identity", [self.operand(e)], dst)

    def run(self):
        b, func = self.b, self.func
        params = [str(p.name_hint) for p in func.params]
        for i, p in enumerate(func.params):
            self.regs[p] = i
        body = func.body
        blocks = body.blocks if isinstance(body, _expr.SeqExpr) else []
        with b.function(self.name, len(params), params):
            for block in blocks:
                for bd in block.bindings:
                    if isinstance(bd, _expr.MatchCast):
                        raise ValueError("VMCodeGen: %s: match_cast of %s (run relax.transform."
                                         "VMShapeLower)" % (self.name, bd.var.name_hint))
                    value = bd.value
                    if isinstance(value, _expr.Var) and value in self.regs and not is_void(bd.var.struct_info):
                        reg = self.regs[value]  # an alias: y's register under a second name
                        self.regs[bd.var] = reg
                        self.names[reg] = self.names.get(reg, 1) + 1
                        continue
                    dst = None if is_void(bd.var.struct_info) else self.reg()
                    self.emit(value, dst)
                    if dst is not None:
                        self.regs[bd.var] = dst
            out = body.body if isinstance(body, _expr.SeqExpr) else body
            if isinstance(out, _expr.Var) and out in self.regs:
                b.emit_ret(self.regs[out])
            else:
                r = self.reg()
                self.emit(out, r)
                b.emit_ret(r)


def vm_codegen(mod):
    """The bytecode of every Relax function of `mod` (lowered by the finalize passes), as a
    tvm.runtime.vm Executable with no imports."""
    b = Builder()
    for name, func in mod.functions.items():
        if isinstance(func, _expr.Function):
            _FunctionCodegen(b, str(name), func).run()
    return b.get()
