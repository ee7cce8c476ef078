"""Repeated layers compiled once: DefaultSchedule merges structurally equal PrimFuncs
(relax/transform/dedup_prim_funcs.py) and redirects their calls."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import tvm
from tvm import relax
from tvm.relax import op as R


def tower(rng, repeats, width, odd_one_out):
    """`repeats` identical conv + bias + relu layers (own random weights, same shapes), then
    optionally a layer of another width."""
    x = relax.Var("x", relax.TensorStructInfo([1, width, 9, 9], "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        with bb.dataflow():
            y = x
            for _ in range(repeats):
                w = relax.const(rng.standard_normal((width, width, 3, 3)).astype("float32") / (3 * width))
                b = relax.const(rng.standard_normal((1, width, 1, 1)).astype("float32"))
                y = bb.emit(R.nn.relu(bb.emit(R.add(bb.emit(R.nn.conv2d(y, w, padding=1)), b))))
            if odd_one_out:
                w = relax.const(rng.standard_normal((width + 1, width, 1, 1)).astype("float32"))
                y = bb.emit(R.nn.relu(bb.emit(R.nn.conv2d(y, w))))
            out = bb.emit_output(y)
        bb.emit_func_output(out)
    return bb.get()


@settings(max_examples=6, deadline=None)
@given(repeats=st.integers(1, 4), width=st.sampled_from([16, 20]), odd_one_out=st.booleans(),
       seed=st.integers(0, 1000))
def test_identical_layers_share_one_kernel(repeats, width, odd_one_out, seed):
    rng = np.random.default_rng(seed)
    mod = tower(rng, repeats, width, odd_one_out)
    ex = relax.build(mod, "llvm")
    vm = relax.VirtualMachine(ex, tvm.cpu())
    x = tvm.runtime.tensor(rng.standard_normal((1, width, 9, 9)).astype("float32"))
    report = vm.profile("main", x)
    convs = [c for c in report.calls if "conv2d" in c["Name"]]
    # Every conv layer runs, and the identical ones share a kernel: at most the first and
    # the last of the tower differ from the middle ones (what fusion puts next to them), and
    # the odd layer has its own.
    assert sum(c["Count"] for c in convs) == repeats + odd_one_out, report.table()
    assert len(convs) <= min(repeats, 2) + odd_one_out, report.table()
    ref = relax.VirtualMachine(relax.build(mod, "llvm", relax_pipeline="zero"), tvm.cpu())
    np.testing.assert_allclose(vm["main"](x).numpy(), ref["main"](x).numpy(), rtol=1e-4, atol=1e-4)
