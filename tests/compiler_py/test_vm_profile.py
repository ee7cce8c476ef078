"""VirtualMachine.profile (TVM's vm.profile): one run of a function with every packed call
timed, summed per callee into a tvm.runtime.profiling.Report."""

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tvm
from tvm import relax
from tvm.relax import op as R


def mlp(n_layers, width):
    x = relax.Var("x", relax.TensorStructInfo([2, width], "float32"))
    bb = relax.BlockBuilder()
    rng = np.random.default_rng(n_layers)
    with bb.function("main", [x]):
        with bb.dataflow():
            y = x
            for _ in range(n_layers):
                w = relax.const(rng.standard_normal((width, width)).astype("float32"))
                y = bb.emit(R.nn.relu(bb.emit(R.matmul(y, w))))
            out = bb.emit_output(y)
        bb.emit_func_output(out)
    return bb.get()


@settings(max_examples=8, deadline=None)
@given(n_layers=st.integers(1, 4), width=st.sampled_from([8, 33]))
def test_profile_counts_every_kernel_call(n_layers, width):
    vm = relax.VirtualMachine(relax.build(mlp(n_layers, width), "llvm"), tvm.cpu())
    x = tvm.runtime.tensor(np.ones((2, width), "float32"))
    report = vm.profile("main", x)
    kernels = [c for c in report.calls if not c["Name"].startswith(("vm.builtin", "__vm_shape_func"))]
    # One fused matmul + relu kernel per layer: identical layers share one PrimFunc or not,
    # but the calls add up to the layer count.
    assert sum(c["Count"] for c in kernels) == n_layers
    assert all(c["Duration (us)"] >= 0 for c in report.calls)
    assert report.total_us >= sum(c["Duration (us)"] for c in report.calls)
    assert report.calls == sorted(report.calls, key=lambda c: -c["Duration (us)"])
    text = report.table()
    assert all(c["Name"] in text for c in report.calls) and "Total" in text
    assert json.loads(report.json())["calls"][0]["Name"] == report.calls[0]["Name"]
    # Profiling leaves the VM as it was: a plain call afterwards gives the same numbers.
    np.testing.assert_allclose(vm["main"](x).numpy(), vm["main"](x).numpy())


def test_profile_bad_input():
    vm = relax.VirtualMachine(relax.build(mlp(1, 8), "llvm"), tvm.cpu())
    with pytest.raises(ValueError, match="no bytecode function"):
        vm.profile("nope", tvm.runtime.tensor(np.ones((2, 8), "float32")))
    with pytest.raises(TypeError, match="takes 1 arguments"):
        vm.profile("main")
    # The failed runs left the VM usable and not stuck in profiling mode.
    assert len(vm.profile("main", tvm.runtime.tensor(np.ones((2, 8), "float32"))).calls) > 0
