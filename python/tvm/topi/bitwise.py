"""Bitwise operators on integer tensors (numpy broadcasting for the binary ones): TIR's
bitwise intrinsics, which the LLVM codegen emits as and/or/xor/shl/lshr/ashr with shifts by
the type's width or more defined (0, or the sign for a negative signed value)."""

from .. import te, tir
from .broadcast import _binary

bitwise_and = _binary("bitwise_and", tir.bitwise_and)
bitwise_or = _binary("bitwise_or", tir.bitwise_or)
bitwise_xor = _binary("bitwise_xor", tir.bitwise_xor)
left_shift = _binary("left_shift", tir.shift_left)
right_shift = _binary("right_shift", tir.shift_right)


def bitwise_not(x):
    return te.compute(list(x.shape), lambda *i: tir.bitwise_not(x[i]), name="bitwise_not")
