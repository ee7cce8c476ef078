"""Elementwise math in vectorized loops (DefaultSchedule splits an elementwise nest's inner
loop into vectors): libm functions with no vector form run per lane, LLVM intrinsics take
their vector form; float32 and float16, against numpy."""

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import tvm
from tvm import relax
from tvm.relax import op as R

OPS = {
    "tanh": (R.tanh, np.tanh), "sigmoid": (R.sigmoid, lambda a: 1 / (1 + np.exp(-a))),
    "erf": (R.erf, np.vectorize(math.erf)), "exp": (R.exp, np.exp),
    "power": (lambda a: R.power(a, relax.const(np.array(1.5, "float32"))), lambda a: np.abs(a) ** 1.5),
    "sqrt": (R.sqrt, np.sqrt), "atan": (R.atan, np.arctan),
}


@settings(max_examples=30, deadline=None)
@given(name=st.sampled_from(sorted(OPS)), rows=st.integers(1, 5), cols=st.sampled_from([8, 16, 24, 64]),
       dtype=st.sampled_from(["float32", "float16"]), seed=st.integers(0, 2**16))
def test_vectorized_elementwise_math(name, rows, cols, dtype, seed):
    rng = np.random.default_rng(seed)
    data = rng.uniform(0.1, 2.0, (rows * 1024, cols)).astype("float32")
    x = relax.Var("x", relax.TensorStructInfo(data.shape, dtype))
    op, ref = OPS[name]
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        with bb.dataflow():
            arg = bb.emit(R.astype(x, "float32")) if name == "power" else x
            y = bb.emit(op(arg))
            out = bb.emit_output(y)
        bb.emit_func_output(out)
    mod = bb.get()
    with tvm.target.Target("llvm"):
        lowered = relax.get_pipeline("default")(mod)
    assert any("T.vectorized" in str(f) for f in lowered.functions.values() if not isinstance(f, relax.Function))
    ex = relax.build(mod, "llvm")
    vm = relax.VirtualMachine(ex, tvm.cpu())
    got = vm["main"](tvm.runtime.tensor(data.astype(dtype))).numpy().astype("float64")
    want = ref(data.astype(dtype).astype("float64"))
    tol = 2e-3 if dtype == "float16" else 2e-5
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


# ---- the inlined float32 polynomials (compiler/src/codegen/vector_math.cc) ----------------

_ULP_LIMITS = {"exp": 2.0, "erf": 3.0, "tanh": 3.0}
_F64 = {"exp": np.exp, "erf": np.vectorize(math.erf, otypes=[np.float64]), "tanh": np.tanh}
_BUILT = {}


def _elementwise(name, cols=16):
    """A compiled (rows, cols) float32 kernel of op `name`, run through the default pipeline."""
    if name not in _BUILT:
        x = relax.Var("x", relax.TensorStructInfo([tvm.tir.Var("n", "int64"), cols], "float32"))
        bb = relax.BlockBuilder()
        with bb.function("main", [x]):
            with bb.dataflow():
                out = bb.emit_output(OPS[name][0](x))
            bb.emit_func_output(out)
        ex = relax.build(bb.get(), "llvm")
        _BUILT[name] = (ex, relax.VirtualMachine(ex, tvm.cpu()))
    return _BUILT[name][1]


def _run(name, values):
    values = np.asarray(values, "float32").ravel()
    pad = (-len(values)) % 16
    data = np.concatenate([values, np.zeros(pad, "float32")]).reshape(-1, 16)
    return _elementwise(name)["main"](tvm.runtime.tensor(data)).numpy().ravel()[: len(values)]


def _ulp_error(got, x, name):
    """Error in units of the float32 spacing at the exact result (subnormal spacing below)."""
    with np.errstate(over="ignore"):
        exact = _F64[name](x.astype(np.float64))
    finite = np.isfinite(exact) & (np.abs(exact) <= np.finfo(np.float32).max)
    spacing = np.spacing(np.abs(exact[finite]).astype(np.float32)).astype(np.float64)
    return np.abs(got[finite].astype(np.float64) - exact[finite]) / spacing, exact


def _check(name, x):
    got = _run(name, x)
    err, exact = _ulp_error(got, x, name)
    worst = int(np.argmax(err)) if err.size else 0
    assert err.size == 0 or err.max() <= _ULP_LIMITS[name], (
        "%s: %.2f ulp at x=%r" % (name, err.max(), x[np.isfinite(exact)][worst]))
    # Specials: NaN stays NaN; overflow is +inf; erf/tanh reach +-1 exactly.
    assert np.array_equal(np.isnan(got), np.isnan(x))
    big = np.isfinite(x) & ~np.isfinite(exact)
    assert np.all(got[big] == np.inf)


def test_vector_math_uses_the_inlined_polynomials():
    for name in _ULP_LIMITS:
        _elementwise(name)
        ex = _BUILT[name][0]
        assert "@tvm.vmath.%s.v" % name in ex.inspect_source("ll-raw")
        # Inlined: no libm call left (the rows are whole vectors, so there is no scalar tail).
        optimized = ex.inspect_source("ll")
        assert "tvm.vmath" not in optimized and "@%sf(" % name not in optimized


def test_vector_math_dense_sweep_and_specials():
    edges = [0.0, -0.0, 0.625, 1.0, 2.5, 3.925, 88.72, 88.7228, 88.73, -87.33, -103.9, -104.0,
             np.inf, -np.inf, np.nan, 1e-30, -1e-30, 1e-45, np.finfo(np.float32).max]
    for name in _ULP_LIMITS:
        span = {"exp": (-110.0, 90.0), "erf": (-5.0, 5.0), "tanh": (-10.0, 10.0)}[name]
        x = np.concatenate([np.linspace(*span, 400_003), np.geomspace(1e-38, 10, 20_000),
                            -np.geomspace(1e-38, 10, 20_000), edges]).astype("float32")
        with np.errstate(over="ignore"):
            x = np.concatenate([x, np.nextafter(x, np.float32(np.inf)), np.nextafter(x, np.float32(-np.inf))])
        _check(name, x)
    assert _run("erf", [np.inf, -np.inf, 3.925, 10.0]).tolist() == [1.0, -1.0, 1.0, 1.0]
    assert _run("tanh", [np.inf, -np.inf, 20.0]).tolist() == [1.0, -1.0, 1.0]
    assert _run("exp", [-np.inf, 89.0, np.inf]).tolist() == [0.0, np.inf, np.inf]


@settings(max_examples=60, deadline=None)
@given(name=st.sampled_from(sorted(_ULP_LIMITS)),
       values=st.lists(st.floats(width=32, allow_nan=True, allow_infinity=True), min_size=1, max_size=64))
def test_vector_math_any_float32(name, values):
    _check(name, np.array(values, "float32"))
