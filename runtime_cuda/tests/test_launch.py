"""Kernel launches against the fake driver: the bytes of every parameter handed to
cuLaunchKernelEx (pointers, narrowing), grid/block extents, dynamic shared memory (and its
opt-in attribute at >= 48 KiB), the stream, lazy per-device module loading, and the errors.
The fake stands in for libcuda.so.1 to check this host-side logic only; it runs no GPU code
(fake_vadd_f32/fake_fill_i32 are emulated on the host so results can be checked)."""

import struct

import numpy as np
import pytest

import tvm
import tvm_ffi
from tvm.runtime.cuda_support import load_module_from_blob

from cuda_testing import FakeDriver, PTX, test_blob

FAKE = FakeDriver()
MOD = load_module_from_blob(test_blob())


@pytest.fixture
def fail(monkeypatch):
    def set_failure(name, code=1):
        monkeypatch.setenv("FAKE_CUDA_FAIL", name)
        monkeypatch.setenv("FAKE_CUDA_FAIL_RESULT", str(code))
    return set_failure


def test_vadd_runs_with_pointer_arguments():
    n = 1000
    a, b = np.arange(n, dtype="float32"), np.full(n, 0.5, dtype="float32")
    ta, tb = tvm.runtime.tensor(a, tvm.cuda()), tvm.runtime.tensor(b, tvm.cuda())
    tc = tvm.runtime.empty((n,), "float32", tvm.cuda())
    MOD["fake_vadd_f32"](ta, tb, tc, n, (n + 127) // 128, 128)
    launch = FAKE.last_launch()
    assert launch.name == b"fake_vadd_f32"
    assert list(launch.grid) == [8, 1, 1] and list(launch.block) == [128, 1, 1]
    assert launch.shared_mem_bytes == 0
    params = launch.param_bytes()
    assert params[:3] == [struct.pack("<Q", t.data_ptr()) for t in (ta, tb, tc)]
    assert params[3] == struct.pack("<i", n)
    np.testing.assert_array_equal(tc.numpy(), a + b)


def test_scalar_packing_and_narrowing():
    ptr = 0x1234_5678_9ABC
    MOD["scalars"](-7, 2**40 + 3, 1.1, 2.5, None,
                   255, 65535, 2**32 - 1, 2, 3, 4, 32, 2, 1)
    p = FAKE.last_launch().param_bytes()
    assert p[0] == struct.pack("<i", -7)
    assert p[1] == struct.pack("<q", 2**40 + 3)
    assert p[2] == struct.pack("<f", 1.1)            # float32 narrowed from the float64
    assert p[3] == struct.pack("<d", 2.5)
    assert p[4] == struct.pack("<Q", 0)              # None -> NULL
    assert p[5] == bytes([255]) and p[6] == struct.pack("<H", 65535)
    assert p[7] == struct.pack("<I", 2**32 - 1)
    launch = FAKE.last_launch()
    assert list(launch.grid) == [2, 3, 4] and list(launch.block) == [32, 2, 1]
    import ctypes
    MOD["scalars"](1, 2, 3, 4.0, ctypes.c_void_p(ptr), 0, 0, 0, 1, 1, 1, 1, 1, 1)
    p = FAKE.last_launch().param_bytes()
    assert p[2] == struct.pack("<f", 3.0) and p[3] == struct.pack("<d", 4.0)  # ints widen
    assert p[4] == struct.pack("<Q", ptr)


def test_nonpositive_extents_mean_one():
    MOD["scalars"](0, 0, 0.0, 0.0, None, 0, 0, 0, 0, -5, 1, 0, -1, 7)
    launch = FAKE.last_launch()
    assert list(launch.grid) == [1, 1, 1] and list(launch.block) == [1, 1, 7]


def test_out_of_range_scalars():
    with pytest.raises(ValueError, match=r"argument 0: 2147483648 does not fit int32"):
        MOD["scalars"](2**31, 0, 0.0, 0.0, None, 0, 0, 0, 1, 1, 1, 1, 1, 1)
    with pytest.raises(ValueError, match=r"argument 5: 256 does not fit uint8"):
        MOD["scalars"](0, 0, 0.0, 0.0, None, 256, 0, 0, 1, 1, 1, 1, 1, 1)


def test_dynamic_shared_memory():
    p = tvm.runtime.empty((16,), "float32", tvm.cuda())
    MOD["dyn_smem"](p, 1, 32, 1024)
    launch = FAKE.last_launch()
    assert launch.shared_mem_bytes == 1024 and launch.max_dynamic_shared_attr == -1
    MOD["dyn_smem"](p, 1, 32, 64 * 1024)  # >= 48 KiB: opt in first
    launch = FAKE.last_launch()
    assert launch.shared_mem_bytes == 65536 and launch.max_dynamic_shared_attr == 65536


def test_launch_tag_variants():
    """`tir.` and `tirx.` spellings; flags take no argument."""
    from tvm.runtime.cuda_support import FunctionInfo

    funcs = {"dyn_smem": FunctionInfo("dyn_smem", [(3, 64, 1)],
                                      ["blockIdx.x", "tirx.use_programtic_dependent_launch",
                                       "threadIdx.x", "tir.use_dyn_shared_memory"], [0])}
    mod = load_module_from_blob(test_blob(functions=funcs))
    mod["dyn_smem"](None, 3, 64, 100)
    launch = FAKE.last_launch()
    assert list(launch.grid)[0] == 3 and launch.block[0] == 64 and launch.shared_mem_bytes == 100


def test_wrong_argument_count_and_types():
    with pytest.raises(TypeError, match=r"CUDA kernel `fake_vadd_f32` expects 6 arguments "
                                        r"\(4 kernel arguments \+ 2 launch extents\), got 3"):
        MOD["fake_vadd_f32"](None, None, None)
    with pytest.raises(TypeError, match="CUDA kernel `fake_vadd_f32` argument 3: expected int32, got float"):
        MOD["fake_vadd_f32"](None, None, None, 1.5, 1, 1)
    with pytest.raises(TypeError, match="CUDA kernel `fake_vadd_f32` argument 0: expected handle64, got str"
                       "|argument 0: expected handle64, got object"):
        MOD["fake_vadd_f32"]("x", None, None, 1, 1, 1)
    with pytest.raises(TypeError, match="launch extent 1: expected int, got float"):
        MOD["fake_vadd_f32"](None, None, None, 1, 1, 2.0)
    host = tvm.runtime.tensor(np.zeros(4, dtype="float32"))
    with pytest.raises(ValueError, match="argument 0: the tensor is not in CUDA-accessible memory"):
        MOD["fake_vadd_f32"](host, None, None, 1, 1, 1)


def test_launch_errors_name_the_call(fail):
    fail("cuLaunchKernelEx", 1)
    with pytest.raises(RuntimeError, match=r"cuLaunchKernelEx \(kernel `fake_fill_i32`, grid \(1, 1, 1\), "
                                           r"block \(4, 1, 1\), .*\) failed: CUDA_ERROR_INVALID_VALUE"):
        MOD["fake_fill_i32"](None, 1, 4, 1, 4)


def test_module_load_errors(fail):
    fail("cuModuleLoadData", 222)
    mod = load_module_from_blob(test_blob())
    with pytest.raises(RuntimeError, match="cuModuleLoadData failed: CUDA_ERROR_UNSUPPORTED_PTX_VERSION"):
        mod["fake_fill_i32"](None, 1, 4, 1, 4)


def test_missing_kernel_in_image():
    from cuda_testing import FUNCTIONS

    mod = load_module_from_blob(test_blob(functions={"nope": FUNCTIONS["dyn_smem"]._replace(name="nope")}))
    with pytest.raises(RuntimeError, match="cuModuleGetFunction failed: CUDA_ERROR_NOT_FOUND"):
        mod["nope"](None, 1, 1, 0)


def test_ptx_reaches_the_driver_nul_terminated_and_loads_lazily_once():
    FAKE.reset()
    mod = load_module_from_blob(test_blob())
    assert FAKE.stats().module_loads == 0  # lazy: nothing until the first launch
    mod["fake_fill_i32"](None, 1, 4, 1, 4)
    mod["fake_fill_i32"](None, 1, 4, 1, 4)
    mod["fake_vadd_f32"](None, None, None, 0, 1, 1)
    stats = FAKE.stats()
    assert stats.module_loads == 1
    assert stats.last_image_size == len(PTX)  # strlen == length: NUL right after the text


def test_module_unloads_when_released():
    FAKE.reset()
    mod = load_module_from_blob(test_blob())
    f = mod["fake_fill_i32"]
    f(None, 1, 4, 1, 4)
    del mod
    f(None, 1, 4, 1, 4)  # the function keeps its module alive
    assert FAKE.stats().module_unloads == 0
    del f
    assert FAKE.stats().module_unloads == 1


def test_launch_uses_the_env_stream():
    dev = tvm.cuda(0)
    s = dev.create_raw_stream()
    prev = dev.set_raw_stream(s)
    try:
        MOD["fake_fill_i32"](None, 1, 4, 1, 4)
        assert FAKE.last_launch().stream == s
    finally:
        dev.set_raw_stream(prev)
        dev.free_raw_stream(s)
    MOD["fake_fill_i32"](None, 1, 4, 1, 4)
    assert FAKE.last_launch().stream in (None, 0, prev)


def test_fill_result():
    t = tvm.runtime.empty((10,), "int32", tvm.cuda())
    MOD["fake_fill_i32"](t, 42, 10, 1, 16)
    np.testing.assert_array_equal(t.numpy(), np.full(10, 42, dtype="int32"))
