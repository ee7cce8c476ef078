"""A compiled Relax .so (tvm.compile + export_library) runs on every worker through
load_vm_module, in both session kinds; workers that disagree on a shape get a typed error."""

import numpy as np
import pytest

import tvm
from tvm import relax, tir
from tvm.relax import op as R
from tvm.runtime import disco

from disco_testing import KINDS, disco_workers, make_session


def _module(w):
    n = tir.Var("n", "int64")
    x = relax.Var("x", relax.TensorStructInfo([n, w.shape[0]], "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        with bb.dataflow():
            h = bb.emit(R.matmul(x, relax.const(w)))
            gv = bb.emit_output(R.nn.relu(h))
        bb.emit_func_output(gv)
    return bb.get()


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    w = np.random.default_rng(0).standard_normal((8, 4)).astype("float32")
    path = str(tmp_path_factory.mktemp("disco_vm") / "mlp.so")
    tvm.compile(_module(w), target="llvm").export_library(path)
    return w, path


@KINDS
def test_load_vm_module_runs_on_every_worker(kind, exported):
    w, path = exported
    with make_session(kind, 2) as sess:
        mod = sess.load_vm_module(path)
        assert isinstance(mod, disco.DModule)
        x = np.random.default_rng(1).standard_normal((3, 8)).astype("float32")
        dx = sess.empty(x.shape, "float32")
        for i in range(2):
            dx.debug_copy_from(i, x * (i + 1))
        y = mod["main"](dx)
        out = tvm.runtime.empty((3, 4), "float32")
        sess.copy_from_worker_0(out, y)
        sess.sync_worker_0()
        np.testing.assert_allclose(out.numpy(), np.maximum(x @ w, 0), rtol=1e-5)
        np.testing.assert_allclose(y.debug_get_from_remote(1).numpy(), np.maximum(2 * x @ w, 0),
                                   rtol=1e-5)
    assert not disco_workers()


@KINDS
def test_workers_that_disagree_on_a_shape_get_a_typed_error(kind, exported):
    _, path = exported
    with make_session(kind, 2) as sess:
        sess.import_python_module("disco_faults_helper")
        mod = sess.load_vm_module(path)
        x = sess.get_global_func("tests.disco_faults.zeros_by_rank")(3, 8)  # (3, 8) and (3, 9)
        mod["main"](x)
        with pytest.raises(disco.DiscoWorkerError) as info:
            sess._sync_all()
        assert info.value.worker_id == 1 and info.value.command == "call_packed"
        assert "shape" in info.value.worker_message
        # The session goes on.
        good = sess.empty((3, 8), "float32")
        y = mod["main"](good)
        assert [y.debug_get_from_remote(i).shape for i in range(2)] == [(3, 4), (3, 4)]


def test_load_vm_module_of_a_missing_file_is_a_worker_error():
    with make_session("threaded", 2) as sess:
        sess.load_vm_module("/nonexistent/lib.so")
        with pytest.raises(disco.DiscoWorkerError, match="load_vm_module|nonexistent|call_packed"):
            sess._sync_all()
