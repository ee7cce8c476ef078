"""Compiles the kernels compiled_checks.py runs on a GPU (run here, where the compiler and
llvmlite are; the device machine only needs the runtime): TVM-style schedules compiled for
`cuda -arch=sm_90` through both device paths (PTX from llvmlite, cubin from NVRTC), exported
as .so files into OUT_DIR with a manifest.json describing each (inputs, reference, FLOPs).

    python3 tools/gpu_check/prepare_compiled.py .devcheck/compiled
"""

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))

import tvm  # noqa: E402
from tvm import te  # noqa: E402


def elementwise(n):
    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda i: te.exp(A[i]) * 2.0 + 1.0, name="B")
    sch = tvm.tir.Schedule(te.create_prim_func([A, B]))
    bx, tx = sch.split(sch.get_loops(sch.get_block("B"))[0], [None, 256])
    sch.bind(bx, "blockIdx.x")
    sch.bind(tx, "threadIdx.x")
    return sch.mod


def row_sum(m, n):
    A = te.placeholder((m, n), name="A")
    k = te.reduce_axis((0, n), name="k")
    B = te.compute((m,), lambda i: te.sum(A[i, k], axis=k), name="B")
    sch = tvm.tir.Schedule(te.create_prim_func([A, B]))
    bx, tx = sch.split(sch.get_loops(sch.get_block("B"))[0], [None, 128])
    sch.bind(bx, "blockIdx.x")
    sch.bind(tx, "threadIdx.x")
    return sch.mod


def tiled_matmul(n, tile=16, inner=4, ktile=16):
    A = te.placeholder((n, n), name="A")
    B = te.placeholder((n, n), name="B")
    k = te.reduce_axis((0, n), name="k")
    C = te.compute((n, n), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    sch = tvm.tir.Schedule(te.create_prim_func([A, B, C]))
    blk = sch.get_block("C")
    i, j, kk = sch.get_loops(blk)
    bi, ti, ii = sch.split(i, [None, tile, inner])
    bj, tj, ji = sch.split(j, [None, tile, inner])
    ko, ki = sch.split(kk, [None, ktile])
    sch.reorder(bi, bj, ti, tj, ko, ki, ii, ji)
    sch.bind(bi, "blockIdx.y")
    sch.bind(bj, "blockIdx.x")
    sch.bind(ti, "threadIdx.y")
    sch.bind(tj, "threadIdx.x")
    local = sch.cache_write(blk, 0, "local")
    sch.reverse_compute_at(local, tj)
    for idx in (0, 1):
        shared = sch.cache_read(blk, idx, "shared")
        sch.compute_at(shared, ko)
        _, ty, tx = sch.split(sch.fuse(*sch.get_loops(shared)[-2:]), [None, tile, tile])
        sch.bind(ty, "threadIdx.y")
        sch.bind(tx, "threadIdx.x")
    sch.decompose_reduction(blk, ko)
    return sch.mod


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


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".devcheck/compiled")
