"""Tensors: DLPack import/export with numpy, PyTorch and raw capsules, zero copy."""

import ctypes

import numpy as np
import pytest

import tvm_ffi


def test_from_numpy_attributes():
    a = np.arange(12, dtype="float32").reshape(3, 4)
    t = tvm_ffi.from_dlpack(a)
    assert isinstance(t, tvm_ffi.Tensor)
    assert t.shape == (3, 4) and t.ndim == 2 and t.strides == (4, 1)
    assert t.dtype == "float32" and t.device == tvm_ffi.device("cpu", 0)
    assert t.data_ptr() == a.ctypes.data and t.numel() == 12 and t.is_contiguous()
    assert t.__dlpack_device__() == (1, 0)


def test_zero_copy_both_ways():
    a = np.zeros((2, 3), dtype="int32")
    t = tvm_ffi.from_dlpack(a)
    b = np.from_dlpack(t)
    b[1, 2] = 7  # write through the export, read through the original
    assert a[1, 2] == 7
    a[0, 0] = -3  # and the other way
    assert b[0, 0] == -3


def test_c_writes_through(mod):
    a = np.arange(5, dtype="float32")
    mod.add_one_f32(a)  # numpy array passed directly
    assert a.tolist() == [1, 2, 3, 4, 5]
    t = tvm_ffi.from_dlpack(a)
    mod.add_one_f32(t)  # already converted Tensor
    assert a.tolist() == [2, 3, 4, 5, 6]
    view = a[::2]
    mod.add_one_f32(view)  # strided view
    assert a.tolist() == [3, 3, 5, 5, 7]


def test_strided_metadata_seen_by_c(mod):
    base = np.arange(24, dtype="int16").reshape(4, 6)
    v = base[1:, ::2]
    t = tvm_ffi.from_dlpack(v)
    assert t.strides == (6, 2) and t.shape == (3, 3)
    assert mod.tensor_stride_at(v, 0) == 6 and mod.tensor_stride_at(v, 1) == 2
    assert mod.tensor_data_ptr(v) == v.ctypes.data
    assert mod.tensor_dtype(v) == "int16"
    assert mod.tensor_device(v) == tvm_ffi.device("cpu")
    assert mod.tensor_byte_sum(v) == sum(int(x) & 0xFF for x in v.ravel()) + sum(
        (int(x) >> 8) & 0xFF for x in v.ravel())


def test_tensor_echo_keeps_identity(mod):
    t = tvm_ffi.from_dlpack(np.ones(3))
    out = mod.echo(t)
    assert isinstance(out, tvm_ffi.Tensor) and out.same_as(t)


def test_versioned_export_and_import():
    a = np.arange(4, dtype="uint8")
    t = tvm_ffi.from_dlpack(a)
    cap = t.__dlpack__(max_version=(1, 3))
    assert ctypes.pythonapi.PyCapsule_IsValid(ctypes.py_object(cap), b"dltensor_versioned")
    t2 = tvm_ffi.from_dlpack(cap)
    assert t2.data_ptr() == a.ctypes.data
    # The consumed capsule is renamed, so it cannot be used twice.
    assert ctypes.pythonapi.PyCapsule_IsValid(ctypes.py_object(cap), b"used_dltensor_versioned")
    with pytest.raises(ValueError):
        tvm_ffi.from_dlpack(cap)


def test_legacy_capsule_renamed():
    a = np.arange(4, dtype="uint8")
    cap = a.__dlpack__()
    tvm_ffi.from_dlpack(cap)
    assert ctypes.pythonapi.PyCapsule_IsValid(ctypes.py_object(cap), b"used_dltensor")


def test_unconsumed_capsule_is_freed():
    t = tvm_ffi.from_dlpack(np.arange(3))
    before = t.__tvm_ffi_use_count__
    cap = t.__dlpack__()
    assert t.__tvm_ffi_use_count__ == before + 1
    del cap  # the capsule destructor deletes the managed tensor
    assert t.__tvm_ffi_use_count__ == before


def test_versioned_only_producer():
    class VersionedOnly:
        def __init__(self, arr):
            self.t = tvm_ffi.from_dlpack(arr)

        def __dlpack__(self, *, max_version=None, **kwargs):
            if max_version is None:
                raise TypeError("versioned only")
            return self.t.__dlpack__(max_version=max_version)

    a = np.arange(6, dtype="float64")
    t = tvm_ffi.from_dlpack(VersionedOnly(a))
    assert t.data_ptr() == a.ctypes.data


def test_export_errors():
    t = tvm_ffi.from_dlpack(np.arange(3))
    with pytest.raises(BufferError):
        t.__dlpack__(dl_device=(2, 0), max_version=(1, 0))
    with pytest.raises(BufferError):
        t.__dlpack__(copy=True, max_version=(1, 0))


def test_alignment_and_contiguity_requirements():
    a = np.arange(10, dtype="float32")[1:]  # 4-byte aligned, not 64
    with pytest.raises(RuntimeError):
        tvm_ffi.from_dlpack(a[::2], require_contiguous=True)
    if a.ctypes.data % 64:
        with pytest.raises(RuntimeError):
            tvm_ffi.from_dlpack(a, require_alignment=64)


def test_non_dlpack_object():
    with pytest.raises(TypeError):
        tvm_ffi.from_dlpack(object())
    with pytest.raises(TypeError):
        tvm_ffi.from_dlpack([1, 2, 3])


def test_torch_zero_copy(mod):
    torch = pytest.importorskip("torch")
    x = torch.arange(4, dtype=torch.float32)
    mod.add_one_f32(x)
    assert x.tolist() == [1, 2, 3, 4]
    t = tvm_ffi.from_dlpack(x)
    assert t.shape == (4,) and t.dtype == "float32" and t.data_ptr() == x.data_ptr()
    y = torch.from_dlpack(t)
    y[0] = 100
    assert x[0].item() == 100
    # A Tensor result of a call given torch tensors comes back as a torch tensor (as with
    # apache-tvm-ffi), sharing the memory.
    back = mod.echo(x)
    assert isinstance(back, torch.Tensor) and back.data_ptr() == x.data_ptr()
    v = x[::2]
    assert tvm_ffi.from_dlpack(v).strides == (2,)
