"""Device-side checks of libtvm_runtime_cuda on a real GPU (what the fake driver cannot show):
attributes, copies bit-exact, kernels from PTX / cubin / fatbin, scalar narrowing, grids,
dynamic shared memory, launch errors, streams.

Each check is a function `check_<name>(ctx)` returning a detail dict (raise on failure);
run.py runs the checks of every module it is given (compiler checks plug in the same way).
`ctx` carries the kernel images: ctx["kernels"] = {"ptx": bytes, "cubin": bytes, "fatbin": bytes}.
"""

import ctypes

import numpy as np

import tvm
from tvm.runtime.cuda_support import FunctionInfo, load_module_from_blob, pack_module_blob

H = (3, 64, 1)
I32, I64, F32, F64 = (0, 32, 1), (0, 64, 1), (2, 32, 1), (2, 64, 1)
FUNCS = {
    "vadd": FunctionInfo("vadd", [H, H, H, I32], ["blockIdx.x", "threadIdx.x"], [0] * 4),
    "scalars": FunctionInfo("scalars", [H, I32, I64, F32, F64], ["blockIdx.x"], [0] * 5),
    "grid2d": FunctionInfo("grid2d", [H], ["blockIdx.x", "blockIdx.y", "threadIdx.x"], [0]),
    "dyn_smem": FunctionInfo("dyn_smem", [H, I32],
                             ["blockIdx.x", "threadIdx.x", "tir.use_dyn_shared_memory"], [0, 0]),
}


def _module(ctx, fmt="ptx"):
    return load_module_from_blob(pack_module_blob(fmt, FUNCS, ctx["kernels"][fmt]))


def check_exists(ctx):
    status = tvm.runtime.cuda_driver_status()
    assert status["available"], status["reason"]
    assert tvm.cuda(0).exist
    return status


def check_attributes(ctx):
    d = tvm.cuda(0)
    out = {k: getattr(d, k) for k in (
        "device_name", "compute_version", "multi_processor_count", "warp_size",
        "max_threads_per_block", "max_shared_memory_per_block", "max_thread_dimensions",
        "max_registers_per_block", "max_clock_rate", "l2_cache_size_bytes",
        "total_global_memory", "available_global_memory", "api_version", "driver_version")}
    assert out["warp_size"] == 32 and out["max_threads_per_block"] == 1024
    assert out["compute_version"].count(".") == 1
    return out


def check_copies(ctx, sizes=(1, 4097, 1 << 20, 1 << 28)):
    rng = np.random.default_rng(0)
    for n in sizes:
        x = rng.integers(0, 256, n, dtype=np.uint8)
        a = tvm.runtime.tensor(x, tvm.cuda())
        b = a.copyto(tvm.cuda())
        assert b.numpy().tobytes() == x.tobytes(), n
    return {"sizes": list(sizes)}


def check_vadd_each_format(ctx):
    n = 10**6 + 3
    a = np.random.default_rng(1).standard_normal(n).astype("float32")
    b = np.random.default_rng(2).standard_normal(n).astype("float32")
    ta, tb = tvm.runtime.tensor(a, tvm.cuda()), tvm.runtime.tensor(b, tvm.cuda())
    out = {}
    for fmt in ("ptx", "cubin", "fatbin"):
        tc = tvm.runtime.empty((n,), "float32", tvm.cuda())
        _module(ctx, fmt)["vadd"](ta, tb, tc, n, (n + 255) // 256, 256)
        np.testing.assert_array_equal(tc.numpy(), a + b)
        out[fmt] = "ok"
    return out


def check_scalars(ctx):
    t = tvm.runtime.empty((32,), "uint8", tvm.cuda())
    _module(ctx)["scalars"](t, -7, 2**40 + 3, 1.1, 2.5, 1)
    raw = t.numpy().tobytes()
    got = (np.frombuffer(raw[0:4], "<i4")[0], np.frombuffer(raw[8:16], "<i8")[0],
           np.frombuffer(raw[16:20], "<f4")[0], np.frombuffer(raw[24:32], "<f8")[0])
    assert got == (-7, 2**40 + 3, np.float32(1.1), 2.5), got
    return {"values": [float(v) for v in got]}


def check_grid2d(ctx):
    gx, gy = 7, 5
    t = tvm.runtime.empty((gx * gy,), "int32", tvm.cuda())
    _module(ctx)["grid2d"](t, gx, gy, 32)
    want = np.array([y * 1000 + x for y in range(gy) for x in range(gx)], dtype="int32")
    np.testing.assert_array_equal(t.numpy(), want)
    return {"grid": [gx, gy]}


def check_dyn_smem(ctx):
    out = {}
    for nbytes in (1024, 64 * 1024):  # the second needs the >= 48 KiB opt-in
        t = tvm.runtime.empty((1,), "int32", tvm.cuda())
        _module(ctx)["dyn_smem"](t, nbytes, 1, 32, nbytes)
        assert int(t.numpy()[0]) == nbytes + 7
        out[nbytes] = "ok"
    return out


def check_launch_error(ctx):
    t = tvm.runtime.empty((4,), "float32", tvm.cuda())
    try:
        _module(ctx)["vadd"](t, t, t, 4, 1, 2048)
    except RuntimeError as e:
        assert "cuLaunchKernelEx" in str(e) and "CUDA_ERROR_INVALID_VALUE" in str(e), str(e)
        return {"error": str(e)}
    raise AssertionError("a 2048-thread block launched")


def check_streams(ctx):
    dev = tvm.cuda(0)
    n = 1 << 20
    s = dev.create_raw_stream()
    prev = dev.set_raw_stream(s)
    try:
        a = np.arange(n, dtype="float32")
        ta = tvm.runtime.tensor(a, dev)
        tc = tvm.runtime.empty((n,), "float32", dev)
        _module(ctx)["vadd"](ta, ta, tc, n, n // 256, 256)
        dev.sync(s)
        np.testing.assert_array_equal(tc.numpy(), 2 * a)
    finally:
        dev.set_raw_stream(prev)
        dev.free_raw_stream(s)
    return {"stream": hex(ctypes.c_void_p(s).value or 0)}


CHECKS = [check_exists, check_attributes, check_copies, check_vadd_each_format, check_scalars,
          check_grid2d, check_dyn_smem, check_launch_error, check_streams]
