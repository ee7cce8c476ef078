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
