"""Device checks of kernels tvm.compile made for `cuda -arch=sm_90` (prepared by
prepare_compiled.py into compiled/): each exported .so is loaded by the runtime alone, run on
the GPU and compared with numpy; figures: launch overhead of a 1-element kernel, compiled fp32
matmul GFLOP/s against cuBLAS (torch.matmul) in the same run; Relax models (MLP, CNN) run by
the VM on the GPU against numpy."""

import json
import os
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
DIR = os.path.join(HERE, "compiled")


def _manifest():
    with open(os.path.join(DIR, "manifest.json")) as f:
        return json.load(f)


def _run(entry, seed=0):
    import tvm
    import tvm_ffi

    lib = tvm_ffi.load_module(os.path.join(DIR, entry["name"] + ".so"))
    rng = np.random.default_rng(seed)
    arrays = [rng.standard_normal(s).astype("float32") for s in entry["inputs"]]
    env = {"np": np}
    env.update({"a%d" % i: a for i, a in enumerate(arrays)})
    want = eval(entry["reference"], env)  # noqa: S307 - our own manifest
    dev = tvm.cuda(0)
    args = [tvm.runtime.tensor(a, dev) for a in arrays]
    out = tvm.runtime.empty(list(np.shape(want)), "float32", dev)
    lib["main"](*args, out)
    return lib, args, out, want


def check_compiled_kernels_match_numpy(ctx):
    detail = {}
    for entry in _manifest():
        if entry["name"].startswith("matmul_4096"):
            continue  # timed below; its numpy reference alone takes seconds
        _, _, out, want = _run(entry)
        got = out.numpy()
        err = float(np.max(np.abs(got - want)) / (np.max(np.abs(want)) + 1e-30))
        detail[entry["name"]] = err
        if err > 1e-4:
            raise AssertionError("%s: relative error %g" % (entry["name"], err))
    return detail


def check_launch_overhead(ctx):
    import torch

    entry = [e for e in _manifest() if e["name"] == "ew_launch"][0]
    lib, args, out, _ = _run(entry)
    f = lib["main"]
    for _ in range(100):
        f(*args, out)
    torch.cuda.synchronize()
    n = 2000
    t = time.perf_counter()
    for _ in range(n):
        f(*args, out)
    torch.cuda.synchronize()
    ours = (time.perf_counter() - t) / n * 1e6
    x = torch.zeros(1, device="cuda")
    for _ in range(100):
        torch.exp(x)
    torch.cuda.synchronize()
    t = time.perf_counter()
    for _ in range(n):
        torch.exp(x)
    torch.cuda.synchronize()
    theirs = (time.perf_counter() - t) / n * 1e6
    return {"ours_us_per_call": round(ours, 2), "torch_exp_us_per_call": round(theirs, 2)}


def check_matmul_gflops_vs_cublas(ctx):
    import torch

    out = {}
    for entry in _manifest():
        if not entry["name"].startswith("matmul"):
            continue
        n = entry["inputs"][0][0]
        lib, args, c, _ = _run(entry) if n <= 1024 else (None, None, None, None)
        if lib is None:
            import tvm
            import tvm_ffi
            lib = tvm_ffi.load_module(os.path.join(DIR, entry["name"] + ".so"))
            dev = tvm.cuda(0)
            args = [tvm.runtime.empty([n, n], "float32", dev) for _ in range(2)]
            c = tvm.runtime.empty([n, n], "float32", dev)
        f = lib["main"]
        f(*args, c)
        torch.cuda.synchronize()
        reps = 10
        t = time.perf_counter()
        for _ in range(reps):
            f(*args, c)
        torch.cuda.synchronize()
        ours = entry["flops"] * reps / (time.perf_counter() - t) / 1e9
        a = torch.randn(n, n, device="cuda")
        b = torch.randn(n, n, device="cuda")
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.matmul(a, b)
        torch.cuda.synchronize()
        t = time.perf_counter()
        for _ in range(reps):
            torch.matmul(a, b)
        torch.cuda.synchronize()
        cublas = entry["flops"] * reps / (time.perf_counter() - t) / 1e9
        out[entry["name"]] = {"ours_gflops": round(ours, 1), "cublas_fp32_gflops": round(cublas, 1),
                              "ratio": round(ours / cublas, 3)}
    return out


def check_relax_models(ctx):
    """Each Relax model's exported .so in the runtime-only process: the VM on tvm.cuda(0)
    (weights uploaded as constants, every kernel a dlight GPU schedule) against numpy, for
    each batch size prepare_compiled.py saved (one executable: the batch is symbolic)."""
    import tvm
    import tvm_ffi
    from tvm.runtime.vm import VirtualMachine

    with open(os.path.join(DIR, "relax.json")) as f:
        spec = json.load(f)
    detail = {}
    for name in spec["models"]:
        vm = VirtualMachine(tvm_ffi.load_module(os.path.join(DIR, "relax_%s.so" % name)),
                            tvm.cuda(0))
        data = np.load(os.path.join(DIR, "relax_%s.npz" % name))
        for i, batch in enumerate(spec["batches"]):
            x, want = data["x%d" % i], data["y%d" % i]
            got = vm["main"](tvm.runtime.tensor(x, tvm.cuda(0))).numpy()
            err = float(np.max(np.abs(got - want)))
            detail["%s_batch%d_max_abs_err" % (name, batch)] = err
            np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5,
                                       err_msg="%s batch %d" % (name, batch))
    return detail


CHECKS = [check_compiled_kernels_match_numpy, check_relax_models, check_launch_overhead,
          check_matmul_gflops_vs_cublas]
