"""The VM from Python: a hand-assembled two-layer MLP against numpy, save/load, and
hypothesis-generated corrupt executables (errors, never crashes)."""

import os

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tvm
import tvm_ffi
from tvm.runtime.vm_builder import Builder

F32 = tvm_ffi.dtype("float32")


def build_mlp():
    """main(x, w1, b1, w2, b2) = relu(x @ w1 + b1) @ w2 + b2, kernels called by name."""
    b = Builder()
    r, imm = b.r, b.imm
    f32 = b.c(F32)
    with b.function("dense_bias", 3, ["x", "w", "b"]):
        b.emit_call("vm.builtin.shape_of", [r(0)], 3)
        b.emit_call("vm.builtin.tuple_getitem", [r(3), imm(0)], 4)
        b.emit_call("vm.builtin.shape_of", [r(1)], 5)
        b.emit_call("vm.builtin.tuple_getitem", [r(5), imm(1)], 6)
        b.emit_call("vm.builtin.make_shape", [r(4), r(6)], 7)
        b.emit_call("vm.builtin.empty", [b.VM, r(7), f32, imm(0)], 8)
        b.emit_call("dense", [r(0), r(1), r(8)])
        b.emit_call("vm.builtin.empty", [b.VM, r(7), f32, imm(0)], 9)
        b.emit_call("add_bias", [r(8), r(2), r(9)])
        b.emit_ret(9)
    with b.function("main", 5, ["x", "w1", "b1", "w2", "b2"]):
        for i, (name, ndim) in enumerate([("x", 2), ("w1", 2), ("b1", 1), ("w2", 2), ("b2", 1)]):
            b.emit_call("vm.builtin.check_tensor_info",
                        [r(i), imm(ndim), f32, b.c("main: argument " + name)])
        b.emit_call("dense_bias", [r(0), r(1), r(2)], 5)
        b.emit_call("vm.builtin.shape_of", [r(5)], 6)
        b.emit_call("vm.builtin.empty", [b.VM, r(6), f32, imm(0)], 7)
        b.emit_call("relu", [r(5), r(7)])
        b.emit_call("dense_bias", [r(7), r(3), r(4)], 8)
        b.emit_ret(8)
    exe = b.get()
    kernels = tvm.runtime.load_module(os.environ["MLP_KERNELS"])
    tvm_ffi.get_global_func("ffi.ModuleImportModule")(exe.mod, kernels)
    return exe


EXE = build_mlp()


def reference(x, w1, b1, w2, b2):
    return np.maximum(x @ w1 + b1, 0) @ w2 + b2


def run(exe, arrays, memory="pooled"):
    vm = tvm.runtime.VirtualMachine(exe, tvm.cpu(), memory=memory)
    args = [tvm.runtime.tensor(a) for a in arrays]
    return vm["main"](*args).numpy()


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 8), st.integers(1, 16), st.integers(1, 16), st.integers(1, 6),
       st.integers(0, 2**31 - 1))
def test_mlp_matches_numpy(batch, n_in, hidden, n_out, seed):
    rng = np.random.default_rng(seed)
    arrays = [rng.standard_normal(s).astype(np.float32)
              for s in [(batch, n_in), (n_in, hidden), (hidden,), (hidden, n_out), (n_out,)]]
    expected = reference(*arrays)
    for memory in ("pooled", "naive"):
        np.testing.assert_allclose(run(EXE, arrays, memory), expected, rtol=1e-4, atol=1e-4)


def test_saved_and_loaded_executable_gives_the_same_result():
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(s).astype(np.float32)
              for s in [(4, 8), (8, 16), (16,), (16, 3), (3,)]]
    data = EXE.save_to_bytes()
    loaded = tvm.runtime.vm.Executable.load_from_bytes(data)
    assert loaded.save_to_bytes() == data  # canonical form
    kernels = tvm.runtime.load_module(os.environ["MLP_KERNELS"])
    tvm_ffi.get_global_func("ffi.ModuleImportModule")(loaded.mod, kernels)
    np.testing.assert_array_equal(run(loaded, arrays), run(EXE, arrays))


def test_wrong_arguments_name_the_function():
    vm = tvm.runtime.VirtualMachine(EXE)
    with pytest.raises(TypeError, match="main"):
        vm["main"](tvm.runtime.tensor(np.ones((2, 2), np.float32)))
    bad = [np.ones((2, 3), np.float32), np.ones((3, 4), np.float32), np.ones(4, np.float32),
           np.ones((4, 2), np.int32), np.ones(2, np.float32)]
    with pytest.raises((TypeError, ValueError), match="w2"):
        vm["main"](*[tvm.runtime.tensor(a) for a in bad])
    with pytest.raises(AttributeError):
        vm["no_such_function"]


SAVED = EXE.save_to_bytes()


@settings(max_examples=400, deadline=None)
@given(st.data())
def test_corrupt_executables_raise_value_error(data):
    raw = bytearray(SAVED)
    kind = data.draw(st.sampled_from(["flip", "truncate", "overwrite", "garbage", "splice"]))
    if kind == "flip":
        for _ in range(data.draw(st.integers(1, 8))):
            i = data.draw(st.integers(0, len(raw) - 1))
            raw[i] ^= 1 << data.draw(st.integers(0, 7))
    elif kind == "truncate":
        raw = raw[: data.draw(st.integers(0, len(raw) - 1))]
    elif kind == "overwrite":
        i = data.draw(st.integers(0, len(raw) - 8))
        raw[i:i + 8] = data.draw(st.binary(min_size=8, max_size=8))
    elif kind == "garbage":
        raw = bytearray(data.draw(st.binary(max_size=512)))
    else:
        i = data.draw(st.integers(0, len(raw)))
        raw[i:i] = data.draw(st.binary(min_size=1, max_size=64))
    try:
        exe = tvm.runtime.vm.Executable.load_from_bytes(bytes(raw))
    except ValueError:
        return
    # Mutations that still load are valid executables: they save back canonically.
    assert tvm.runtime.vm.Executable.load_from_bytes(exe.save_to_bytes()).save_to_bytes() == \
        exe.save_to_bytes()
