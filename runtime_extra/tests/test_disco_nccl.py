"""The NCCL plugin (libtvm_disco_nccl.so) on this machine as it is: without a GPU or NCCL,
init_ccl("nccl") raises LibraryNotAvailableError naming what is missing and what to install,
in bounded time, for both session kinds, and the session goes on; bad device ids are
ValueErrors; the dtype and reduce-op tables (host logic) against NCCL's enum values. Where a
GPU and libnccl.so.2 are present, allreduce on one rank per GPU against numpy (skipped
otherwise, with the reason)."""

import time

import numpy as np
import pytest
import tvm_ffi
from hypothesis import given, settings
from hypothesis import strategies as st

from disco_testing import KINDS, make_session
from nccl_testing import gpu_count, gpu_missing_reason, nccl_reason, require_library
from tvm.runtime import disco

import tvm

# nccl.h: ncclInt8 0, ncclUint8 1, ncclInt32 2, ncclUint32 3, ncclInt64 4, ncclUint64 5,
# ncclFloat16 6, ncclFloat32 7, ncclFloat64 8, ncclBfloat16 9; -1: NCCL cannot reduce it.
NCCL_TYPES = {"int8": 0, "uint8": 1, "int32": 2, "uint32": 3, "int64": 4, "uint64": 5,
              "float16": 6, "float32": 7, "float64": 8, "bfloat16": 9, "int16": -1,
              "uint16": -1, "bool": -1, "float8_e4m3fn": -1, "float32x4": -1}


def _plugin_loaded():
    tvm_ffi.get_global_func("runtime.disco.probe_ccl")("nccl")  # loads the plugin
    return tvm_ffi.get_global_func("runtime.disco.nccl._nccl_dtype", allow_missing=True)


@KINDS
def test_init_ccl_without_gpu_or_nccl_says_what_is_missing(kind):
    why = nccl_reason()
    if not why:
        # A machine with a GPU and NCCL: two workers on GPUs 0 and 1 initialise where two GPUs
        # exist; with one GPU the missing second device is a typed error.
        with make_session(kind, 2) as sess:
            if gpu_count() >= 2:
                sess.init_ccl("nccl", 0, 1)
                sess._sync_all()
            else:
                with pytest.raises((disco.LibraryNotAvailableError, ValueError)):
                    sess.init_ccl("nccl", 0, 1)
            assert sess.get_global_func("runtime.disco.worker_rank")().debug_get_from_remote(1) == 1
        return
    with make_session(kind, 2) as sess:
        start = time.monotonic()
        with pytest.raises(disco.LibraryNotAvailableError) as err:
            sess.init_ccl("nccl", 0, 1)
        assert time.monotonic() - start < 20
        msg = str(err.value)
        assert msg.startswith('init_ccl("nccl") cannot run in this process')
        if "CUDA:" in msg:  # no driver here: it says so and why
            assert "CUDA driver" in msg
        if "NCCL:" in msg:
            assert "libnccl.so.2" in msg and "pip install nvidia-nccl-cu13" in msg
        assert isinstance(err.value, RuntimeError)
        # The session is still usable.
        assert sess.get_global_func("runtime.disco.worker_rank")().debug_get_from_remote(1) == 1


def test_bad_device_ids_are_value_errors():
    with disco.ThreadedSession(2) as sess:
        with pytest.raises(ValueError, match="one CUDA device id per worker"):
            sess.init_ccl("nccl", 0)
        with pytest.raises(ValueError, match="given twice"):
            sess.init_ccl("nccl", 1, 1)
        with pytest.raises(ValueError, match="< 0"):
            sess.init_ccl("nccl", 0, -1)


def test_libinfo_reports_nccl_build_and_run_time_facts():
    info = tvm.support.libinfo()
    assert info["USE_NCCL"] == "ON"
    assert info["DISCO_CCL_NCCL"] == ("available" if not nccl_reason()
                                      else "unavailable: " + nccl_reason())


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(sorted(NCCL_TYPES)))
def test_dtype_table(dtype):
    f = _plugin_loaded()
    assert f(tvm_ffi.dtype(dtype)) == NCCL_TYPES[dtype]


def test_reduce_op_table():
    _plugin_loaded()
    f = tvm_ffi.get_global_func("runtime.disco.nccl._nccl_op")
    # Disco: sum 0, prod 1, min 2, max 3, avg 4 -> ncclSum 0, ncclProd 1, ncclMin 3, ncclMax 2, ncclAvg 4
    assert [f(k) for k in range(5)] == [0, 1, 3, 2, 4]
    assert [disco.REDUCE_OPS[k] for k in ("sum", "prod", "min", "max", "avg")] == [0, 1, 2, 3, 4]
    with pytest.raises(ValueError, match="0..4"):
        f(5)


@pytest.mark.parametrize("op", ["sum", "max", "avg"])
@pytest.mark.parametrize("dtype", ["float32", "float16", "int32"])
def test_allreduce_on_every_gpu_matches_numpy(op, dtype):
    if gpu_missing_reason():
        pytest.skip("no GPU: " + gpu_missing_reason())
    require_library(nccl_reason(), "NCCL")
    n = gpu_count()
    rng = np.random.default_rng(0)
    data = [rng.integers(-8, 8, (3, 5)).astype(dtype) for _ in range(n)]
    with disco.ThreadedSession(n) as sess:
        sess.init_ccl("nccl", *range(n))
        x = sess.empty((3, 5), dtype)
        for i in range(n):
            x.debug_copy_from(i, data[i])
        y = sess.empty((3, 5), dtype)
        sess.allreduce(x, y, op)
        sess.sync_worker_0()
        ref = {"sum": np.sum, "max": np.max,
               "avg": lambda a, axis: np.sum(a, axis) / n}[op](np.stack(data), axis=0)
        got = y.debug_get_from_remote(0).numpy()
        np.testing.assert_allclose(got, ref.astype(dtype) if dtype != "int32" else
                                   np.trunc(ref).astype(dtype), rtol=1e-3)
