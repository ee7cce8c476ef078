"""Compiles the kernels compiled_checks.py runs on a GPU (run here, where the compiler and
llvmlite are; the device machine only needs the runtime): TVM-style schedules compiled for
`cuda -arch=sm_90` through both device paths (PTX from llvmlite, cubin from NVRTC), exported
as .so files into OUT_DIR with a manifest.json describing each (inputs, reference, FLOPs);
and two Relax models (tests/compiler_py/relax_gpu_models.py: MLP, CNN) built with
relax.build for sm_90, exported with inputs and numpy's outputs (relax.json, relax_*.npz).

    python3 tools/gpu_check/prepare_compiled.py .devcheck/compiled
"""

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))

import tvm  # noqa: E402


# The TVM-style schedules the no-GPU tests check with ptxas/cuobjdump (one definition).
sys.path.insert(0, os.path.join(HERE, "..", "..", "tests", "compiler_py"))
from test_cuda_codegen import elementwise as _elementwise  # noqa: E402
from test_cuda_codegen import row_sum as _row_sum  # noqa: E402
from test_cuda_codegen import tiled_matmul as _tiled_matmul  # noqa: E402
import relax_gpu_models  # noqa: E402  (the MLP and CNN test_relax_cuda checks without a GPU)


def elementwise(n):
    return _elementwise(n, factor=256)[0]


def row_sum(m, n):
    return _row_sum(m, n)[0]


def tiled_matmul(n):
    return _tiled_matmul(n, n, n)[0]


KERNELS = [
    # name, module, device compiler, inputs (shapes), reference (numpy expression), flops
    ("ew_ptx", elementwise(10**6 + 3), "llvm", [[10**6 + 3]], "np.exp(a0) * 2 + 1", 0),
    ("ew_nvrtc", elementwise(10**6 + 3), "nvrtc", [[10**6 + 3]], "np.exp(a0) * 2 + 1", 0),
    ("ew_launch", elementwise(1), "llvm", [[1]], "np.exp(a0) * 2 + 1", 0),
    ("rowsum_ptx", row_sum(4099, 513), "llvm", [[4099, 513]], "a0.sum(axis=1)", 0),
    ("matmul_1024_ptx", tiled_matmul(1024), "llvm", [[1024, 1024], [1024, 1024]], "a0 @ a1", 2 * 1024**3),
    ("matmul_1024_nvrtc", tiled_matmul(1024), "nvrtc", [[1024, 1024], [1024, 1024]], "a0 @ a1", 2 * 1024**3),
    ("matmul_4096_ptx", tiled_matmul(4096), "llvm", [[4096, 4096], [4096, 4096]], "a0 @ a1", 2 * 4096**3),
]


RELAX_MODELS = [("mlp", relax_gpu_models.mlp), ("cnn", relax_gpu_models.cnn)]
RELAX_BATCHES = (1, 3, 64)   # the batch is symbolic: one executable runs them all


def prepare_relax(out_dir):
    """Relax models built by relax.build for sm_90 (dlight GPU schedules), exported; per model
    relax_<name>.npz holds inputs x<i> and numpy's outputs y<i> for each batch size."""
    import numpy as np
    from tvm import relax

    names = []
    for name, make in RELAX_MODELS:
        rng = np.random.default_rng(0)
        mod, ref, shape = make(rng)
        relax.build(mod, target="cuda -arch=sm_90").export_library(
            os.path.join(out_dir, "relax_%s.so" % name))
        arrays = {}
        for i, batch in enumerate(RELAX_BATCHES):
            x = rng.standard_normal([batch] + shape[1:]).astype("float32")
            arrays["x%d" % i], arrays["y%d" % i] = x, ref(x).astype("float32")
        np.savez(os.path.join(out_dir, "relax_%s.npz" % name), **arrays)
        names.append(name)
        print("compiled relax", name, flush=True)
    with open(os.path.join(out_dir, "relax.json"), "w") as f:
        json.dump({"models": names, "batches": list(RELAX_BATCHES)}, f, indent=1)


def main(out_dir):
    os.makedirs(out_dir, exist_ok=True)
    manifest = []
    for name, mod, compiler, inputs, ref, flops in KERNELS:
        exe = tvm.compile(mod, target="cuda -arch=sm_90 -device-compiler=%s" % compiler)
        exe.export_library(os.path.join(out_dir, name + ".so"))
        manifest.append({"name": name, "inputs": inputs, "reference": ref, "flops": flops,
                         "compiler": compiler})
        print("compiled", name, flush=True)
    with open(os.path.join(out_dir, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    prepare_relax(out_dir)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".devcheck/compiled")
