"""Disco sessions run registered functions and move tensors both ways, as threads and as
processes, with TVM's names (tvm.runtime.disco)."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import tvm
import tvm_ffi
from tvm.runtime import disco

from disco_testing import KINDS, disco_workers, make_session


def test_disco_is_usable_right_after_import_tvm():
    assert "tvm_runtime_extra" in tvm.base._LOADED_LIBS
    assert tvm.runtime.disco is disco and disco.available()
    info = tvm_ffi.get_global_func("runtime_extra.BuildInfo")()
    assert '"library": "tvm_runtime_extra"' in info


@KINDS
@pytest.mark.parametrize("num_workers", [1, 2, 4])
def test_worker_identity(kind, num_workers):
    with make_session(kind, num_workers) as sess:
        assert sess.num_workers == num_workers
        rank = sess.get_global_func("runtime.disco.worker_rank")()
        size = sess.get_global_func("runtime.disco.world_size")()
        wid = sess.get_global_func("runtime.disco.worker_id")()
        dev = sess.get_global_func("runtime.disco.device")()
        sess._sync_all()
        for i in range(num_workers):
            assert rank.debug_get_from_remote(i) == i
            assert size.debug_get_from_remote(i) == num_workers
            assert list(wid.debug_get_from_remote(i)) == [i]
            assert dev.debug_get_from_remote(i) == tvm.cpu(0)
    assert not disco_workers()


@KINDS
def test_registered_functions_and_values(kind):
    with make_session(kind, 3) as sess:
        add_one = sess.get_global_func("tests.disco.add_one")
        assert add_one(41).debug_get_from_remote(2) == 42
        rank = sess.get_global_func("runtime.disco.worker_rank")()
        chained = add_one(add_one(rank))  # DRefs as arguments: each worker's own value
        assert [chained.debug_get_from_remote(i) for i in range(3)] == [2, 3, 4]
        assert sess.get_global_func("tests.disco.add_one_float")(1.0).debug_get_from_remote(1) == 1.5
        assert sess.get_global_func("tests.disco.str")("x").debug_get_from_remote(2) == "x_suffix"
        shape = sess.get_global_func("tests.disco.shape_tuple")(tvm_ffi.Shape([1, 2]))
        assert list(shape.debug_get_from_remote(1)) == [1, 2, 4, 5]


@KINDS
@settings(max_examples=6, deadline=None)
@given(shape=st.lists(st.integers(0, 5), min_size=0, max_size=3),
       dtype=st.sampled_from(["float32", "float64", "int32", "int8", "uint8", "float16"]),
       seed=st.integers(0, 2**31 - 1))
def test_tensors_move_both_ways(kind, shape, dtype, seed):
    data = (np.random.default_rng(seed).standard_normal(shape) * 50).astype(dtype)
    sess = _shared(kind)
    remote = sess.copy_to_worker_0(data)
    back = tvm.runtime.empty(data.shape, dtype)
    sess.copy_from_worker_0(back, remote)
    sess.sync_worker_0()
    np.testing.assert_array_equal(back.numpy(), data)
    # Every worker: empty, then the debug path both ways.
    t = sess.empty(data.shape, dtype)
    for w in range(sess.num_workers):
        t.debug_copy_from(w, data)
        np.testing.assert_array_equal(t.debug_get_from_remote(w).numpy(), data)


_SESSIONS = {}


def _shared(kind):
    if kind not in _SESSIONS:
        _SESSIONS[kind] = make_session(kind, 2)
    return _SESSIONS[kind]


@pytest.fixture(scope="module", autouse=True)
def _shutdown_shared():
    yield
    for sess in _SESSIONS.values():
        sess.shutdown()
    _SESSIONS.clear()


@KINDS
def test_worker0_only_and_groups(kind):
    with make_session(kind, 4, num_groups=2) as sess:
        assert sess.num_groups == 2
        t = sess.empty((2,), "float32", worker0_only=True)
        assert [t.debug_get_from_remote(i) is None for i in range(4)] == [False, True, False, True]
        t = sess.empty((2,), "float32", worker0_only=True, in_group=False)
        assert [t.debug_get_from_remote(i) is None for i in range(4)] == [False, True, True, True]
        gid = sess.get_global_func("runtime.disco.group_id")()
        assert [gid.debug_get_from_remote(i) for i in range(4)] == [0, 0, 1, 1]


@KINDS
@pytest.mark.parametrize("dropped", [3, 100])
def test_dropped_refs_free_their_registers_in_order(kind, dropped):
    # A dropped DRef's kill reaches each worker ahead of that worker's next command: a command
    # for one worker (sync_worker_0) carries only that worker's kills, the others get theirs
    # with their next command (or on their own past 64). A reused register must hold its new
    # value on every worker.
    with make_session(kind, 3) as sess:
        rank = sess.get_global_func("runtime.disco.worker_rank")
        size = sess.get_global_func("runtime.disco.world_size")
        for _ in range(3):
            refs = [rank() for _ in range(dropped)]
            regs = sorted(r.reg_id for r in refs)
            del refs
            sess.sync_worker_0()
            sess.sync_worker_0()
            again = [size() for _ in range(dropped)]
            assert sorted(r.reg_id for r in again) == regs  # freed registers are reused
            sess._sync_all()
            for w in range(3):
                assert {r.debug_get_from_remote(w) for r in again} == {3}
            del again


def test_bad_input_is_a_typed_error():
    with pytest.raises(ValueError, match="multiple of num_groups"):
        disco.ThreadedSession(3, 2)
    with pytest.raises(ValueError, match="num_workers"):
        disco.ThreadedSession(0)
    with make_session("threaded", 2) as sess:
        f = sess.get_global_func("tests.disco.add_one")
        with pytest.raises(TypeError, match="tensors stay on the workers"):
            f(tvm.runtime.tensor(np.zeros(2, "float32")))
        with pytest.raises(TypeError, match="cannot reach a worker"):
            f({"a": 1})
        with pytest.raises(IndexError, match="out of range"):
            sess._sync_worker(2)
        with pytest.raises(ValueError, match="timeout"):
            sess.set_timeout(-1)
        with pytest.raises(ValueError, match="op must be one of"):
            sess.allreduce(None, None, op="mean")
        other = disco.ThreadedSession(1)
        with pytest.raises(ValueError, match="another session"):
            sess.call_packed(other.get_global_func("tests.disco.add_one"), 1)
        other.shutdown()
    with pytest.raises(RuntimeError, match="shut down"):
        sess.sync_worker_0()


def test_worker_builtins_refuse_non_worker_threads():
    with pytest.raises(RuntimeError, match="not a DiscoWorker thread"):
        tvm_ffi.get_global_func("runtime.disco.worker_rank")()


@KINDS
def test_init_ccl_without_a_plugin_names_what_to_install(kind):
    with make_session(kind, 2) as sess:
        # No "mpi" plugin exists (gloo's absence: test_disco_gloo, a folder without it; NCCL's
        # missing driver/library: test_disco_nccl).
        with pytest.raises(ValueError, match="runtime.disco.mpi.init_ccl is not registered"):
            sess.init_ccl("mpi")
        with pytest.raises(ValueError, match="lowercase"):
            sess.init_ccl("../x")
        x = sess.empty((2,), "float32")
        sess.allreduce(x, x, "sum")
        with pytest.raises(disco.DiscoWorkerError, match="no collective library is initialised"):
            sess._sync_all()
        # Each worker error is raised once; one still in flight may come with the next wait.
        try:
            sess._sync_all()
        except disco.DiscoWorkerError as err:
            assert "no collective library" in str(err)
        sess._sync_all()  # the session goes on after its workers' errors


def test_compiled_ccl_names_the_collective_library_this_build_has():
    info = tvm.support.libinfo()
    want = ("nccl" if info.get("USE_NCCL") == "ON"
            else "gloo" if info.get("USE_GLOO") == "ON" else "")
    assert tvm_ffi.get_global_func("runtime.disco.compiled_ccl")() == want
    assert "socket" in info["tvm_runtime_extra.DISCO_SESSIONS"].split(",")
