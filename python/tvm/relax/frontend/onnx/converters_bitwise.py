"""Bitwise and logical-xor ONNX converters: BitShift (opset 11 unsigned, 28 signed too, direction
LEFT/RIGHT), BitwiseAnd/Or/Xor/Not (opset 18, any integer type) on the relax.bitwise_* /
left_shift / right_shift operators (C++ inference in compiler/src/relax/op/bitwise.cc,
legalized to TIR's bitwise intrinsics), and Xor (opset 7, bool) as not_equal. Registered
into CONVERTERS on import."""

import numpy as np

from ... import op as R
from .converters import Converter, register

_NP = {"bitwise_and": np.bitwise_and, "bitwise_or": np.bitwise_or, "bitwise_xor": np.bitwise_xor}


def _bitwise_binary(name):
    class _C(Converter):
        requires = (name,)

        @classmethod
        def _impl_v18(cls, ctx, inputs, attrs):
            if ctx.all_const():
                return _NP[name](ctx.consts[0], ctx.consts[1])
            return getattr(R, name)(inputs[0], inputs[1])
    _C.__name__ = name
    return _C


register("BitwiseAnd")(_bitwise_binary("bitwise_and"))
register("BitwiseOr")(_bitwise_binary("bitwise_or"))
register("BitwiseXor")(_bitwise_binary("bitwise_xor"))


@register("BitwiseNot")
class BitwiseNot(Converter):
    requires = ("bitwise_not",)

    @classmethod
    def _impl_v18(cls, ctx, inputs, attrs):
        if ctx.consts[0] is not None:
            return np.invert(ctx.consts[0])
        return R.bitwise_not(inputs[0])


@register("BitShift")
class BitShift(Converter):
    """Opset 11: unsigned integers; opset 28 adds signed ones (>> is arithmetic). Amounts
    >= the width, or negative, are out of range: 0, or the sign for >> of a negative value
    (the codegen defines them; LLVM leaves them poison)."""

    requires = ("left_shift", "right_shift")

    @classmethod
    def _impl_v11(cls, ctx, inputs, attrs):
        direction = attrs.get("direction", "")
        if direction not in ("LEFT", "RIGHT"):
            raise ValueError("BitShift: direction must be LEFT or RIGHT, got %r" % direction)
        fn = R.left_shift if direction == "LEFT" else R.right_shift
        return fn(inputs[0], inputs[1])


@register("Xor")
class Xor(Converter):
    """Logical xor of bool tensors (broadcasting): a != b."""

    @classmethod
    def _impl_v7(cls, ctx, inputs, attrs):
        if ctx.all_const():
            return np.logical_xor(ctx.consts[0], ctx.consts[1])
        return R.not_equal(inputs[0], inputs[1])
