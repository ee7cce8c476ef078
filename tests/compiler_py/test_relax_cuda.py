"""Relax models compiled for NVIDIA GPUs (relax.build / tvm.compile with target "cuda"),
checked without a GPU:
  - every kernel's PTX assembles with ptxas for sm_80 and sm_90, its entry and parameters
    match the launch metadata (test_cuda_codegen.check_device_code);
  - every PrimFunc dlight scheduled has all its loops under blockIdx/threadIdx bindings;
  - the same scheduled PrimFuncs compiled for the CPU (bound loops run as loops there) give
    numpy's results on generated model sizes and batches;
  - with the fake driver (TVM_CUDA_DRIVER_LIBRARY: host-side logic only, kernels do not run)
    the VM runs `main` on tvm.cuda(): constants uploaded, outputs allocated on the device, one
    launch per kernel with the grid/block the schedule gives; also from the exported .so in a
    runtime-only process.
Kernel results on a real GPU: tools/gpu_check (compiled_checks.check_relax_models)."""

import gc
import os
import struct
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tvm
import tvm_ffi
from tvm import relax, tir
from cuda_testing import FakeDriver
from relax_gpu_models import cnn, mlp
from test_cuda_codegen import check_device_code

MODELS = {"mlp": mlp, "cnn": cnn}
ARCHS = ("sm_80", "sm_90")


def _unbound_loops(stmt, bound=False, out=None):
    """The loops of `stmt` not nested in a loop bound to a thread axis."""
    out = [] if out is None else out
    if stmt is None:
        return out
    if isinstance(stmt, tir.For):
        if int(stmt.kind) == tir.ForKind.THREAD_BINDING:
            bound = True
        elif not bound:
            out.append(str(stmt.loop_var))
        _unbound_loops(stmt.body, bound, out)
    elif isinstance(stmt, tir.SeqStmt):
        for s in stmt.seq:
            _unbound_loops(s, bound, out)
    elif isinstance(stmt, tir.BlockRealize):
        _unbound_loops(stmt.block, bound, out)
    elif isinstance(stmt, tir.Block):
        _unbound_loops(stmt.init, bound, out)
        _unbound_loops(stmt.body, bound, out)
    elif isinstance(stmt, tir.IfThenElse):
        _unbound_loops(stmt.then_case, bound, out)
        _unbound_loops(stmt.else_case, bound, out)
    elif isinstance(stmt, (tir.LetStmt, tir.Allocate, tir.AssertStmt)):
        _unbound_loops(stmt.body, bound, out)
    return out


@pytest.fixture(scope="module")
def built():
    """model -> (module, reference, input shape, {arch: VMExecutable})."""
    out = {}
    for name, make in MODELS.items():
        mod, ref, shape = make(np.random.default_rng(0))
        out[name] = (mod, ref, shape, {a: relax.build(mod, target="cuda -arch=" + a) for a in ARCHS})
    return out


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("model", sorted(MODELS))
def test_every_kernel_assembles_with_ptxas(built, model, arch, tmp_path):
    ex = built[model][3][arch]
    check_device_code(ex.kernels, str(tmp_path), arch)
    assert len(ex.kernels.device.function_infos) >= 4


@pytest.mark.parametrize("model", sorted(MODELS))
def test_every_primfunc_has_all_loops_bound(built, model):
    mod = relax.get_default_pipeline("cuda -arch=sm_80")(built[model][0])
    prims = {str(k): f for k, f in mod.functions.items() if isinstance(f, tir.PrimFunc)}
    # VMShapeLower's shape functions read the VM's shape heap, a host tensor: host code
    host = {k for k, f in prims.items() if "target" in f.attrs and str(f.attrs["target"]).startswith("llvm")}
    assert host == {k for k in prims if k.startswith("__vm_shape_func_")}
    kernels = {k: f for k, f in prims.items() if k not in host}
    assert kernels
    for name, f in kernels.items():
        assert "tir.is_scheduled" in f.attrs, name
        assert _unbound_loops(f.body) == [], name


def test_unbound_loop_detection_is_not_vacuous(built):
    mod = relax.get_pipeline("default")(built["mlp"][0])     # the CPU schedule: parallel loops
    assert any(_unbound_loops(f.body) for f in mod.functions.values() if isinstance(f, tir.PrimFunc))


def test_pipeline_is_chosen_by_target_kind():
    mlp_mod = mlp(np.random.default_rng(0))[0]
    with pytest.raises(ValueError, match="SplitHostDevice"):
        relax.build(mlp_mod, target="cuda -arch=sm_80", relax_pipeline=relax.get_pipeline("default"))
    ex = tvm.compile(mlp_mod, target="nvptx -mcpu=sm_90")
    assert ".target sm_90" in ex.kernels.inspect_source("ptx")


def _cpu_run_of_gpu_schedule(mod, x):
    ex = relax.build(mod, target="llvm", relax_pipeline=relax.get_default_pipeline("cuda -arch=sm_80"))
    return relax.VirtualMachine(ex, tvm.cpu())["main"](tvm.runtime.tensor(x)).numpy()


@settings(max_examples=6, deadline=None)
@given(d_in=st.integers(1, 70), hidden=st.integers(1, 300), d_out=st.integers(1, 20),
       batch=st.integers(1, 9), seed=st.integers(0, 99))
def test_mlp_gpu_schedule_matches_numpy_on_the_cpu(d_in, hidden, d_out, batch, seed):
    rng = np.random.default_rng(seed)
    mod, ref, _ = mlp(rng, d_in, hidden, d_out)
    x = rng.standard_normal((batch, d_in)).astype("float32")
    np.testing.assert_allclose(_cpu_run_of_gpu_schedule(mod, x), ref(x), rtol=1e-4, atol=1e-5)


@settings(max_examples=4, deadline=None)
@given(hw=st.integers(2, 13), classes=st.integers(1, 7), batch=st.integers(1, 3),
       seed=st.integers(0, 99))
def test_cnn_gpu_schedule_matches_numpy_on_the_cpu(hw, classes, batch, seed):
    rng = np.random.default_rng(seed)
    mod, ref, _ = cnn(rng, hw, classes)
    x = rng.standard_normal((batch, 3, hw, hw)).astype("float32")
    np.testing.assert_allclose(_cpu_run_of_gpu_schedule(mod, x), ref(x), rtol=1e-4, atol=1e-5)


def _ceil(a, b):
    return (a + b - 1) // b


@pytest.mark.parametrize("batch", [1, 300])
def test_vm_runs_main_on_cuda_through_the_fake_driver(built, batch):
    _, _, shape, exes = built["mlp"]
    ex = exes["sm_80"]
    fake = FakeDriver()
    vm = relax.VirtualMachine(ex, tvm.cuda())
    x = tvm.runtime.tensor(np.zeros([batch] + shape[1:], "float32"), tvm.cuda())
    fake.reset()
    y = vm["main"](x)
    assert y.device == tvm.cuda(0) and list(y.shape) == [batch, 10]
    # One launch per kernel; the last is softmax's normalization, one thread per element.
    assert fake.stats().launches == len(ex.kernels.device.function_infos)
    last = fake.last_launch()
    assert last.name == b"softmax_kernel_2"
    assert (list(last.grid), list(last.block)) == ([_ceil(10 * batch, 256), 1, 1], [256, 1, 1])
    # The output pointer is the tensor the VM returned (allocated on the device).
    assert struct.unpack("<Q", last.param_bytes()[0])[0] == y.data_ptr()


def test_each_kernel_launch_has_the_schedules_grid(built):
    """Kernels called alone: the fused matmul + bias + relu is dlight.gpu.Matmul's 64 x 64
    output tile per block of 16 x 16 threads; the CNN's conv kernels are Fallback's."""
    ex = built["mlp"][3]["sm_90"]
    f = ex.kernels["fused_matmul_add_relu"]
    fake = FakeDriver()
    for n in (1, 7, 1000):
        args = [tvm.runtime.empty(s, "float32", tvm.cuda()) for s in ([n, 64], [64, 32], [32], [n, 32])]
        f(*args)
        launch = fake.last_launch()
        assert launch.name == b"fused_matmul_add_relu_kernel"
        assert (list(launch.grid), list(launch.block)) == ([1, _ceil(n, 64), 1], [16, 16, 1])
        assert launch.shared_mem_bytes == 0       # static shared memory: in the image
    infos = {n: tags for n, _, tags in built["cnn"][3]["sm_90"].kernels.device.function_infos}
    assert infos["matmul_kernel"] == ["blockIdx.x", "blockIdx.y", "threadIdx.x", "threadIdx.y"]
    assert infos["fused_conv2d_add_relu_kernel"] == ["blockIdx.x", "threadIdx.x"]
    assert ".shared" in built["cnn"][3]["sm_90"].kernels.inspect_source("ptx")


def test_constants_are_uploaded_to_the_device_when_the_vm_is_made(built):
    ex = built["cnn"][3]["sm_80"]
    n_tensors = ex.as_text().count("= Tensor(")
    assert n_tensors == 4       # the folded conv weight and BN bias, the conv and dense weights
    fake = FakeDriver()
    gc.collect()                # VMs of earlier tests give their memory back ...
    tvm_ffi.get_global_func("vm.builtin.memory_manager.clear")()   # ... and the pool frees it
    before = fake.stats().live_allocations
    vm = relax.VirtualMachine(ex, tvm.cuda())
    assert fake.stats().live_allocations - before == n_tensors
    x = tvm.runtime.tensor(np.zeros((2, 3, 8, 8), "float32"), tvm.cuda())
    launches = fake.stats().launches
    vm["main"](x)
    assert fake.stats().launches - launches == len(ex.kernels.device.function_infos)
    del vm
    gc.collect()


def test_export_runs_in_a_runtime_only_process(built, tmp_path):
    path = str(tmp_path / "cnn_cuda.so")
    built["cnn"][3]["sm_90"].export_library(path)
    script = textwrap.dedent("""
        import sys, numpy as np, tvm, tvm_ffi
        from tvm.runtime.vm import VirtualMachine
        from cuda_testing import FakeDriver
        assert tvm.base.RUNTIME_ONLY
        lib = tvm_ffi.load_module(sys.argv[1])
        vm = VirtualMachine(lib, tvm.cuda())
        fake = FakeDriver()
        fake.reset()
        y = vm["main"](tvm.runtime.tensor(np.zeros((4, 3, 8, 8), "float32"), tvm.cuda()))
        last = fake.last_launch()
        print(y.device, list(y.shape), fake.stats().launches, last.name.decode(),
              list(last.grid), list(last.block))
    """)
    env = dict(os.environ, TVM_USE_RUNTIME_LIB="1", PYTHONPATH=os.pathsep.join(sys.path))
    proc = subprocess.run([sys.executable, "-c", script, path], env=env, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    n_kernels = len(built["cnn"][3]["sm_90"].kernels.device.function_infos)
    # softmax over 4 x 5 outputs: one block of 256 threads
    assert proc.stdout.split() == ["cuda:0", "[4,", "5]", str(n_kernels), "softmax_kernel_2",
                                   "[1,", "1,", "1]", "[256,", "1,", "1]"]
