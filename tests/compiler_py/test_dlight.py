"""tvm.dlight's GPU Fallback rule on single PrimFuncs, as TVM users apply it:
`with target: dl.ApplyDefaultSchedule(dl.gpu.Fallback())(mod)`. Every loop ends up under a
blockIdx/threadIdx binding (else tvm.compile for cuda refuses the function), the result
assembles for sm_80 and computes numpy's numbers when compiled for the CPU."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tvm
import tvm.dlight as dl
from tvm import te, tir
from tvm.ir import IRModule

CUDA = tvm.target.Target("cuda -arch=sm_80")


def _schedule(func):
    with CUDA:
        return dl.ApplyDefaultSchedule(dl.gpu.Fallback())(IRModule({"main": func}))


def _cpu(mod, arrays, out_shape):
    f = tvm.compile(mod, target="llvm")
    args = [tvm.runtime.tensor(a) for a in arrays] + [tvm.runtime.tensor(np.zeros(out_shape, "float32"))]
    f(*args)
    return args[-1].numpy()


def _row_softmax_like(m, n):
    """Two reductions and elementwise stages: x - max(x), exp, / sum."""
    A = te.placeholder((m, n), name="A")
    k = te.reduce_axis((0, n), "k")
    mx = te.compute((m,), lambda i: te.max(A[i, k], axis=k), name="mx")
    e = te.compute((m, n), lambda i, j: te.exp(A[i, j] - mx[i]), name="e")
    k2 = te.reduce_axis((0, n), "k2")
    s = te.compute((m,), lambda i: te.sum(e[i, k2], axis=k2), name="s")
    out = te.compute((m, n), lambda i, j: e[i, j] / s[i], name="out")
    return te.create_prim_func([A, out])


def _total_sum(n):
    A = te.placeholder((n,), name="A")
    k = te.reduce_axis((0, n), "k")
    return te.create_prim_func([A, te.compute((), lambda: te.sum(A[k], axis=k), name="B")])


def test_needs_a_target():
    with pytest.raises(ValueError, match="no target is in scope"):
        dl.ApplyDefaultSchedule(dl.gpu.Fallback())(IRModule({"main": _total_sum(8)}))


def test_unscheduled_function_is_refused_and_scheduled_one_compiles():
    func = _row_softmax_like(37, 19)
    with pytest.raises(ValueError, match="bind"):
        tvm.compile(func, target=CUDA)
    mod = _schedule(func)
    assert "tir.is_scheduled" in mod["main"].attrs
    exe = tvm.compile(mod, target=CUDA)
    assert ".entry" in exe.inspect_source("ptx")


def test_reduction_to_a_scalar_runs_in_one_thread():
    mod = _schedule(_total_sum(100))
    exe = tvm.compile(mod, target=CUDA)
    assert [tags for _, _, tags in exe.device.function_infos] == [["blockIdx.x"]]
    a = np.random.default_rng(0).standard_normal(100).astype("float32")
    np.testing.assert_allclose(_cpu(mod, [a], ()), a.sum(), rtol=1e-5)


def test_bind_refuses_a_reduction_loop_of_more_than_one_iteration():
    sch = tir.Schedule(_total_sum(100))
    (k,) = sch.get_loops(sch.get_block("B"))
    with pytest.raises(tir.ScheduleError, match="reduction"):
        sch.bind(k, "threadIdx.x")
    ko, _ = sch.split(k, [2, None])
    with pytest.raises(tir.ScheduleError, match="reduction"):
        sch.bind(ko, "blockIdx.x")


@settings(max_examples=8, deadline=None)
@given(m=st.integers(1, 300), n=st.integers(1, 40), seed=st.integers(0, 99))
def test_fallback_schedule_matches_numpy(m, n, seed):
    a = np.random.default_rng(seed).standard_normal((m, n)).astype("float32")
    e = np.exp(a - a.max(axis=1, keepdims=True))
    np.testing.assert_allclose(_cpu(_schedule(_row_softmax_like(m, n)), [a], (m, n)),
                               e / e.sum(axis=1, keepdims=True), rtol=1e-5, atol=1e-6)


def _matmul_relu(m, n, k, batch):
    shape = (lambda *s: (batch,) + s) if batch else (lambda *s: s)
    A = te.placeholder(shape(m, k), name="A")
    B = te.placeholder((k, n), name="B")
    r = te.reduce_axis((0, k), "r")
    if batch:
        C = te.compute(shape(m, n), lambda b, i, j: te.sum(A[b, i, r] * B[r, j], axis=r), name="C")
    else:
        C = te.compute((m, n), lambda i, j: te.sum(A[i, r] * B[r, j], axis=r), name="C")
    D = te.compute(C.shape, lambda *ix: tir.max(C[ix], tir.const(0.0, "float32")), name="D")
    return te.create_prim_func([A, B, D])


def test_matmul_rule_tiles_in_shared_memory_and_takes_the_epilogue():
    sch = dl.gpu.Matmul().apply(_matmul_relu(70, 33, 40, None), CUDA, False)
    blocks = [str(b) for b in sch.get_child_blocks(sch.get_block("root"))]
    assert "D" not in blocks            # relu joined the register tile's write-back
    exe = tvm.compile(sch.mod, target=CUDA)
    ptx = exe.inspect_source("ptx")
    assert ".shared" in ptx and "bar.sync" in ptx
    assert exe.device.function_infos[0][2] == ["blockIdx.x", "blockIdx.y", "threadIdx.x", "threadIdx.y"]
    assert dl.gpu.Matmul().apply(_total_sum(8), CUDA, False) is None      # not a matmul


@settings(max_examples=8, deadline=None)
@given(m=st.integers(1, 130), n=st.integers(1, 80), k=st.integers(1, 50),
       batch=st.sampled_from([None, 1, 3]), seed=st.integers(0, 99))
def test_matmul_rule_matches_numpy(m, n, k, batch, seed):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(((batch,) if batch else ()) + (m, k)).astype("float32")
    b = rng.standard_normal((k, n)).astype("float32")
    mod = dl.gpu.Matmul().apply(_matmul_relu(m, n, k, batch), CUDA, False).mod
    np.testing.assert_allclose(_cpu(mod, [a, b], a.shape[:-1] + (n,)), np.maximum(a @ b, 0),
                               rtol=1e-4, atol=1e-4)
