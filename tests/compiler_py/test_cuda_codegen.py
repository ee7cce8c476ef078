"""CUDA code generation without a GPU: TE kernels scheduled the way TVM's tutorials do it
(split + bind, cache_read "shared" + compute_at, cache_write "local" + reverse_compute_at)
compile for `cuda -arch=sm_80/sm_90`; every PTX assembles with ptxas, every kernel is an entry
symbol whose parameters (cuobjdump's EIATTR_KPARAM_INFO) match the launch metadata in the
module blob; the host code checks its arguments; bad schedules give clear errors.

What needs the device (kernel results) is in tools/gpu_check.sh. The numbers of each GPU
schedule are checked here by compiling the same schedule for the CPU, where loops bound to
threads run as loops (this checks the schedule and the regions; the PTX is checked by ptxas).
"""

import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tvm
from tvm import te
from tvm.driver import cuda as cuda_build

ARCHS = ("sm_80", "sm_90")


def _tool(name):
    """A CUDA tool from PATH, $CUDA_HOME, /usr/local/cuda*, or a pip wheel (nvidia/cu13/bin)."""
    cands = [shutil.which(name)]
    for root in [os.environ.get("CUDA_HOME"), "/usr/local/cuda"] + sorted(glob.glob("/usr/local/cuda-*")):
        if root:
            cands.append(os.path.join(root, "bin", name))
    import site
    for sp in site.getsitepackages():
        cands += glob.glob(os.path.join(sp, "nvidia", "*", "bin", name))
    for c in cands:
        if c and os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    raise AssertionError("%s not found: install_deps.sh installs it (CUDA toolkit or the "
                         "nvidia-cuda-cuobjdump wheel)" % name)


def ptxas(ptx, arch, tmp):
    src = os.path.join(tmp, "k_%s.ptx" % arch)
    out = os.path.join(tmp, "k_%s.cubin" % arch)
    with open(src, "w") as f:
        f.write(ptx)
    proc = subprocess.run([_tool("ptxas"), "-arch=" + arch, "-v", src, "-o", out],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return out, proc.stderr


def entry_symbols(cubin):
    out = subprocess.run([_tool("cuobjdump"), "--dump-elf-symbols", cubin], capture_output=True,
                         text=True, check=True).stdout
    return {line.split()[-1] for line in out.splitlines()
            if "STT_FUNC" in line and "STB_GLOBAL" in line and "STO_ENTRY" in line}


def kernel_params(cubin):
    """{kernel: [(ordinal, offset, size)]} from EIATTR_KPARAM_INFO."""
    out = subprocess.run([_tool("cuobjdump"), "-elf", cubin], capture_output=True, text=True,
                         check=True).stdout
    params, current = {}, None
    for line in out.splitlines():
        m = re.match(r"\.nv\.info\.(\w+)", line.strip())
        if m:
            current = m.group(1)
            params.setdefault(current, [])
        m = re.search(r"Ordinal\s*:\s*0x([0-9a-f]+)\s+Offset\s*:\s*0x([0-9a-f]+)\s+Size\s*:\s*0x([0-9a-f]+)", line)
        if m and current:
            params[current].append(tuple(int(g, 16) for g in m.groups()))
    return {k: sorted(v) for k, v in params.items() if v}


def expected_params(arg_types):
    """Ordinal/offset/size the launch packs: each argument aligned to its own size."""
    out, off = [], 0
    for i, (code, bits, lanes) in enumerate(arg_types):
        size = max(1, bits * lanes // 8)
        off = (off + size - 1) // size * size
        out.append((i, off, size))
        off += size
    return out


def check_device_code(exe, tmp, arch):
    ptx = exe.inspect_source("ptx")
    assert ptx.lstrip().startswith("//") and ".target %s" % arch in ptx
    cubin, log = ptxas(ptx, arch, tmp)
    fmt, infos, code = cuda_build.unpack_blob(exe.device.blob)
    assert fmt == "ptx" and code.decode() == ptx
    names = [i[0] for i in infos]
    assert entry_symbols(cubin) == set(names), "every kernel must be a .entry (launchable)"
    got = kernel_params(cubin)
    for name, arg_types, tags, extra in infos:
        assert got.get(name, []) == expected_params(arg_types), name
        assert tags and all(t.split(".")[0] in ("blockIdx", "threadIdx") for t in tags)
        assert extra == [0] * len(arg_types)
        assert re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name)
    return log


def check_cubin(exe, tmp, infos):
    """The CUDA C path: NVRTC's cubin has the same kernels and parameters as the PTX path."""
    fmt, back, code = cuda_build.unpack_blob(exe.device.blob)
    assert fmt == "cubin" and code[:4] == b"\x7fELF"
    assert [(n, a, t) for n, a, t, _ in back] == [(n, a, t) for n, a, t in infos]
    path = os.path.join(tmp, "nvrtc.cubin")
    with open(path, "wb") as f:
        f.write(code)
    assert entry_symbols(path) == {n for n, _, _ in infos}
    got = kernel_params(path)
    for name, arg_types, _ in infos:
        assert got.get(name, []) == expected_params(arg_types), name
    assert 'extern "C" __global__ void' in exe.inspect_source("cuda")


# ---------------------------------------------------------------- kernels, as TVM users write them

def elementwise(n=1027, factor=128):
    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda i: te.exp(A[i]) * 2.0 + 1.0, name="B")
    sch = tvm.tir.Schedule(te.create_prim_func([A, B]))
    (i,) = sch.get_loops(sch.get_block("B"))
    bx, tx = sch.split(i, [None, factor])
    sch.bind(bx, "blockIdx.x")
    sch.bind(tx, "threadIdx.x")
    return sch.mod, [A, B]


def row_sum(m=300, n=77):
    A = te.placeholder((m, n), name="A")
    k = te.reduce_axis((0, n), name="k")
    B = te.compute((m,), lambda i: te.sum(A[i, k], axis=k), name="B")
    sch = tvm.tir.Schedule(te.create_prim_func([A, B]))
    i, _ = sch.get_loops(sch.get_block("B"))
    bx, tx = sch.split(i, [None, 64])
    sch.bind(bx, "blockIdx.x")
    sch.bind(tx, "threadIdx.x")
    return sch.mod, [A, B]


def tiled_matmul(M=256, N=192, K=128, tile=16, inner=4, ktile=16):
    A = te.placeholder((M, K), name="A")
    B = te.placeholder((K, N), name="B")
    k = te.reduce_axis((0, K), name="k")
    C = te.compute((M, N), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
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
        fused = sch.fuse(*sch.get_loops(shared)[-2:])
        _, ty, tx = sch.split(fused, [None, tile, tile])
        sch.bind(ty, "threadIdx.y")
        sch.bind(tx, "threadIdx.x")
    sch.decompose_reduction(blk, ko)
    return sch.mod, [A, B, C]


def _inputs(tensors, rng):
    return [rng.standard_normal([int(d) for d in t.shape]).astype("float32") for t in tensors]


def _cpu_run(mod, tensors, rng):
    """The GPU schedule run on the CPU (bound loops are loops there)."""
    f = tvm.compile(mod, target="llvm")
    arrays = _inputs(tensors[:-1], rng)
    out = np.zeros([int(d) for d in tensors[-1].shape], "float32")
    args = [tvm.runtime.tensor(a) for a in arrays] + [tvm.runtime.tensor(out)]
    f(*args)
    return arrays, args[-1].numpy()


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("kernel", [elementwise, row_sum, tiled_matmul])
def test_kernels_assemble_and_match_launch_metadata(kernel, arch, tmp_path):
    mod, _ = kernel()
    exe = tvm.compile(mod, target="cuda -arch=%s" % arch)
    log = check_device_code(exe, str(tmp_path), arch)
    exe_c = tvm.compile(mod, target="cuda -arch=%s -device-compiler=nvrtc" % arch)
    check_cubin(exe_c, str(tmp_path), exe.device.function_infos)
    if kernel is tiled_matmul:
        ptx = exe.inspect_source("ptx")
        assert ".shared" in ptx and "bar.sync" in ptx
        smem = int(re.search(r"(\d+) bytes smem", log).group(1))
        assert smem == 2 * 16 * 16 * 4 * 4  # two 64x16 float tiles
    if kernel is elementwise:
        assert "__nv_expf" not in exe.inspect_source("ptx")  # libdevice linked in and inlined


@pytest.mark.parametrize("kernel", [elementwise, row_sum, tiled_matmul])
def test_gpu_schedules_compute_the_right_numbers(kernel):
    mod, tensors = kernel()
    rng = np.random.default_rng(0)
    arrays, got = _cpu_run(mod, tensors, rng)
    if kernel is elementwise:
        want = np.exp(arrays[0]) * 2 + 1
    elif kernel is row_sum:
        want = arrays[0].sum(axis=1)
    else:
        want = arrays[0] @ arrays[1]
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


def test_kernel_launch_packs_arguments_then_extents():
    mod, _ = tiled_matmul()
    exe = tvm.compile(mod, target="cuda -arch=sm_90")
    (name, args, tags), = exe.device.function_infos
    assert name == "main_kernel"
    assert args == [(3, 64, 1)] * 3
    assert tags == ["blockIdx.x", "blockIdx.y", "threadIdx.x", "threadIdx.y"]
    host = exe.llvm_ir
    assert "__tvm_set_device" in host and '"main_kernel' in host.replace("c\"main", "\"main")
    # arguments + one int64 per launch tag
    assert re.search(r"call i32 @TVMFFIFunctionCall\(ptr %\w+, ptr %[\w.]+, i32 7,", host)


def test_symbolic_shape_becomes_a_scalar_parameter(tmp_path):
    n = te.var("n")
    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda i: A[i] + 1.0, name="B")
    sch = tvm.tir.Schedule(te.create_prim_func([A, B]))
    (i,) = sch.get_loops(sch.get_block("B"))
    bx, tx = sch.split(i, [None, 256])
    sch.bind(bx, "blockIdx.x")
    sch.bind(tx, "threadIdx.x")
    exe = tvm.compile(sch.mod, target="cuda -arch=sm_90")
    (_, args, _), = exe.device.function_infos
    assert args == [(3, 64, 1), (3, 64, 1), (0, 32, 1)]
    check_device_code(exe, str(tmp_path), "sm_90")


def test_host_code_checks_the_device_of_its_arguments():
    mod, _ = elementwise(n=256)
    exe = tvm.compile(mod, target="cuda -arch=sm_90")
    a = tvm.runtime.tensor(np.zeros(256, "float32"))
    b = tvm.runtime.tensor(np.zeros(256, "float32"))
    with pytest.raises(ValueError, match="device_type is expected to be cuda"):
        exe["main"](a, b)


def test_codegen_is_dispatched_by_target_kind():
    import tvm_ffi
    from tvm.driver.build_module import _split_kernels, device_pipeline

    mod, _ = elementwise(n=512)
    target = tvm.target.Target("cuda -arch=sm_90")
    _, kernels = _split_kernels(device_pipeline(target)(tvm.lower(mod)))
    for kind in ("cuda", "nvptx"):
        m = tvm_ffi.get_global_func("target.build." + kind)(kernels, "cuda -arch=sm_90")
        assert m.kind == "cuda" and ".entry main_kernel" in m.inspect_source("ptx")


def test_target_parsing():
    t = tvm.target.Target("cuda -arch=sm_90")
    assert t.is_device and t.arch == "sm_90" and str(t.host.kind) == "llvm"
    assert tvm.target.Target("nvptx -mcpu=sm_86").arch == "sm_86"
    assert tvm.target.Target("cuda").arch == "sm_80"
    t = tvm.target.Target("cuda -arch=sm_90a", host="llvm -mcpu=x86-64")
    assert t.arch == "sm_90a" and t.host.mcpu == "x86-64"
    assert tvm.target.Target({"kind": "cuda", "arch": "sm_89"}).arch == "sm_89"
    with pytest.raises(ValueError, match="sm_XY"):
        tvm.target.Target("cuda -arch=compute_90")
    with pytest.raises(ValueError, match="host target"):
        tvm.target.Target("llvm", host="llvm")


def test_unbound_gpu_function_is_refused():
    A = te.placeholder((64,), name="A")
    B = te.compute((64,), lambda i: A[i] + 1.0, name="B")
    with pytest.raises(ValueError, match="forget to bind"):
        tvm.compile(te.create_prim_func([A, B]), target="cuda")


def test_host_side_access_is_refused():
    A = te.placeholder((64,), name="A")
    B = te.compute((64,), lambda i: A[i] + 1.0, name="B")
    C = te.compute((64,), lambda i: B[i] * 2.0, name="C")
    sch = tvm.tir.Schedule(te.create_prim_func([A, C]))
    (i,) = sch.get_loops(sch.get_block("C"))
    bx, tx = sch.split(i, [None, 32])
    sch.bind(bx, "blockIdx.x")
    sch.bind(tx, "threadIdx.x")
    with pytest.raises(ValueError, match="forget to bind"):
        tvm.compile(sch.mod, target="cuda")


def test_parallel_loop_in_kernel_is_refused():
    A = te.placeholder((64, 64), name="A")
    B = te.compute((64, 64), lambda i, j: A[i, j] + 1.0, name="B")
    sch = tvm.tir.Schedule(te.create_prim_func([A, B]))
    i, j = sch.get_loops(sch.get_block("B"))
    sch.bind(i, "blockIdx.x")
    sch.parallel(j)
    with pytest.raises(ValueError, match="parallel loop"):
        tvm.compile(sch.mod, target="cuda")


def test_jit_is_for_cpu_targets():
    mod, _ = elementwise(n=256)
    with pytest.raises(ValueError, match="jit"):
        tvm.compile(mod, target="cuda", jit=True)


def test_two_stages_give_two_kernels(tmp_path):
    A = te.placeholder((1000,), name="A")
    B = te.compute((1000,), lambda i: A[i] * 3.0, name="B")
    C = te.compute((1000,), lambda i: B[i] + A[i], name="C")
    sch = tvm.tir.Schedule(te.create_prim_func([A, C]))
    for name in ("B", "C"):
        (i,) = sch.get_loops(sch.get_block(name))
        bx, tx = sch.split(i, [None, 128])
        sch.bind(bx, "blockIdx.x")
        sch.bind(tx, "threadIdx.x")
    exe = tvm.compile(sch.mod, target="cuda -arch=sm_80")
    names = [i[0] for i in exe.device.function_infos]
    assert names == ["main_kernel", "main_kernel_1"]
    # the intermediate lives in device memory from the host's workspace (device type 2)
    assert "@TVMBackendAllocWorkspace(i32 2" in exe.llvm_ir
    check_device_code(exe, str(tmp_path), "sm_80")
    rng = np.random.default_rng(1)
    arrays, got = _cpu_run(sch.mod, [A, C], rng)
    np.testing.assert_allclose(got, arrays[0] * 4, rtol=1e-6)


@settings(max_examples=12, deadline=None)
@given(n=st.integers(1, 5000), factor=st.sampled_from([32, 64, 96, 128, 256, 1024]),
       op=st.sampled_from(["add", "tanh", "sqrt", "max", "cast"]))
def test_property_elementwise_kernels_assemble(n, factor, op):
    A = te.placeholder((n,), name="A")

    def body(i):
        x = A[i]
        if op == "add":
            return x + 1.0
        if op == "tanh":
            return te.tanh(x)
        if op == "sqrt":
            return te.sqrt(te.abs(x))
        if op == "max":
            return te.max(x, tvm.tir.const(0.0, "float32"))
        return (x * 100.0).astype("int32").astype("float32")

    B = te.compute((n,), body, name="B")
    sch = tvm.tir.Schedule(te.create_prim_func([A, B]))
    (i,) = sch.get_loops(sch.get_block("B"))
    bx, tx = sch.split(i, [None, factor])
    sch.bind(bx, "blockIdx.x")
    sch.bind(tx, "threadIdx.x")
    exe = tvm.compile(sch.mod, target="cuda -arch=sm_90")
    exe_c = tvm.compile(sch.mod, target="cuda -arch=sm_90 -device-compiler=nvrtc")
    with tempfile.TemporaryDirectory() as tmp:
        check_device_code(exe, tmp, "sm_90")
        check_cubin(exe_c, tmp, exe.device.function_infos)


def test_compile_cuda_with_nvrtc_and_nvcc():
    from tvm.contrib import nvcc

    src = 'extern "C" __global__ void k(float* x) { x[threadIdx.x] += 1.0f; }'
    cubin = nvcc.compile_cuda(src, "cubin", "sm_90", compiler="nvrtc")
    assert cubin[:4] == b"\x7fELF"
    ptx = nvcc.compile_cuda(src, "ptx", "sm_80", compiler="nvrtc").decode()
    assert ".entry k" in ptx
    assert nvcc.compile_cuda(src, "cubin", "sm_90", compiler="nvcc")[:4] == b"\x7fELF"
    with pytest.raises(RuntimeError, match="NVRTC compile failed"):
        nvcc.compile_cuda("this is not CUDA", "cubin", "sm_90", compiler="nvrtc")
    with pytest.raises(ValueError, match="sm_90"):
        nvcc.compile_cuda(src, "cubin", "compute_90", compiler="nvrtc")
    with pytest.raises(ValueError, match="target_format"):
        nvcc.compile_cuda(src, "elf")


def test_shared_memory_is_addressed_with_32_bit_pointers(tmp_path):
    """Shared-memory loads and stores take 32-bit addresses (-nvptx-short-ptr, as nvcc
    writes them): 64-bit ones halved the tiled matmul's speed on an H200."""
    ptx = tvm.compile(tiled_matmul(64, 64, 64)[0], target="cuda -arch=sm_90").device.ptx
    ptxas(ptx, "sm_90", str(tmp_path))
    shared = re.findall(r"(?:ld|st)\.shared\.\w+\s+[^;]*", ptx)
    assert shared and all("%rd" not in op for op in shared), shared[:4]


@pytest.mark.parametrize("options, fused", [("", True), (" -fast-math-contract=false", False),
                                              (" -fast-math", True)])
def test_multiply_adds_become_fma_unless_the_target_keeps_them_apart(options, fused, tmp_path):
    """a*b+c in a kernel is one fma.rn.f32 by default on both device paths (as on the CPU and
    in apache-tvm, whose target machines allow FP op fusion); -fast-math-contract=false
    keeps the multiply and the add separately rounded: mul.rn + add.rn in the NVPTX path
    (ptxas may not fuse .rn ops), --fmad=false for nvcc / NVRTC. The PTX assembles either way."""
    from tvm.contrib import nvcc
    from tvm.target.cuda_backend import cuda_c_options

    target = "cuda -arch=sm_90" + options
    mod = tiled_matmul(64, 64, 64)[0]
    ptx = tvm.compile(mod, target=target).device.ptx
    ptxas(ptx, "sm_90", str(tmp_path))
    fmas, muls = ptx.count("fma.rn.f32"), ptx.count("mul.rn.f32")
    assert (fmas > 0 and muls == 0) if fused else (fmas == 0 and muls > 0), (fmas, muls)
    exe_c = tvm.compile(mod, target=target + " -device-compiler=nvrtc")
    c_ptx = nvcc.compile_cuda(exe_c.device.cuda_source, "ptx", "sm_90",
                              options=cuda_c_options(tvm.target.Target(target)),
                              compiler="nvrtc").decode()
    assert bool(re.search(r"fma\.rn(\.ftz)?\.f32", c_ptx)) == fused  # --use_fast_math flushes denormals


@settings(max_examples=100, deadline=None)
@given(infos=st.lists(st.tuples(
    st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,20}", fullmatch=True),
    st.lists(st.tuples(st.integers(0, 4), st.sampled_from([8, 16, 32, 64]), st.integers(1, 4)), max_size=6),
    st.lists(st.sampled_from(["blockIdx.x", "blockIdx.y", "threadIdx.x", "threadIdx.z"]), max_size=4)),
    max_size=4, unique_by=lambda info: info[0]), code=st.binary(max_size=200))
def test_property_blob_round_trip(infos, code):
    blob = cuda_build.pack_blob("ptx", code, infos)
    fmt, back, code2 = cuda_build.unpack_blob(blob)
    assert fmt == "ptx" and code2 == code
    assert [(n, [tuple(a) for a in args], tags) for n, args, tags, _ in back] == \
        [(n, [tuple(a) for a in args], list(tags)) for n, args, tags in infos]
    for cut in (1, len(blob) // 2, len(blob) - 1):
        with pytest.raises(ValueError):
            cuda_build.unpack_blob(blob[:cut])


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q"]))
