"""tvm.arith: simplifier, constant integer bounds, modular sets (examples and properties)."""

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tvm
from tvm import arith, tir


def _setup():
    i, j = tir.Var("i"), tir.Var("j")
    ana = arith.Analyzer()
    ana.bind(i, (0, 16))
    ana.bind(j, (0, 4))
    return ana, i, j


def test_simplify_examples():
    ana, i, j = _setup()
    cases = [
        (i * 4 + j - i * 4, "j"),
        ((i + 3) - i, "3"),
        (i * 2 + i, "(i * 3)"),
        (tir.floordiv(i * 4 + j, 4), "i"),
        (tir.floormod(i * 4 + j, 4), "j"),
        (tir.min(j, 10), "j"),
        (tir.max(j, 10), "10"),
        (tir.floordiv(j, 8), "0"),
        (tir.const(3) + tir.const(4) * tir.const(2), "11"),
        (tir.Select(j < 4, i, j), "i"),
    ]
    for expr, want in cases:
        assert str(ana.simplify(expr)) == want, (str(expr), str(ana.simplify(expr)))
    assert ana.can_prove(i * 4 + j < 64)
    assert not ana.can_prove(i * 4 + j < 63)


def test_constant_folding_wraps_like_the_hardware():
    big = tir.const(2**31 - 1, "int32")
    out = arith.Analyzer().simplify(big + tir.const(1, "int32"))
    assert out.value == -(2**31)
    f = arith.Analyzer().simplify(tir.const(1.5, "float32") * tir.const(2.0, "float32"))
    assert isinstance(f, tir.FloatImm) and f.value == 3.0


def test_const_int_bound_and_modular_set():
    ana, i, j = _setup()
    assert ana.const_int_bound(i * 4 + j) == (0, 63)
    assert ana.const_int_bound(tir.floormod(i, 5)) == (0, 4)
    assert ana.const_int_bound(tir.Var("free")) == (-(2**31), 2**31 - 1)
    assert ana.modular_set(i * 8 + 3) == (8, 3)
    assert ana.modular_set(tir.floordiv(i * 8 + 4, 4)) == (2, 1)
    assert ana.modular_set(tir.const(7)) == (0, 7)


# ---- properties: simplify preserves values, bounds contain values --------------------------

VARS = [("a", 0, 9), ("b", -5, 5), ("c", 1, 7)]


def _expr():
    leaves = st.one_of(st.sampled_from([v[0] for v in VARS]), st.integers(-6, 6))

    def extend(ch):
        return st.one_of(
            st.tuples(st.sampled_from(["+", "-", "*", "min", "max"]), ch, ch),
            st.tuples(st.sampled_from(["//", "%"]), ch, st.sampled_from([1, 2, 3, 4, 8])),
            st.tuples(st.just("sel"), ch, ch, ch, ch),
        )

    return st.recursive(leaves, extend, max_leaves=7)


def _build(t, env):
    if isinstance(t, str):
        return env[t]
    if isinstance(t, int):
        return tir.const(t, "int32")
    op = t[0]
    if op == "sel":
        return tir.Select(_build(t[1], env) < _build(t[2], env), _build(t[3], env), _build(t[4], env))
    a, b = _build(t[1], env), _build(t[2], env)
    return {"+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b,
            "min": lambda: tir.min(a, b), "max": lambda: tir.max(a, b),
            "//": lambda: tir.floordiv(a, b), "%": lambda: tir.floormod(a, b)}[op]()


def _eval(e, env):
    """Evaluates a TIR integer expression (exact Python integers)."""
    if isinstance(e, tir.IntImm):
        return int(e.value)
    if isinstance(e, tir.Var):
        return env[e.name]
    if isinstance(e, tir.Select):
        return _eval(e.true_value, env) if _eval(e.condition, env) else _eval(e.false_value, env)
    if isinstance(e, tir.Cast):
        return _eval(e.value, env)
    a, b = _eval(e.a, env), _eval(e.b, env)
    ops = {tir.Add: lambda: a + b, tir.Sub: lambda: a - b, tir.Mul: lambda: a * b,
           tir.Min: lambda: min(a, b), tir.Max: lambda: max(a, b),
           tir.FloorDiv: lambda: a // b, tir.FloorMod: lambda: a % b,
           tir.LT: lambda: int(a < b), tir.LE: lambda: int(a <= b), tir.GT: lambda: int(a > b),
           tir.GE: lambda: int(a >= b), tir.EQ: lambda: int(a == b), tir.NE: lambda: int(a != b)}
    return ops[type(e)]()


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(tree=_expr(), seed=st.integers(0, 2**31 - 1))
def test_simplify_preserves_value_and_bounds_hold(tree, seed):
    env = {name: tir.Var(name) for name, _, _ in VARS}
    ana = arith.Analyzer()
    for name, lo, hi in VARS:
        ana.bind(env[name], (lo, hi - lo + 1))
    expr = _build(tree, env)
    simple = ana.simplify(expr)
    bound = ana.const_int_bound(expr)
    mod = ana.modular_set(expr)
    rng = np.random.default_rng(seed)
    for _ in range(20):
        vals = {name: int(rng.integers(lo, hi + 1)) for name, lo, hi in VARS}
        want = _eval(expr, vals)
        assert _eval(simple, vals) == want, (str(expr), str(simple), vals)
        assert bound.min_value <= want <= bound.max_value, (str(expr), bound, vals)
        if mod.coeff == 0:
            assert want == mod.base, (str(expr), mod)
        else:
            assert (want - mod.base) % mod.coeff == 0, (str(expr), mod, want)
