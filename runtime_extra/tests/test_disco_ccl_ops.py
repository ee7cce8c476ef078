"""relax.op.ccl: inference, legalization to runtime.disco.* calls, and TVM's tensor-parallel
MLP (first weight split by columns, second by rows, an allreduce between) compiled once and
run by every worker over gloo, giving the single-process result on 2 and 4 workers."""

import numpy as np
import pytest

import tvm
from tvm import relax, tir
from tvm.relax import op as R
from tvm.relax.op import ccl

from disco_testing import disco_workers, make_session


def _sinfo(expr):
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo([8, 6], "float16"))
    with bb.function("f", [x]):
        out = bb.emit(expr(x))
        bb.emit_func_output(out)
    return out.struct_info


def test_inference():
    assert [int(d) for d in _sinfo(lambda x: ccl.allreduce(x, "max")).shape] == [8, 6]
    assert [int(d) for d in _sinfo(lambda x: ccl.allgather(x, 4)).shape] == [32, 6]
    assert [int(d) for d in _sinfo(lambda x: ccl.scatter_from_worker0(x, 2)).shape] == [4, 6]
    s = _sinfo(lambda x: ccl.scatter_from_worker0(x, 3, axis=1))
    assert [int(d) for d in s.shape] == [8, 2] and str(s.dtype) == "float16"
    assert [int(d) for d in _sinfo(ccl.broadcast_from_worker0).shape] == [8, 6]
    with pytest.raises(ValueError, match="not divisible by num_workers"):
        _sinfo(lambda x: ccl.scatter_from_worker0(x, 5))
    with pytest.raises(ValueError, match="num_workers must be positive"):
        _sinfo(lambda x: ccl.allgather(x, 0))
    with pytest.raises(ValueError, match="op_type"):
        ccl.allreduce(relax.Var("y", relax.TensorStructInfo([2], "float32")), "mean")


def _tp_mlp(d, h_shard):
    """One worker's part: relu(x @ w1[:, shard]) @ w2[shard, :], summed over the workers."""
    n = tir.Var("n", "int64")
    x = relax.Var("x", relax.TensorStructInfo([n, d], "float32"))
    w1 = relax.Var("w1", relax.TensorStructInfo([d, h_shard], "float32"))
    w2 = relax.Var("w2", relax.TensorStructInfo([h_shard, d], "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x, w1, w2]):
        with bb.dataflow():
            xb = bb.emit(ccl.broadcast_from_worker0(x))
            h = bb.emit(R.nn.relu(R.matmul(xb, w1)))
            part = bb.emit(R.matmul(h, w2))
            gv = bb.emit_output(ccl.allreduce(part, "sum"))
        bb.emit_func_output(gv)
    return bb.get()


def test_legalized_to_runtime_disco_calls():
    mod = relax.transform.LegalizeOps()(_tp_mlp(4, 2))
    text = str(mod)
    assert "runtime.disco.allreduce" in text and "runtime.disco.broadcast_from_worker0" in text
    assert "relax.ccl" not in text


@pytest.mark.parametrize("kind", ["threaded", "process"])
@pytest.mark.parametrize("num_workers", [2, 4])
def test_tensor_parallel_mlp_matches_one_process(tmp_path, kind, num_workers):
    d, hidden, batch = 8, 16, 3
    rng = np.random.default_rng(num_workers)
    w1 = rng.standard_normal((d, hidden)).astype("float32")
    w2 = rng.standard_normal((hidden, d)).astype("float32")
    x = rng.standard_normal((batch, d)).astype("float32")
    expected = np.maximum(x @ w1, 0) @ w2
    shard = hidden // num_workers
    path = str(tmp_path / "tp_mlp.so")
    tvm.compile(_tp_mlp(d, shard), target="llvm").export_library(path)  # once, for every worker
    before = set(disco_workers())
    with make_session(kind, num_workers) as sess:
        sess.init_ccl("gloo")
        mod = sess.load_vm_module(path)
        dw1 = sess.empty((d, shard), "float32")
        dw2 = sess.empty((shard, d), "float32")
        for i in range(num_workers):
            dw1.debug_copy_from(i, np.ascontiguousarray(w1[:, i * shard:(i + 1) * shard]))
            dw2.debug_copy_from(i, np.ascontiguousarray(w2[i * shard:(i + 1) * shard, :]))
        dx = sess.empty((batch, d), "float32")
        dx.debug_copy_from(0, x)  # only worker 0 has the input: the program broadcasts it
        y = mod["main"](dx, dw1, dw2)
        for i in range(num_workers):
            np.testing.assert_allclose(y.debug_get_from_remote(i).numpy(), expected, rtol=1e-4,
                                       atol=1e-4)
    assert set(disco_workers()) <= before
