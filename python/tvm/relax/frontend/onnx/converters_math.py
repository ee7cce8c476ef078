"""Elementwise math ONNX converters not covered by converters.py: Round (opset 11), rounding
half to even as onnx, numpy and onnxruntime do. Registered into CONVERTERS on import."""

import numpy as np

from ... import expr as _expr
from ... import op as R
from .converters import Converter, register


@register("Round")
class Round(Converter):
    """relax.round rounds halves away from zero (llvm.round), so the half-to-even rule is
    built from floor: below .5 -> floor, above -> floor + 1, exactly .5 -> the even one of
    the two (floor + (floor mod 2))."""

    @classmethod
    def _impl_v11(cls, ctx, inputs, attrs):
        if ctx.consts[0] is not None:
            return np.round(ctx.consts[0])
        x = inputs[0]
        dt = ctx.dtype_of(x)
        if dt not in ("float16", "float32", "float64"):
            raise NotImplementedError("Round of %s tensors" % dt)

        return round_half_even(x, dt)


# 1.5 * 2^(mantissa bits): adding it leaves no fraction bits, so the hardware's rounding
# (to nearest, ties to even) rounds x; subtracting it gives the rounded x back.
_MAGIC = {"float32": 1.5 * 2.0 ** 23, "float64": 1.5 * 2.0 ** 52}


def round_half_even_then_clip(x, dt):
    """round_half_even for a value the caller clips to a range within +-2^21: (x + M) - M,
    two elementwise ops in a chain that FuseOps fuses into its neighbours (round_half_even
    reads its floor three times, and a value with several readers ends a fused kernel).
    Exact for |x| < 2^22 (float32) / 2^51 (float64); a larger x comes back within a few
    units of itself, still outside the clip range. Other types: round_half_even."""
    if dt not in _MAGIC:
        return round_half_even(x, dt)
    m = _expr.const(np.array(_MAGIC[dt], dtype=dt))
    return R.subtract(R.add(x, m), m)


def round_half_even(x, dt):
    """x (a float tensor of dtype dt) rounded to the nearest integer, halves to the even one
    (numpy's rint; also QuantizeLinear's rounding)."""
    def k(v):
        return _expr.const(np.array(v, dtype=dt))
    f = R.floor(x)
    d = R.subtract(x, f)
    odd = R.floor_mod(f, k(2.0))
    up = R.add(f, k(1.0))
    return R.where(R.greater(d, k(0.5)), up, R.where(R.less(d, k(0.5)), f, R.add(f, odd)))
