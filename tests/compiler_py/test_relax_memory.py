"""Symbolic dimensions computed from others (the VM's shape heap and TIR shape functions) and
static memory planning (storage shared by intermediates whose lifetimes do not overlap):
results against numpy/torch on generated sizes, planned == unplanned on random graphs, the
storage counts the planner reaches, and wrong shapes at run time as ValueErrors."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import tvm
from tvm import relax, tir
from tvm.relax import op as R

F = torch.nn.functional
BIG = 2**31 - 1


def _func(params, body, attrs=None):
    bb = relax.BlockBuilder()
    with bb.function("main", params, attrs=attrs):
        with bb.dataflow():
            gv = bb.emit_output(body(bb, *params))
        bb.emit_func_output(gv)
    return bb.get()


# The lowering without StaticPlanBlockMemory: every call_tir output its own allocation (a user
# pipeline of TVM's pass names; relax.build adds nothing once the functions are lowered).
_UNPLANNED = tvm.transform.Sequential(
    [relax.transform.LegalizeOps(), relax.transform.ToNonDataflow(), relax.transform.CallTIRRewrite(),
     relax.transform.LowerAllocTensor(), relax.transform.KillAfterLastUse(),
     relax.transform.LowerRuntimeBuiltin(), relax.transform.VMShapeLower()])


def _vm(mod, **kw):
    ex = relax.build(mod, "llvm", **kw)
    return ex, relax.VirtualMachine(ex, tvm.cpu())


def _t(a):
    return tvm.runtime.tensor(a)


# ---- computed symbolic dimensions ----

def cnn_module(wt1, wt2):
    n, h, w = tir.Var("n", "int64"), tir.Var("h", "int64"), tir.Var("w", "int64")
    x = relax.Var("x", relax.TensorStructInfo([n, 3, h, w], "float32"))

    def body(bb, x):
        c = bb.emit(R.nn.relu(R.nn.conv2d(x, relax.const(wt1))))          # (h - 3) + 1
        p = bb.emit(R.nn.max_pool2d(c, 2, 2))                             # ((h - 2) - 2) // 2 + 1
        c = bb.emit(R.nn.conv2d(p, relax.const(wt2), strides=2, padding=1))
        return R.nn.avg_pool2d(c, 2, 1)
    return _func([x], body)


def cnn_ref(x, wt1, wt2):
    c = F.max_pool2d(F.relu(F.conv2d(torch.tensor(x), torch.tensor(wt1))), 2, 2)
    return F.avg_pool2d(F.conv2d(c, torch.tensor(wt2), stride=2, padding=1), 2, 1).numpy()


@pytest.fixture(scope="module")
def cnn():
    rng = np.random.default_rng(0)
    wt1 = rng.standard_normal((4, 3, 3, 3)).astype("float32")
    wt2 = rng.standard_normal((6, 4, 3, 3)).astype("float32")
    return (wt1, wt2), _vm(cnn_module(wt1, wt2))


@settings(max_examples=8, deadline=None)
@given(n=st.integers(1, 3), h=st.integers(10, 24), w=st.integers(10, 24), seed=st.integers(0, 99))
def test_cnn_with_symbolic_n_h_w_matches_torch(cnn, n, h, w, seed):
    (wt1, wt2), (ex, vm) = cnn
    x = np.random.default_rng(seed).standard_normal((n, 3, h, w)).astype("float32")
    np.testing.assert_allclose(vm["main"](_t(x)).numpy(), cnn_ref(x, wt1, wt2), rtol=1e-4, atol=1e-4)


def test_cnn_bytecode_uses_a_shape_heap_and_a_shape_function(cnn):
    _, (ex, _) = cnn
    text = ex.as_text()
    assert "vm.builtin.alloc_shape_heap" in text
    assert "@__vm_shape_func_main_0" in text


def test_too_small_images_are_value_errors_not_crashes(cnn):
    _, (_, vm) = cnn
    # h = 3: conv gives 1 row, the 2x2 pool a negative extent.
    with pytest.raises(ValueError, match="negative"):
        vm["main"](_t(np.zeros((1, 3, 3, 8), "float32")))
    with pytest.raises(ValueError, match="argument 0"):
        vm["main"](_t(np.zeros((1, 4, 9, 9), "float32")))


def test_cnn_export_runs_in_a_fresh_runtime_only_process(cnn, tmp_path):
    (wt1, wt2), (ex, _) = cnn
    path = str(tmp_path / "cnn.so")
    ex.export_library(path)
    x = np.random.default_rng(5).standard_normal((2, 3, 13, 11)).astype("float32")
    np.save(str(tmp_path / "x.npy"), x)
    script = textwrap.dedent("""
        import sys, numpy as np, tvm, tvm_ffi
        from tvm.runtime.vm import VirtualMachine
        assert tvm.base.RUNTIME_ONLY
        vm = VirtualMachine(tvm_ffi.load_module(sys.argv[1]), tvm.cpu())
        np.save(sys.argv[3], vm["main"](tvm.runtime.tensor(np.load(sys.argv[2]))).numpy())
    """)
    env = dict(os.environ, TVM_USE_RUNTIME_LIB="1")
    proc = subprocess.run([sys.executable, "-c", script, path, str(tmp_path / "x.npy"),
                           str(tmp_path / "y.npy")], env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    np.testing.assert_allclose(np.load(str(tmp_path / "y.npy")), cnn_ref(x, wt1, wt2), rtol=1e-4, atol=1e-4)


@pytest.fixture(scope="module")
def seq_ops():
    """x[1:] * 2 (n - 1 rows), concat(x, y) (n + m rows), reshape of [b, t, 4] to [b * t, 4]."""
    n, m = tir.Var("n", "int64"), tir.Var("m", "int64")
    x = relax.Var("x", relax.TensorStructInfo([n, 4], "float32"))
    y = relax.Var("y", relax.TensorStructInfo([m, 4], "float32"))

    def body(bb, x, y):
        tail = bb.emit(R.strided_slice(x, [0], [1], [BIG]))
        assert str(tail.struct_info.shape[0]) == "(n - T.int64(1))"
        both = bb.emit(R.concat([x, y], axis=0))
        return relax.Tuple([bb.emit(R.multiply(tail, relax.const(2.0))), R.nn.relu(both)])
    b_, t_ = tir.Var("b", "int64"), tir.Var("t", "int64")
    z = relax.Var("z", relax.TensorStructInfo([b_, t_, 4], "float32"))
    w = np.arange(12, dtype="float32").reshape(4, 3)
    flat = _func([z], lambda bb, z: R.matmul(bb.emit(R.reshape(z, [b_ * t_, 4])), relax.const(w)))
    return _vm(_func([x, y], body))[1], (_vm(flat)[1], w)


@settings(max_examples=8, deadline=None)
@given(n=st.integers(1, 9), m=st.integers(0, 9), seed=st.integers(0, 99))
def test_slice_n_minus_1_and_concat_n_plus_m(seq_ops, n, m, seed):
    vm = seq_ops[0]
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, 4)).astype("float32")
    y = rng.standard_normal((m, 4)).astype("float32")
    tail, both = vm["main"](_t(x), _t(y))
    assert tail.shape == (n - 1, 4) and both.shape == (n + m, 4)
    np.testing.assert_array_equal(tail.numpy(), x[1:] * 2)
    np.testing.assert_array_equal(both.numpy(), np.maximum(np.concatenate([x, y]), 0))


@settings(max_examples=8, deadline=None)
@given(b=st.integers(1, 5), t=st.integers(1, 7), seed=st.integers(0, 99))
def test_reshape_to_a_product_of_symbolic_dims(seq_ops, b, t, seed):
    vm, w = seq_ops[1]
    z = np.random.default_rng(seed).standard_normal((b, t, 4)).astype("float32")
    out = vm["main"](_t(z)).numpy()
    assert out.shape == (b * t, 3)
    np.testing.assert_allclose(out, z.reshape(b * t, 4) @ w, rtol=1e-5, atol=1e-5)


def test_mismatched_symbolic_dims_name_the_argument(seq_ops):
    vm = seq_ops[0]
    with pytest.raises(ValueError, match=r"argument 1 \(y\): expected shape \[\?, 4\], got \[2, 5\]"):
        vm["main"](_t(np.zeros((3, 4), "float32")), _t(np.zeros((2, 5), "float32")))


def test_computed_dims_of_a_parameter_are_checked():
    """x: [n], y: [n + 1]: y's length is computed from x's and checked against it."""
    n = tir.Var("n", "int64")
    x = relax.Var("x", relax.TensorStructInfo([n], "float32"))
    y = relax.Var("y", relax.TensorStructInfo([n + 1], "float32"))
    _, vm = _vm(_func([x, y], lambda bb, x, y: relax.Tuple([bb.emit(R.add(x, x)), y])))
    got = vm["main"](_t(np.ones(3, "float32")), _t(np.arange(4, dtype="float32")))
    np.testing.assert_array_equal(got[0].numpy(), np.full(3, 2, "float32"))
    np.testing.assert_array_equal(got[1].numpy(), np.arange(4, dtype="float32"))
    with pytest.raises(ValueError, match=r"argument 1 \(y\): expected shape \[4\], got \[3\]"):
        vm["main"](_t(np.ones(3, "float32")), _t(np.ones(3, "float32")))


# ---- static memory planning ----

def chain_module(ws, rows=8):
    """20 operators: matmul, relu alternating; every intermediate is used once."""
    x = relax.Var("x", relax.TensorStructInfo([rows, ws[0].shape[0]], "float32"))

    def body(bb, x):
        h = x
        for wgt in ws:
            h = bb.emit(R.nn.relu(bb.emit(R.matmul(h, relax.const(wgt)))))
        return h
    return _func([x], body)


def test_deep_chain_shares_two_storages_and_matches_the_unplanned_run():
    rng = np.random.default_rng(0)
    ws = [(rng.standard_normal((16, 16)) * 0.3).astype("float32") for _ in range(10)]
    mod = chain_module(ws)
    ex, vm = _vm(mod, relax_pipeline=relax.transform.LegalizeOps())
    ex0, vm0 = _vm(mod, relax_pipeline=_UNPLANNED)
    st_ = ex.memory_stats["main"]
    # 20 outputs, the last returned (its own allocation); 19 intermediates in 2 ping-pong storages.
    assert (st_["allocations"], st_["planned"], st_["storages"]) == (20, 19, 2)
    assert st_["planned_bytes"] == 2 * 8 * 16 * 4
    assert st_["unplanned_bytes"] == 19 * 8 * 16 * 4
    # the two shared storages, and one of its own for the returned tensor (LowerAllocTensor)
    assert ex.as_text().count("call @vm.builtin.alloc_storage") == 3
    assert "main" not in ex0.memory_stats and ex0.as_text().count("call @vm.builtin.alloc_storage") == 20
    x = rng.standard_normal((8, 16)).astype("float32")
    np.testing.assert_array_equal(vm["main"](_t(x)).numpy(), vm0["main"](_t(x)).numpy())
    # The returned tensor is not a view of a storage the next call reuses.
    first = vm["main"](_t(x))
    keep = first.numpy().copy()
    vm["main"](_t(np.ones((8, 16), "float32")))
    np.testing.assert_array_equal(first.numpy(), keep)


OPS = ["add", "multiply", "relu", "matmul", "tanh"]


@st.composite
def random_graph(draw):
    """A random DAG over [4, 4] float32 values: each node applies an operator to earlier nodes
    (any of them, so lifetimes overlap in arbitrary ways); some nodes are dataflow outputs,
    returned as a tuple after the later nodes ran (so their storage must not be reused)."""
    nodes = draw(st.lists(st.tuples(st.sampled_from(OPS), st.integers(0, 10**6), st.integers(0, 10**6),
                                    st.booleans()), min_size=1, max_size=14))
    return nodes


@settings(max_examples=20, deadline=None)
@given(nodes=random_graph(), seed=st.integers(0, 99))
def test_planning_never_changes_outputs_of_random_graphs(nodes, seed):
    x = relax.Var("x", relax.TensorStructInfo([4, 4], "float32"))
    y = relax.Var("y", relax.TensorStructInfo([4, 4], "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x, y]):
        with bb.dataflow():
            vals, outs = [x, y], []
            for k, (op, i, j, is_out) in enumerate(nodes):
                a, b = vals[i % len(vals)], vals[j % len(vals)]
                e = getattr(R, op)(a, b) if op in ("add", "multiply", "matmul") else \
                    (R.nn.relu(a) if op == "relu" else R.tanh(a))
                last = k == len(nodes) - 1
                vals.append(bb.emit_output(e) if is_out or last else bb.emit(e))
                if is_out or last:
                    outs.append(vals[-1])
        bb.emit_func_output(relax.Tuple(outs))
    mod = bb.get()
    rng = np.random.default_rng(seed)
    args = [_t(rng.standard_normal((4, 4)).astype("float32") * 0.5) for _ in range(2)]
    ex, vm = _vm(mod, relax_pipeline=relax.transform.LegalizeOps())
    _, vm0 = _vm(mod, relax_pipeline=_UNPLANNED)
    got, want = vm["main"](*args), vm0["main"](*args)
    assert len(got) == len(outs)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g.numpy(), w.numpy())
    st_ = ex.memory_stats["main"]
    assert st_["planned_bytes"] <= st_["unplanned_bytes"]


def test_symbolic_sizes_use_the_upper_bound_attribute():
    """With tir_var_upper_bound (TVM's attribute) symbolic intermediates are planned at the
    bound; a larger run-time size is a ValueError, not an overflow."""
    n = tir.Var("n", "int64")
    x = relax.Var("x", relax.TensorStructInfo([n, 8], "float32"))

    def body(bb, x):
        h = bb.emit(R.nn.relu(bb.emit(R.add(x, x))))
        return R.multiply(bb.emit(R.tanh(h)), relax.const(3.0))
    bounded = _func([x], body, attrs={"tir_var_upper_bound": {"n": 16}})
    ex, vm = _vm(bounded, relax_pipeline=relax.transform.LegalizeOps())
    assert ex.memory_stats["main"]["storages"] == 2
    assert ex.memory_stats["main"]["planned_bytes"] == 2 * 16 * 8 * 4
    ex_free, _ = _vm(_func([x], body), relax_pipeline=relax.transform.LegalizeOps())
    assert ex_free.memory_stats["main"]["storages"] == 0     # unbounded: dynamic allocations
    for rows in (1, 16):
        d = np.random.default_rng(rows).standard_normal((rows, 8)).astype("float32")
        np.testing.assert_allclose(vm["main"](_t(d)).numpy(), np.tanh(np.maximum(d + d, 0)) * 3, rtol=1e-6)
    with pytest.raises(ValueError, match="does not fit"):
        vm["main"](_t(np.zeros((17, 8), "float32")))
