"""Every builtin kind of value, both ways, through a C echo and a Python callback."""

import ctypes
import math

import pytest

import tvm_ffi
from strategies import I64_MAX, I64_MIN, same_value

SCALARS = [
    None, True, False, 0, 1, -1, I64_MIN, I64_MAX, I64_MAX + 1, I64_MIN - 1, 1 << 100,
    -(1 << 100), 0.0, -0.0, 1.5, math.inf, -math.inf, math.nan,
    "", "a", "1234567", "12345678", "a\0b", "\0" * 8, "héllo wörld", "😀" * 3,
    b"", b"\0", b"1234567", b"12345678", b"\xff" * 9,
    tvm_ffi.Device("cpu", 0), tvm_ffi.Device("cuda:7"), tvm_ffi.dtype("float32"),
    tvm_ffi.dtype("int8x4"), tvm_ffi.dtype("bool"), tvm_ffi.Shape([]), tvm_ffi.Shape([2, 3]),
    tvm_ffi.Shape([I64_MIN, I64_MAX]),
]


@pytest.mark.parametrize("value", SCALARS, ids=repr)
def test_echo_scalars(mod, value):
    assert same_value(value, mod.echo(value))


@pytest.mark.parametrize("value", SCALARS, ids=repr)
def test_callback_scalars(mod, value):
    seen = []

    def identity(x):
        seen.append(x)
        return x

    assert same_value(value, mod.apply(identity, value))
    assert same_value(value, seen[0])


def test_small_and_heap_strings_arrive_as_strings(mod):
    # 7 bytes travel inline (SmallStr, 11), 8 and more as String objects (65).
    assert mod.type_index("1234567") == 11
    assert mod.type_index("12345678") == 65
    assert mod.type_index(b"1234567") == 12
    assert mod.type_index(b"12345678") == 66
    assert mod.type_index(1 << 64) == 78
    assert mod.type_index(I64_MAX) == 1


def test_opaque_pointer(mod):
    p = ctypes.c_void_p(0x1234)
    out = mod.echo(p)
    assert isinstance(out, ctypes.c_void_p) and out.value == 0x1234
    assert mod.type_index(p) == 4


def test_opaque_python_object(mod):
    class Thing:
        pass

    thing = Thing()
    assert mod.echo(thing) is thing
    assert mod.type_index(thing) == 74


def test_int_like_and_float_like(mod):
    import enum

    class Color(enum.IntEnum):
        RED = 3

    assert mod.echo(Color.RED) == 3 and type(mod.echo(Color.RED)) is int
    import numpy as np

    assert mod.echo(np.int32(-5)) == -5
    assert mod.echo(np.float32(0.5)) == 0.5
    assert mod.echo(np.bool_(True)) is True


def test_str_subclasses(mod):
    assert mod.echo(tvm_ffi.String("abc")) == "abc"
    assert mod.echo(tvm_ffi.Bytes(b"abc")) == b"abc"


def test_convert():
    assert tvm_ffi.convert(3) == 3
    assert tvm_ffi.convert("hello") == "hello"
    f = tvm_ffi.convert(lambda x: x + 1)
    assert isinstance(f, tvm_ffi.Function) and f(1) == 2


def test_dtype_api():
    f32 = tvm_ffi.dtype("float32")
    assert f32 == "float32" and f32.bits == 32 and f32.lanes == 1 and f32.itemsize == 4
    assert f32.with_lanes(4) == "float32x4" and f32.with_lanes(4).itemsize == 16
    assert tvm_ffi.dtype.from_dlpack_data_type((2, 16, 1)) == "float16"
    assert tvm_ffi.float32 == f32 and repr(f32) == "dtype('float32')"
    assert tvm_ffi.dtype.is_dtype("int8") and not tvm_ffi.dtype.is_dtype("not_a_dtype")
    with pytest.raises(ValueError):
        tvm_ffi.dtype("not_a_dtype")


def test_device_api():
    d = tvm_ffi.device("cuda:1")
    assert d == tvm_ffi.device("cuda", 1) and d.type == "cuda" and d.index == 1
    assert str(d) == "cuda:1" and repr(d) == "device(type='cuda', index=1)"
    assert d.dlpack_device_type() == tvm_ffi.DLDeviceType.kDLCUDA
    assert hash(d) == hash(tvm_ffi.device("cuda", 1))
    with pytest.raises(ValueError):
        tvm_ffi.device("nosuchdevice")
