"""Bad input raises typed Python errors; nothing crashes the interpreter."""

import numpy as np
import pytest

import tvm_ffi


def test_wrong_argument_type(mod):
    with pytest.raises(TypeError, match="Mismatched type"):
        mod.add_one("not an int")
    with pytest.raises(TypeError):
        mod.add_one(1.5)
    with pytest.raises(TypeError):
        mod.tensor_ndim(3)


def test_wrong_argument_count(mod):
    with pytest.raises(TypeError, match="Mismatched number of arguments"):
        mod.add_one()
    with pytest.raises(TypeError):
        mod.add_one(1, 2)
    with pytest.raises(TypeError):
        mod.echo()


def test_out_of_range_ints(mod):
    # Beyond int64 an int travels as BigInt, which an int64 parameter rejects.
    with pytest.raises(TypeError):
        mod.add_one(1 << 63)
    with pytest.raises(TypeError):
        mod.add_one(-(1 << 63) - 1)
    with pytest.raises(ValueError):
        tvm_ffi.Device("cpu", 1 << 40)
    with pytest.raises(TypeError):
        tvm_ffi.Device("cpu", "zero")


def test_released_handle(mod):
    p = mod.make_pair(1, 2, False)
    p.__del__()  # releases the handle early (as a moved-from wrapper would be)
    with pytest.raises(ValueError, match="released"):
        mod.echo(p)
    with pytest.raises(ValueError):
        p.a
    with pytest.raises(ValueError):
        tvm_ffi.testing.object_use_count(p)
    del p  # a second release must be a no-op


def test_released_tensor():
    t = tvm_ffi.from_dlpack(np.arange(3))
    t.__del__()
    with pytest.raises(ValueError):
        t.shape
    with pytest.raises(BufferError):
        t.__dlpack__()


def test_non_dlpack_object(mod):
    with pytest.raises(TypeError):
        tvm_ffi.from_dlpack(object())
    # Passed where a tensor is expected: it travels as an opaque object, and the typed
    # function rejects it.
    with pytest.raises(TypeError):
        mod.add_one_f32(object())


def test_wrong_tensor_dtype(mod):
    with pytest.raises(TypeError, match="float32"):
        mod.add_one_f32(np.arange(3, dtype="int64"))


def test_calling_with_bad_callable_result(mod):
    class Unconvertible:
        pass

    # Any Python object is a legal value (OpaquePyObject); a typed caller rejects it.
    with pytest.raises(TypeError):
        mod.call_repeat3(lambda a, b, c: Unconvertible(), 1)


def test_bad_global_names():
    with pytest.raises(TypeError):
        tvm_ffi.register_global_func(123, lambda: None)
    with pytest.raises(TypeError):
        tvm_ffi.Function(42)


def test_bad_dtype_and_device_strings():
    with pytest.raises(ValueError):
        tvm_ffi.dtype("float33x")
    with pytest.raises(ValueError):
        tvm_ffi.device("gpu:zero")


def test_capsule_garbage():
    import ctypes

    cap = ctypes.pythonapi.PyCapsule_New
    cap.restype = ctypes.py_object
    cap.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
    bogus = cap(1, b"not_dlpack", None)
    with pytest.raises(TypeError):
        tvm_ffi.from_dlpack(bogus)


def test_exceptions_in_callbacks_never_escape_to_c(mod):
    def raise_base():
        raise KeyboardInterrupt("stop")

    with pytest.raises(RuntimeError, match="stop"):
        mod.apply(raise_base)
