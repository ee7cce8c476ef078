"""Host-side logic of the NCCL plugin, run against the fake CUDA driver
(runtime_cuda/tests/fake_driver: host memory standing in for libcuda.so.1, so that binding a
worker to "its GPU" and making its stream run here; no GPU code runs and NCCL is never
called): the unique id and device ids reach every worker intact through the session
(hypothesis: generated ids and device assignments, both session kinds), each worker's default
device becomes its GPU, and with a driver present init_ccl blames only libnccl.so.2, or the
file TVM_NCCL_LIBRARY names."""

import os
import subprocess
import sys

import pytest
import tvm_ffi
from hypothesis import given, settings
from hypothesis import strategies as st

from disco_testing import make_session
from nccl_testing import load_plugin_everywhere
from tvm.runtime import disco

import tvm

assert os.environ.get("TVM_CUDA_DRIVER_LIBRARY"), "run under the fake driver (BUILD.bazel)"
assert os.environ.get("FAKE_CUDA_DEVICE_COUNT") == "4"


@settings(max_examples=8, deadline=None)
@given(uid=st.binary(min_size=128, max_size=128),
       devices=st.permutations([0, 1, 2, 3]).map(lambda p: p[:2]),
       kind=st.sampled_from(["threaded", "process"]))
def test_unique_id_and_devices_reach_every_worker(uid, devices, kind):
    with make_session(kind, 2) as sess:
        load_plugin_everywhere(sess, "nccl")
        distribute = tvm_ffi.get_global_func("runtime.disco.nccl._distribute_unique_id")
        distribute(sess, tvm_ffi.Shape(list(devices)), uid)
        got_uid = sess.get_global_func("runtime.disco.nccl._worker_unique_id")()
        got_dev = sess.get_global_func("runtime.disco.nccl._worker_device_id")()
        dev = sess.get_global_func("runtime.disco.device")()
        for w in range(2):
            assert bytes(got_uid.debug_get_from_remote(w)) == uid
            assert got_dev.debug_get_from_remote(w) == devices[w]
            d = dev.debug_get_from_remote(w)
            assert (d.dlpack_device_type(), d.index) == (2, devices[w])  # kDLCUDA
        sess.get_global_func("runtime.disco.nccl._reset_worker")()
        sess.sync_worker_0()


def test_a_device_id_past_the_gpus_is_named():
    with disco.ThreadedSession(2) as sess:
        with pytest.raises(disco.LibraryNotAvailableError, match="device id 7 asked for, but only 4"):
            sess.init_ccl("nccl", 0, 7)


_CHILD = """
import tvm
from tvm.runtime import disco
with disco.ThreadedSession(2) as sess:
    try:
        sess.init_ccl("nccl", 0, 1)
    except disco.LibraryNotAvailableError as e:
        print(e)
"""


@pytest.mark.parametrize("nccl_env", [None, "/nonexistent/libnccl.so.2"])
def test_with_a_driver_only_nccl_is_blamed(nccl_env):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    env.pop("TVM_NCCL_LIBRARY", None)
    if nccl_env:
        env["TVM_NCCL_LIBRARY"] = nccl_env
    out = subprocess.run([sys.executable, "-c", _CHILD], capture_output=True, text=True,
                         env=env, timeout=120)
    msg = out.stdout
    assert out.returncode == 0, out.stderr
    assert "NCCL: cannot load libnccl.so.2" in msg and "CUDA:" not in msg, msg
    assert "pip install nvidia-nccl-cu13" in msg
    if nccl_env:
        assert "TVM_NCCL_LIBRARY=/nonexistent/libnccl.so.2" in msg


def test_ops_before_init_ccl_say_so():
    with disco.ThreadedSession(1) as sess:
        load_plugin_everywhere(sess, "nccl")
        x = sess.empty((2,), "float32")
        f = sess.get_global_func("runtime.disco.nccl.allreduce")
        f(x, 0, True, x)
        with pytest.raises(disco.DiscoWorkerError, match="NCCL is not initialised"):
            sess.sync_worker_0()
