"""Products with a symbolic row count (a dynamic batch: an MLP or a classifier exported with
batch "N") under the default pipeline. Their rows are padded to the register tile at
legalization, so the tiled kernel computes six (AVX2) or eight (AVX-512) rows even at
batch 1; DefaultSchedule adds a one-row variant chosen at run time for one or two rows
(default_schedule._schedule_kernel).
One compiled module is run at many batch sizes, both branches and every tail, against the
unscheduled build and numpy."""

import re

import numpy as np
from hypothesis import example, given, settings
from hypothesis import strategies as st

import tvm
from tvm import relax, tir
from tvm.relax import op as R


def _dense_relu(k, n, seed):
    """main(x: (batch, k)) = relu(x @ W + b), W and b constants; batch symbolic."""
    rng = np.random.default_rng(seed)
    w = (rng.standard_normal((k, n)) / np.sqrt(k)).astype("float32")
    b = rng.standard_normal(n).astype("float32")
    batch = tir.Var("batch", "int64")
    x = relax.Var("x", relax.TensorStructInfo([batch, k], "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        with bb.dataflow():
            out = bb.emit_output(R.nn.relu(R.add(R.matmul(x, relax.const(w)), relax.const(b))))
        bb.emit_func_output(out)
    return bb.get(), w, b


def _kernel_text(mod):
    with tvm.target.Target("llvm"):
        scheduled = relax.get_pipeline("default")(mod)
    (kernel,) = [f for name, f in scheduled.functions.items() if "matmul" in str(name)]
    return str(kernel)


@settings(max_examples=4, deadline=None)
@given(k=st.sampled_from([3, 16, 37, 64]), n=st.sampled_from([10, 16, 48, 64, 200]),
       batches=st.lists(st.integers(1, 20), min_size=3, max_size=6), seed=st.integers(0, 2**16))
@example(k=512, n=10, batches=[3, 8, 17], seed=0)  # the MLP's classifier: one column strip
def test_one_module_serves_every_batch(k, n, batches, seed):
    """The kernel branches on the row count (one or two rows: a serial loop over the real
    rows, not the padded ones); compiled once, it equals the unscheduled build and numpy at
    batch 1, 2 and any other."""
    mod, w, b = _dense_relu(k, n, seed)
    text = _kernel_text(mod)
    assert re.search(r"if \(?batch <= T\.int64\(2\)\)?:", text), text
    assert "T.serial(batch)" in text  # the one-row variant stops at the real rows
    vms = [relax.VirtualMachine(relax.build(mod, "llvm", relax_pipeline=p), tvm.cpu()) for p in ("zero", "default")]
    rng = np.random.default_rng(seed)
    for batch in [1, 2] + batches:
        x = rng.standard_normal((batch, k)).astype("float32")
        zero, default = (vm["main"](tvm.runtime.tensor(x)).numpy() for vm in vms)
        np.testing.assert_allclose(default, zero, rtol=1e-4, atol=1e-4)
        np.testing.assert_allclose(default, np.maximum(x.astype("float64") @ w + b, 0), rtol=1e-4, atol=1e-4)


def test_static_rows_have_no_run_time_branch():
    """A static batch is scheduled once, for its own row count: no branch."""
    rng = np.random.default_rng(0)
    x = relax.Var("x", relax.TensorStructInfo([5, 32], "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        with bb.dataflow():
            out = bb.emit_output(R.matmul(x, relax.const(rng.standard_normal((32, 64)).astype("float32"))))
        bb.emit_func_output(out)
    assert " if " not in _kernel_text(bb.get())
