"""Fits the polynomials of the vector erf and tanh the LLVM codegen inlines
(compiler/src/codegen/vector_math.cc) and prints them as C++ arrays with their worst error.

    python3 tools/fit_vector_math.py

Each piece is a least-squares fit on Chebyshev nodes (close to minimax at these degrees),
rounded to float32 and checked in float32 Horner steps with fused multiply-adds, as the
generated code runs them. Rerun and paste the arrays when a piece or degree changes.
"""

import math

import numpy as np

_erf = np.vectorize(math.erf)
_tanh = np.tanh


def _nodes(lo, hi, n=6000):
    return np.cos(np.linspace(0, np.pi, n)) * (hi - lo) / 2 + (hi + lo) / 2


def _horner_fma32(coefs, t):
    acc = np.full_like(t, np.float32(coefs[-1]), dtype=np.float64)
    for c in coefs[-2::-1]:
        acc = (acc * t + np.float64(np.float32(c))).astype(np.float32).astype(np.float64)
    return acc


def _ulps(approx, exact):
    ulp = np.spacing(np.abs(exact).astype(np.float32)).astype(np.float64)
    return float(np.max(np.abs(approx - exact) / ulp))


def odd_piece(fn, hi, deg):
    """fn(x) = x * P(x*x) on [0, hi)."""
    x = _nodes(1e-4, hi)
    c = np.polynomial.polynomial.polyfit(x * x, fn(x) / x, deg).astype(np.float32)
    x32 = np.linspace(0, hi, 200001, dtype=np.float32)[1:].astype(np.float64)
    t = (x32 * x32).astype(np.float32).astype(np.float64)
    approx = (x32 * _horner_fma32(c, t)).astype(np.float32).astype(np.float64)
    return c, _ulps(approx, fn(x32))


def shifted_piece(fn, lo, hi, deg):
    """fn(x) = P(x - lo) on [lo, hi)."""
    x = _nodes(lo, hi)
    c = np.polynomial.polynomial.polyfit(x - lo, fn(x), deg).astype(np.float32)
    x32 = np.linspace(lo, hi, 200001, dtype=np.float32).astype(np.float64)
    t = (x32 - np.float32(lo)).astype(np.float32).astype(np.float64)
    return c, _ulps(_horner_fma32(c, t), fn(x32))


def _cxx(name, c):
    body = ", ".join("%.9ef" % v for v in c)
    return "constexpr float %s[%d] = {%s};" % (name, len(c), body)


def main():
    pieces = [
        ("kErfSmall", odd_piece(_erf, 1.0, 7), "erf, |x| < 1: x * P(x^2)"),
        ("kErfMid", shifted_piece(_erf, 1.0, 2.5, 10), "erf, 1 <= |x| < 2.5: P(|x| - 1)"),
        ("kErfLarge", shifted_piece(_erf, 2.5, 3.925, 10), "erf, 2.5 <= |x| < 3.925: P(|x| - 2.5)"),
        ("kTanhSmall", odd_piece(_tanh, 0.625, 6), "tanh, |x| < 0.625: x * P(x^2)"),
    ]
    for name, (c, err), what in pieces:
        print("// %s; worst error %.2f ulp" % (what, err))
        print(_cxx(name, c))


if __name__ == "__main__":
    main()
