"""A VM program on a "cuda" device against the fake driver: storage and tensors from the CUDA
device API (also at offsets inside one storage), a kernel from an imported CUDA module
launched with the VM's tensors, copies between host and device, tensor constants moved to the
device. The fake stands in for libcuda.so.1 for host-side logic only; its `fake_vadd_f32` and
`fake_fill_i32` are emulated on the host so results can be compared with numpy."""

import numpy as np
import pytest

import tvm
import tvm_ffi
from tvm.runtime.cuda_support import load_module_from_blob
from tvm.runtime.vm_builder import Builder

from cuda_testing import FakeDriver, test_blob

F32, I32 = tvm_ffi.dtype("float32"), tvm_ffi.dtype("int32")
FAKE = FakeDriver()
N = 256


def build():
    b = Builder()
    r, imm = b.r, b.imm
    with b.function("vadd", 2, ["a", "b"]):
        # n = a.shape[0]; out = empty(n) on device 0 (cuda); vadd<<<64, 128>>>; to host.
        b.emit_call("vm.builtin.shape_of", [r(0)], 2)
        b.emit_call("vm.builtin.tuple_getitem", [r(2), imm(0)], 3)
        b.emit_call("vm.builtin.alloc_storage", [b.VM, r(2), imm(0), b.c(F32)], 4)
        b.emit_call("vm.builtin.alloc_tensor", [r(4), imm(0), r(2), b.c(F32)], 5)
        b.emit_call("fake_vadd_f32", [r(0), r(1), r(5), r(3), imm(64), imm(128)])
        b.emit_call("vm.builtin.to_device", [b.VM, r(5), imm(1)], 6)
        b.emit_ret(6)
    with b.function("offsets", 0):
        # One storage of 2N int32; the halves are tensors at byte offsets 0 and 4N.
        b.emit_call("vm.builtin.alloc_storage", [b.VM, imm(8 * N), imm(0), b.c(I32)], 0)
        b.emit_call("vm.builtin.alloc_tensor", [r(0), imm(0), b.c(tvm_ffi.Shape([N])), b.c(I32)], 1)
        b.emit_call("vm.builtin.alloc_tensor", [r(0), imm(4 * N), b.c(tvm_ffi.Shape([N])), b.c(I32)], 2)
        b.emit_call("fake_fill_i32", [r(1), imm(1), imm(N), imm(2), imm(128)])
        b.emit_call("fake_fill_i32", [r(2), imm(2), imm(N), imm(2), imm(128)])
        b.emit_call("vm.builtin.alloc_tensor", [r(0), imm(0), b.c(tvm_ffi.Shape([2 * N])), b.c(I32)], 3)
        b.emit_call("vm.builtin.copy", [b.VM, r(3)], 4)          # device -> device
        b.emit_call("vm.builtin.to_device", [b.VM, r(4), imm(1)], 5)
        b.emit_ret(5)
    with b.function("plus_constant", 1, ["a"]):
        # A host tensor constant becomes a device tensor when the VM runs on cuda.
        const = b.c(tvm.runtime.tensor(np.full(N, 10.0, dtype="float32")))
        b.emit_call("vm.builtin.to_device", [b.VM, r(0), imm(0)], 1)
        b.emit_call("vm.builtin.empty", [b.VM, b.c(tvm_ffi.Shape([N])), b.c(F32), imm(0)], 2)
        b.emit_call("fake_vadd_f32", [r(1), const, r(2), imm(N), imm(2), imm(128)])
        b.emit_call("vm.builtin.to_device", [b.VM, r(2), imm(1)], 3)
        b.emit_ret(3)
    with b.function("fill", 0):
        # A kernel and the device tensor it wrote, nothing copied back (no sync of its own).
        b.emit_call("vm.builtin.empty", [b.VM, b.c(tvm_ffi.Shape([N])), b.c(I32), imm(0)], 0)
        b.emit_call("fake_fill_i32", [r(0), imm(7), imm(N), imm(2), imm(128)])
        b.emit_ret(0)
    exe = b.get()
    tvm_ffi.get_global_func("ffi.ModuleImportModule")(exe.mod, load_module_from_blob(test_blob()))
    return exe


@pytest.mark.parametrize("memory", ["pooled", "naive"])
def test_vadd_on_cuda(memory):
    vm = tvm.runtime.VirtualMachine(build(), tvm.cuda(), memory=memory)
    a = np.random.default_rng(0).standard_normal(1000).astype("float32")
    b = np.arange(1000, dtype="float32")
    out = vm["vadd"](tvm.runtime.tensor(a, tvm.cuda()), tvm.runtime.tensor(b, tvm.cuda()))
    assert out.device == tvm.cpu(0)
    np.testing.assert_array_equal(out.numpy(), a + b)
    launch = FAKE.last_launch()
    assert launch.name == b"fake_vadd_f32" and list(launch.grid)[0] == 64


def test_tensors_at_offsets_in_one_storage():
    vm = tvm.runtime.VirtualMachine(build(), tvm.cuda(), memory="naive")
    out = vm["offsets"]().numpy()
    np.testing.assert_array_equal(out, np.array([1] * N + [2] * N, dtype="int32"))


def test_constants_move_to_the_device():
    vm = tvm.runtime.VirtualMachine(build(), tvm.cuda())
    a = np.arange(N, dtype="float32")
    out = vm["plus_constant"](tvm.runtime.tensor(a))  # a host input, copied by the program
    np.testing.assert_array_equal(out.numpy(), a + 10)


def test_device_memory_is_released():
    import gc

    gc.collect()
    clear = tvm_ffi.get_global_func("vm.builtin.memory_manager.clear")
    clear()  # earlier tests' pooled blocks
    before = FAKE.stats().live_allocations
    vm = tvm.runtime.VirtualMachine(build(), tvm.cuda(), memory="naive")
    for _ in range(3):
        vm["offsets"]()
    del vm
    gc.collect()
    clear()
    assert FAKE.stats().live_allocations == before


def test_profile_times_each_call_to_the_end_of_its_device_work(monkeypatch):
    """VirtualMachine.profile waits for the VM's CUDA device around every packed call, so a
    kernel's time is its run on the GPU, not its launch: with cuStreamSynchronize failing,
    profile() raises naming it, while the same function called plainly (no sync) runs."""
    vm = tvm.runtime.VirtualMachine(build(), tvm.cuda())
    report = vm.profile("fill")
    assert "fake_fill_i32" in [row["Name"] for row in report.top(5)]
    monkeypatch.setenv("FAKE_CUDA_FAIL", "cuStreamSynchronize")
    monkeypatch.setenv("FAKE_CUDA_FAIL_RESULT", "1")
    out = vm["fill"]()
    assert out.device == tvm.cuda(0)
    with pytest.raises(Exception, match="cuStreamSynchronize"):
        vm.profile("fill")
    monkeypatch.delenv("FAKE_CUDA_FAIL")
    np.testing.assert_array_equal(out.numpy(), np.full(N, 7, "int32"))
