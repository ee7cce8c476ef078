"""Assembling VM executables from Python (a thin layer over the `vm.builder.*` globals).

    b = Builder()
    with b.function("main", num_inputs=2, params=["x", "y"]):
        b.emit_call("my.add", [b.r(0), b.r(1)], dst=2)
        b.emit_ret(2)
    exe = b.get()                          # a validated tvm.runtime.vm.Executable

Operands: `r(i)` a register, `imm(v)` an int, `c(value)` a constant (pooled), `f(name)` a
function value, `VM` the running VM (builtins that allocate take it first), `VOID` None.
"""

import contextlib

import tvm_ffi

from .vm import Executable

_KIND_REGISTER, _KIND_IMMEDIATE, _KIND_CONSTANT, _KIND_FUNCTION = 0, 1, 2, 3
_PAYLOAD_MASK = (1 << 56) - 1
VOID_REGISTER = 1 << 54
VM_REGISTER = (1 << 54) + 1


def _word(kind, value):
    if not -(1 << 55) <= value < (1 << 55):
        raise ValueError("operand %d does not fit in 56 bits" % value)
    return (kind << 56) | (value & _PAYLOAD_MASK)


def _g(name):
    return tvm_ffi.get_global_func("vm.builder." + name)


class Builder:
    """An executable under construction."""

    VOID = _word(_KIND_REGISTER, VOID_REGISTER)
    VM = _word(_KIND_REGISTER, VM_REGISTER)

    def __init__(self):
        self._b = _g("Create")()

    @staticmethod
    def r(index):
        return _word(_KIND_REGISTER, index)

    @staticmethod
    def imm(value):
        return _word(_KIND_IMMEDIATE, int(value))

    def c(self, value):
        return _word(_KIND_CONSTANT, _g("ConvertConstant")(self._b, value))

    def f(self, name):
        return _word(_KIND_FUNCTION, _g("FuncIndex")(self._b, name))

    @contextlib.contextmanager
    def function(self, name, num_inputs, params=None):
        _g("EmitFunction")(self._b, name, num_inputs, list(params) if params else None)
        yield self
        _g("EndFunction")(self._b, name)

    def emit_call(self, func_name, args, dst=None):
        dst = VOID_REGISTER if dst is None else dst
        return _g("EmitCall")(self._b, func_name, [int(a) for a in args], dst)

    def emit_ret(self, reg):
        return _g("EmitRet")(self._b, reg)

    def emit_goto(self, offset):
        return _g("EmitGoto")(self._b, offset)

    def emit_if(self, cond_reg, false_offset):
        return _g("EmitIf")(self._b, cond_reg, false_offset)

    def patch_jump(self, instr, offset):
        _g("PatchJump")(self._b, instr, offset)

    def num_instructions(self):
        return _g("NumInstructions")(self._b)

    def get(self):
        """The validated executable (ValueError naming the problem otherwise)."""
        return Executable(_g("Get")(self._b))
