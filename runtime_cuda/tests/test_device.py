"""The CUDA device API against the fake driver: attributes, memory, copies, streams and
error mapping. The fake (cuda_testing.py) stands in for libcuda.so.1 over host memory: these
tests check the runtime's host-side logic (which driver calls, with which arguments), not
device behaviour."""

import ctypes

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tvm
import tvm_ffi

from cuda_testing import FakeDriver

FAKE = FakeDriver()


@pytest.fixture
def fail(monkeypatch):
    """fail("cuMemFree", code=1): the fake's entry point fails until the test ends."""
    def set_failure(name, code=1):
        monkeypatch.setenv("FAKE_CUDA_FAIL", name)
        monkeypatch.setenv("FAKE_CUDA_FAIL_RESULT", str(code))
    return set_failure


def test_backend_loaded_and_device_exists():
    assert "tvm_runtime_cuda" in tvm.base._LOADED_LIBS
    assert tvm.cuda(0).exist
    assert not tvm.cuda(1).exist and not tvm.cuda(-1).exist
    assert tvm.runtime.cuda_unavailable_reason() == ""


def test_attributes():
    dev = tvm.cuda(0)
    assert dev.compute_version == "9.0"
    assert dev.device_name == "Fake CUDA Device 0 (host memory)"
    assert dev.max_threads_per_block == 1024
    assert dev.warp_size == 32
    assert dev.max_shared_memory_per_block == 49152
    assert dev.multi_processor_count == 132
    assert dev.max_thread_dimensions == [1024, 1024, 64]
    assert dev.max_registers_per_block == 65536
    assert dev.max_clock_rate == 1980000
    assert dev.l2_cache_size_bytes == 62914560
    assert dev.total_global_memory == 8 << 30
    assert dev.available_global_memory == 6 << 30
    assert dev.api_version >= 13000
    assert dev.driver_version == 13000
    assert dev.gcn_arch is None
    # The raw global answers exactly what TVM's kMaxThreadDimensions does.
    assert tvm_ffi.get_global_func("runtime.GetDeviceAttr")(2, 0, 8) == "[1024, 1024, 64]"


def test_libinfo_reports_cuda():
    info = tvm.support.libinfo()
    assert info["USE_CUDA"] == "ON"
    assert info["CUDA_VERSION"].startswith("13.")
    assert info["CUDA_DRIVER"] == "available (driver 13000, 1 device(s))"
    assert "tvm_runtime_cuda" in info["LOADED_LIBS"]


def test_set_device():
    set_device = tvm_ffi.get_global_func("runtime.cuda.SetDevice")
    get_device = tvm_ffi.get_global_func("runtime.cuda.GetDevice")
    set_device(0)
    assert get_device() == 0
    with pytest.raises(ValueError, match="cuda:3 does not exist"):
        set_device(3)
    assert get_device() == 0


def test_alloc_and_free_balance():
    before = FAKE.stats().live_allocations
    tensors = [tvm.runtime.empty((n,), "float32", tvm.cuda()) for n in (0, 1, 1000)]
    assert FAKE.stats().live_allocations == before + 3
    assert all(t.device == tvm.cuda(0) for t in tensors)
    del tensors
    assert FAKE.stats().live_allocations == before


def test_alloc_errors(fail):
    fail("cuMemAlloc", 2)
    with pytest.raises(MemoryError, match="cuMemAlloc failed: CUDA_ERROR_OUT_OF_MEMORY"):
        tvm.runtime.empty((16,), "float32", tvm.cuda())
    fail("cuMemAlloc", 1)
    with pytest.raises(RuntimeError, match=r"cuMemAlloc failed: CUDA_ERROR_INVALID_VALUE \(invalid argument\)"):
        tvm.runtime.empty((16,), "float32", tvm.cuda())
    with pytest.raises(ValueError, match="cuda:5 does not exist"):
        tvm.runtime.empty((16,), "float32", tvm.cuda(5))


DTYPES = ["int8", "uint8", "int16", "int32", "int64", "float16", "float32", "float64", "bool"]


@settings(max_examples=60, deadline=None)
@given(dtype=st.sampled_from(DTYPES),
       shape=st.lists(st.integers(0, 9), min_size=0, max_size=3),
       seed=st.integers(0, 2**32 - 1))
def test_copies_round_trip_bit_exact(dtype, shape, seed):
    rng = np.random.default_rng(seed)
    raw = rng.integers(0, 256, size=int(np.prod(shape)) * np.dtype(dtype).itemsize, dtype=np.uint8)
    x = raw.view(np.uint8 if dtype == "bool" else dtype).reshape(shape)
    if dtype == "bool":
        x = (x & 1).astype(bool)
    a = tvm.runtime.tensor(x, tvm.cuda())          # host -> device
    b = a.copyto(tvm.cuda())                        # device -> device
    c = b.copyto(tvm.cpu())                         # device -> host (TensorCopyFromTo)
    tvm.cuda().sync()
    assert b.numpy().tobytes() == x.tobytes()
    assert c.numpy().tobytes() == x.tobytes()


def test_strided_copy_is_a_clear_error():
    a = tvm.runtime.tensor(np.arange(12, dtype="float32").reshape(3, 4), tvm.cuda())
    t = np.arange(12, dtype="float32").reshape(4, 3).T  # a strided host view
    with pytest.raises(ValueError, match="strided tensors are not supported"):
        tvm_ffi.get_global_func("runtime.TensorCopyFromTo")(tvm_ffi.from_dlpack(t), a)


def test_copy_errors_name_the_call(fail):
    x = np.ones(8, dtype="float32")
    a = tvm.runtime.tensor(x, tvm.cuda())
    fail("cuMemcpyHtoDAsync", 1)
    with pytest.raises(RuntimeError, match="cuMemcpyHtoDAsync failed: CUDA_ERROR_INVALID_VALUE"):
        a.copyfrom(x)
    fail("cuMemcpyDtoHAsync", 700)
    with pytest.raises(RuntimeError, match="cuMemcpyDtoHAsync failed: CUresult 700"):
        a.numpy()


def test_streams():
    dev = tvm.cuda(0)
    live = FAKE.stats().live_streams
    s = dev.create_raw_stream()
    assert s and FAKE.stats().live_streams == live + 1
    prev = dev.set_raw_stream(s)
    try:
        assert dev.get_raw_stream() == s
        a = tvm.runtime.tensor(np.arange(4, dtype="int32"), dev)
        b = a.copyto(dev)            # on the env stream
        dev.sync(s)
        np.testing.assert_array_equal(b.numpy(), [0, 1, 2, 3])
    finally:
        dev.set_raw_stream(prev)
    dev.free_raw_stream(s)
    assert FAKE.stats().live_streams == live


def test_stream_errors(fail):
    dev = tvm.cuda(0)
    fail("cuStreamCreate", 201)
    with pytest.raises(RuntimeError, match="cuStreamCreate failed: CUDA_ERROR_INVALID_CONTEXT"):
        dev.create_raw_stream()
    fail("cuStreamSynchronize", 719)
    with pytest.raises(RuntimeError, match="cuStreamSynchronize failed: CUDA_ERROR_LAUNCH_FAILED"):
        dev.sync()


def test_primary_context_is_bound_on_every_thread():
    import threading

    errors = []

    def work():
        try:
            a = tvm.runtime.tensor(np.arange(3, dtype="int64"), tvm.cuda())
            np.testing.assert_array_equal(a.numpy(), [0, 1, 2])
        except Exception as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert FAKE.stats().primary_ctx_retains == 1  # retained once per process


def test_env_allocator_gives_cuda_tensors():
    """Tensors allocated through libtvm_ffi's environment allocator (what kernels and
    Tensor::FromEnvAlloc use) come from the CUDA device API."""
    alloc = tvm_ffi.get_global_func("runtime.TensorEmpty")
    t = alloc(tvm_ffi.Shape([5]), tvm_ffi.dtype("float32"), tvm.cuda())
    assert t.device == tvm.cuda(0)


def test_workspace_allocation():
    """TVMBackendAllocWorkspace on a CUDA device goes through the device API."""
    lib = tvm.base._LOADED_LIBS["tvm_runtime"]
    lib.TVMBackendAllocWorkspace.restype = ctypes.c_void_p
    lib.TVMBackendAllocWorkspace.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_uint64,
                                             ctypes.c_int, ctypes.c_int]
    lib.TVMBackendFreeWorkspace.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_void_p]
    before = FAKE.stats().live_allocations
    p = lib.TVMBackendAllocWorkspace(2, 0, 4096, 2, 32)
    assert p
    assert lib.TVMBackendFreeWorkspace(2, 0, ctypes.c_void_p(p)) == 0
    assert FAKE.stats().live_allocations >= before  # the pool may keep it cached
