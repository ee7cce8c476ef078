"""Device-side checks of libtvm_runtime_extra's NVIDIA libraries on a real GPU: NCCL through
Disco (one worker per GPU present, allreduce/allgather/broadcast vs numpy, ThreadedSession and
ProcessSession) and cuBLAS (tvm.contrib.cublas.matmul vs numpy with GFLOP/s, and a module
partitioned by partition_for_cublas, compiled for the GPU, run by the VM).

libnccl.so.2 and libcublas.so.13 come from the machine's pip wheels (nvidia-nccl-cu13,
nvidia-cublas: preinstalled on the lent H200 image; 300-600 MB each, too big to carry), found
by tvm's wheel search, or from TVM_NCCL_LIBRARY / TVM_CUBLAS_LIBRARY. A missing one fails its
checks with the reason (LibraryNotAvailableError).
"""

import time

import numpy as np
import tvm_ffi

import tvm
from tvm.runtime import disco


def _gpus():
    status = tvm.runtime.cuda_driver_status()
    assert status["available"], status["reason"]
    return int(status["device_count"])


def _nccl_allreduce(kind):
    n = _gpus()
    why = tvm_ffi.get_global_func("runtime.disco.probe_ccl")("nccl")
    assert not why, why
    rng = np.random.default_rng(0)
    data = [rng.standard_normal((64, 33)).astype("float32") for _ in range(n)]
    make = disco.ThreadedSession if kind == "threaded" else disco.ProcessSession
    with make(n) as sess:
        sess.set_timeout(120)
        sess.init_ccl("nccl", *range(n))
        x, y = sess.empty((64, 33), "float32"), sess.empty((64, 33), "float32")
        for i in range(n):
            x.debug_copy_from(i, data[i])
        out = {}
        for op, ref in (("sum", np.sum), ("max", np.max), ("avg", np.mean)):
            sess.allreduce(x, y, op)
            sess.sync_worker_0()
            got = y.debug_get_from_remote(n - 1).numpy()
            np.testing.assert_allclose(got, ref(np.stack(data), axis=0), rtol=1e-5, atol=1e-5)
            out[op] = "ok"
        g = sess.empty((n * 64, 33), "float32")
        sess.allgather(x, g)
        sess.sync_worker_0()
        np.testing.assert_array_equal(g.debug_get_from_remote(0).numpy(), np.concatenate(data))
        b = sess.empty((64, 33), "float32")
        sess.broadcast_from_worker0(x, b)
        sess.sync_worker_0()
        np.testing.assert_array_equal(b.debug_get_from_remote(n - 1).numpy(), data[0])
        return {"ranks": n, "session": kind, "nccl": tvm.support.libinfo()["DISCO_CCL_NCCL"],
                **out}


def check_nccl_threaded(ctx):
    return _nccl_allreduce("threaded")


def check_nccl_process(ctx):
    return _nccl_allreduce("process")


def check_cublas_matmul(ctx):
    _gpus()
    why = tvm_ffi.get_global_func("tvm.contrib.cublas.probe")()
    assert not why, why
    f = tvm_ffi.get_global_func("tvm.contrib.cublas.matmul")
    dev = tvm.cuda(0)
    out = {}
    rng = np.random.default_rng(0)
    for dtype, odt, size in (("float32", "float32", 2048), ("float16", "float16", 4096),
                             ("bfloat16", "float32", 4096), ("int8", "int32", 4096)):
        m = n = k = size
        if dtype == "int8":
            a, b = (rng.integers(-4, 4, (m, k)).astype("int8"), rng.integers(-4, 4, (n, k)).astype("int8"))
        else:
            a = rng.standard_normal((m, k)).astype("float32")
            b = rng.standard_normal((n, k)).astype("float32")
        if dtype == "bfloat16":
            import ml_dtypes
            A = tvm.runtime.tensor(a.astype(ml_dtypes.bfloat16), dev)
            B = tvm.runtime.tensor(b.astype(ml_dtypes.bfloat16), dev)
            a = a.astype(ml_dtypes.bfloat16).astype("float32")
            b = b.astype(ml_dtypes.bfloat16).astype("float32")
        else:
            A, B = tvm.runtime.tensor(a.astype(dtype), dev), tvm.runtime.tensor(b.astype(dtype), dev)
        C = tvm.runtime.empty((m, n), odt, dev)
        f(A, B, C, False, True)  # warm-up (handle, heuristics)
        dev.sync()
        reps = 10
        start = time.perf_counter()
        for _ in range(reps):
            f(A, B, C, False, True)
        dev.sync()
        secs = (time.perf_counter() - start) / reps
        ref = a[:256].astype("float64") @ b.astype("float64").T
        got = C.numpy()[:256].astype("float64")
        tol = {"float32": 1e-3, "float16": 2e-2, "bfloat16": 2e-2, "int8": 0}[dtype]
        np.testing.assert_allclose(got, ref, rtol=tol, atol=tol * np.abs(ref).max())
        out["%s->%s %d^3" % (dtype, odt, size)] = "%.0f GFLOP/s" % (2.0 * m * n * k / secs / 1e9)
    print("cuBLAS:", out, flush=True)
    return out


def check_cublas_partitioned_module(ctx):
    from tvm import relax
    from tvm.relax import op as R
    from tvm.relax.backend.cuda import cublas

    x = relax.Var("x", relax.TensorStructInfo([64, 128], "float16"))
    w = relax.Var("w", relax.TensorStructInfo([256, 128], "float16"))
    bias = relax.Var("b", relax.TensorStructInfo([256], "float16"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x, w, bias]):
        with bb.dataflow():
            y = bb.emit(R.add(R.matmul(x, R.permute_dims(w)), bias))
            gv = bb.emit_output(R.nn.relu(y))
        bb.emit_func_output(gv)
    mod = cublas.partition_for_cublas(bb.get())
    ex = tvm.compile(mod, tvm.target.Target("cuda -arch=sm_90"))
    dev = tvm.cuda(0)
    vm = relax.VirtualMachine(ex, dev)
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(s).astype("float16") for s in [(64, 128), (256, 128), (256,)]]
    got = vm["main"](*[tvm.runtime.tensor(a, dev) for a in arrays]).numpy()
    a, b, c = (v.astype("float32") for v in arrays)
    np.testing.assert_allclose(got, np.maximum(a @ b.T + c, 0), rtol=2e-2, atol=2e-2)
    return {"composite": [str(f.attrs["Composite"]) for f in mod.functions.values()
                          if isinstance(f, relax.Function) and "Composite" in (f.attrs or {})]}


CHECKS = [check_nccl_threaded, check_nccl_process, check_cublas_matmul,
          check_cublas_partitioned_module]
