"""Kernels that differ only in one dimension are compiled once (relax/transform/
generalize_prim_funcs.py, tir.GeneralizeDim): an MLP's layers of different input widths
share one scheduled kernel generic in K, bound from its arguments at run time. Generated
layer widths and batches: the results are numpy's, exported too; pairs that differ in two
dimensions, in a short one or in a vectorized loop's extent stay apart; a generic kernel
handed mismatched shapes raises the usual argument error."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tvm
from tvm import relax, te, tir
from tvm.ir import _api
from tvm.relax import op as R


def _mlp(widths, seed, batch="n"):
    """x[batch, widths[0]] through dense + bias + relu layers (one kernel each)."""
    rng = np.random.default_rng(seed)
    b = tir.Var(batch, "int64") if isinstance(batch, str) else batch
    x = relax.Var("x", relax.TensorStructInfo([b, widths[0]], "float32"))
    weights = []
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        with bb.dataflow():
            h = x
            for a, c in zip(widths, widths[1:]):
                w = (rng.standard_normal((a, c)) / np.sqrt(a)).astype("float32")
                bias = rng.standard_normal(c).astype("float32")
                weights.append((w, bias))
                h = bb.emit(R.nn.relu(R.add(R.matmul(h, relax.const(w)), relax.const(bias))))
            out = bb.emit_output(h)
        bb.emit_func_output(out)
    return bb.get(), weights


def _numpy_mlp(x, weights):
    for w, bias in weights:
        x = np.maximum(x @ w + bias, 0)
    return x


def _kernels(ex):
    return [n for n in ex.kernels.host_build.func_names if not n.startswith("__vm")]


@settings(max_examples=6, deadline=None)
@given(k=st.integers(64, 400), n=st.sampled_from([64, 96, 128, 160]), batches=st.lists(st.integers(1, 19), min_size=1, max_size=3),
       seed=st.integers(0, 2**16))
def test_layers_differing_in_k_share_one_kernel_and_compute_numpys_values(k, n, batches, seed):
    """widths [k, n, n]: layer 1 reduces over k, layer 2 over n, both to n columns: one
    kernel generic in K (unless k == n, when the two are one kernel already)."""
    mod, weights = _mlp([k, n, n], seed)
    ex = tvm.compile(mod, target="llvm")
    assert len(_kernels(ex)) == 1
    vm = relax.VirtualMachine(ex, tvm.cpu())
    for batch in batches:
        x = np.random.default_rng(seed + batch).standard_normal((batch, k)).astype("float32")
        got = vm["main"](tvm.runtime.tensor(x)).numpy()
        np.testing.assert_allclose(got, _numpy_mlp(x, weights), rtol=2e-5, atol=2e-5)


def test_the_mlp_of_the_benchmark_compiles_its_two_wide_layers_once(tmp_path):
    """784-512-512-10 with a symbolic batch: the 784- and 512-input layers are one kernel,
    the 10-column one its own; exported and reloaded it computes the same."""
    mod, weights = _mlp([784, 512, 512, 10], 3)
    ex = tvm.compile(mod, target="llvm")
    assert len(_kernels(ex)) == 2
    generic = ex.kernels.host_build.ir_module
    texts = [str(f) for f in generic.functions.values()]
    assert any("dim" in t for t in texts)  # the shape variable of the generic kernel
    path = str(tmp_path / "mlp.so")
    ex.export_library(path)
    loaded = relax.VirtualMachine(tvm.runtime.load_module(path), tvm.cpu())
    here = relax.VirtualMachine(ex, tvm.cpu())
    for batch in (1, 2, 3, 8, 9, 64):
        x = np.random.default_rng(batch).standard_normal((batch, 784)).astype("float32")
        want = _numpy_mlp(x, weights)
        np.testing.assert_allclose(here["main"](tvm.runtime.tensor(x)).numpy(), want, rtol=2e-5, atol=2e-5)
        np.testing.assert_allclose(loaded["main"](tvm.runtime.tensor(x)).numpy(), want, rtol=2e-5, atol=2e-5)


def _reduce_sum(rows, cols, vector_width=None, name="f"):
    """b[i] = sum_j a[i, j] + 1, the row loop vectorized by `vector_width` when given."""
    a = te.placeholder((rows, cols), "float32", name="a")
    j = te.reduce_axis((0, cols), name="j")
    s = te.compute((rows,), lambda i: te.sum(a[i, j], axis=j), name="s")
    b = te.compute((rows,), lambda i: s[i] + 1.0, name="b")
    func = te.create_prim_func([a, b])
    if vector_width is not None:
        sch = tir.Schedule(func)
        (loop,) = sch.get_loops(sch.get_block("b"))
        sch.vectorize(loop)
        func = sch.mod["main"]
    return func.with_attr("global_symbol", name)


def _generalize(f, g, min_dim=64):
    return _api("tir.GeneralizeDim")(f, g, min_dim, "dim")


@settings(max_examples=10, deadline=None)
@given(rows=st.integers(1, 9), cols=st.lists(st.integers(64, 300), min_size=2, max_size=2, unique=True), seed=st.integers(0, 2**16))
def test_a_generic_kernel_is_both_kernels(rows, cols, seed):
    f, g = _reduce_sum(rows, cols[0]), _reduce_sum(rows, cols[1])
    generic = _generalize(f, g)
    assert generic is not None
    lib = tvm.compile(tvm.IRModule({"f": generic.with_attr("global_symbol", "f")}), target="llvm")
    for c in cols + [cols[0] + cols[1]]:  # its own values and another
        a = np.random.default_rng(seed + c).standard_normal((rows, c)).astype("float32")
        out = tvm.runtime.tensor(np.zeros(rows, "float32"))
        lib["f"](tvm.runtime.tensor(a), out)
        np.testing.assert_allclose(out.numpy(), a.sum(axis=1) + 1, rtol=1e-4, atol=1e-4)
    with pytest.raises(ValueError, match="shape"):
        lib["f"](tvm.runtime.tensor(np.zeros((rows + 1, cols[0]), "float32")), tvm.runtime.tensor(np.zeros(rows, "float32")))


def test_pairs_that_differ_otherwise_stay_apart():
    assert _generalize(_reduce_sum(4, 100), _reduce_sum(5, 120)) is None      # two dimensions
    assert _generalize(_reduce_sum(4, 20), _reduce_sum(4, 30)) is None        # under min_dim
    assert _generalize(_reduce_sum(4, 20), _reduce_sum(4, 30), min_dim=8) is not None
    assert _generalize(_reduce_sum(4, 100), _reduce_sum(4, 100)) is None      # nothing differs
    # the differing size is a vectorized loop's extent: it must stay a constant
    assert _generalize(_reduce_sum(64, 100, 64), _reduce_sum(96, 100, 96), min_dim=8) is None
    # different computations
    a = te.placeholder((4, 100), "float32", name="a")
    other = te.create_prim_func([a, te.compute((4, 100), lambda i, j: a[i, j] * 2.0, name="b")])
    assert _generalize(_reduce_sum(4, 100), other) is None
