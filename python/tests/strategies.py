"""Hypothesis strategies for FFI values, and the equality the round-trip tests expect."""

import math

import numpy as np
from hypothesis import strategies as st

import tvm_ffi

I64_MIN, I64_MAX = -(1 << 63), (1 << 63) - 1

ints = st.one_of(
    st.integers(I64_MIN, I64_MAX),
    st.sampled_from([0, 1, -1, I64_MIN, I64_MAX, I64_MIN - 1, I64_MAX + 1, 1 << 64, -(1 << 64),
                     (1 << 64) - 1, 1 << 127, -(1 << 127) - 1]),
    st.integers(-(1 << 200), 1 << 200),
)
floats = st.one_of(st.floats(allow_nan=True, allow_infinity=True),
                   st.sampled_from([0.0, -0.0, math.inf, -math.inf, math.nan]))
# Strings and bytes around the 7/8-byte inline limit, with NULs and non-ASCII text.
texts = st.one_of(
    st.text(max_size=24),
    st.text(alphabet=st.sampled_from(["a", "\0", "é", "中", "😀"]), min_size=5, max_size=10),
    st.text(alphabet=st.characters(), min_size=6, max_size=9),
)
binaries = st.one_of(st.binary(max_size=24), st.binary(min_size=6, max_size=9),
                     st.sampled_from([b"\0" * 7, b"\0" * 8, b"1234567", b"12345678"]))
devices = st.builds(tvm_ffi.Device, st.sampled_from([1, 2, 3, 4, 7, 8, 10, 13, 14, 15, 16]),
                    st.integers(0, (1 << 31) - 1))
DTYPES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16",
          "float32", "float64", "bfloat16", "bool", "float32x4", "int8x16", "float8_e4m3fn",
          "float8_e5m2", "handle"]
dtypes = st.sampled_from(DTYPES).map(tvm_ffi.dtype)
shapes = st.lists(st.integers(I64_MIN, I64_MAX), max_size=6).map(tvm_ffi.Shape)

scalars = st.one_of(st.none(), st.booleans(), ints, floats, texts, binaries, devices, dtypes,
                    shapes)
keys = st.one_of(st.integers(-1000, 1000), st.text(max_size=10))


def values(containers=True):
    """Scalars, and nested lists/tuples/dicts of them when `containers`."""
    if not containers:
        return scalars
    return st.recursive(
        scalars,
        lambda children: st.one_of(st.lists(children, max_size=5),
                                   st.dictionaries(keys, children, max_size=5)),
        max_leaves=12,
    )


# ---- tensors -----------------------------------------------------------------------------------
NP_DTYPES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16",
             "float32", "float64", "bool"]


@st.composite
def np_arrays(draw, dtypes=tuple(NP_DTYPES)):
    """numpy arrays of random dtype and shape, often strided views with a start offset."""
    dtype = draw(st.sampled_from(dtypes))
    ndim = draw(st.integers(0, 4))
    shape = tuple(draw(st.lists(st.integers(0, 5), min_size=ndim, max_size=ndim)))
    steps = tuple(draw(st.lists(st.integers(1, 3), min_size=ndim, max_size=ndim)))
    starts = tuple(draw(st.lists(st.integers(0, 2), min_size=ndim, max_size=ndim)))
    base_shape = tuple(s * st_ + o for s, st_, o in zip(shape, steps, starts))
    seed = draw(st.integers(0, 2**32 - 1))
    raw = np.random.default_rng(seed).integers(0, 256, size=int(np.prod(base_shape)) *
                                               np.dtype(dtype).itemsize, dtype=np.uint8)
    base = raw.view(dtype).reshape(base_shape) if ndim else raw.view(dtype).reshape(())
    index = tuple(slice(o, o + s * st_, st_) for s, st_, o in zip(shape, steps, starts))
    arr = base[index] if ndim else base
    if ndim >= 2 and draw(st.booleans()):
        arr = arr.transpose()
    return arr


def same_value(expected, got):
    """Whether `got` is what an FFI round trip of `expected` must give (value and type)."""
    if expected is None:
        return got is None
    if isinstance(expected, bool):
        return type(got) is bool and got == expected
    if isinstance(expected, int):
        return type(got) is int and got == expected
    if isinstance(expected, float):
        if type(got) is not float:
            return False
        if math.isnan(expected):
            return math.isnan(got)
        return got == expected and math.copysign(1, got) == math.copysign(1, expected)
    if isinstance(expected, tvm_ffi.dtype):
        return isinstance(got, tvm_ffi.dtype) and got == expected
    if isinstance(expected, tvm_ffi.Shape):
        return isinstance(got, tvm_ffi.Shape) and tuple(got) == tuple(expected)
    if isinstance(expected, str):
        return type(got) is str and got == expected
    if isinstance(expected, bytes):
        return type(got) is bytes and got == expected
    if isinstance(expected, tvm_ffi.Device):
        return isinstance(got, tvm_ffi.Device) and got == expected
    if isinstance(expected, (list, tuple)):
        return (isinstance(got, tvm_ffi.Array) and len(got) == len(expected)
                and all(same_value(e, g) for e, g in zip(expected, list(got))))
    if isinstance(expected, dict):
        if not isinstance(got, tvm_ffi.Map) or len(got) != len(expected):
            return False
        items = dict(got.items())
        return all(k in items and same_value(v, items[k]) for k, v in expected.items())
    if isinstance(expected, tvm_ffi.Object):
        return isinstance(got, type(expected)) and got.same_as(expected)
    raise TypeError("no expectation for %r" % type(expected))


def contains_container(value):
    if isinstance(value, (list, tuple, dict)):
        return True
    return False


# ---- a DLPack producer with a non-zero byte_offset (numpy always exports 0) -----------------
import ctypes  # noqa: E402

from tvm_ffi import _cabi  # noqa: E402

_PRODUCED = {}


@ctypes.CFUNCTYPE(None, ctypes.c_void_p)
def _producer_deleter(managed):
    _PRODUCED.pop(managed, None)


def _root(arr):
    while isinstance(arr.base, np.ndarray):
        arr = arr.base
    return arr


class ByteOffsetProducer:
    """Exports a numpy view as data=<start of its buffer>, byte_offset=<distance to the view>."""

    def __init__(self, arr):
        self.arr = arr

    def __dlpack__(self, stream=None, **kwargs):
        arr = self.arr
        root = _root(arr)
        m = _cabi.DLManagedTensor()
        ndim = arr.ndim
        shape = (ctypes.c_int64 * max(ndim, 1))(*arr.shape)
        strides = (ctypes.c_int64 * max(ndim, 1))(*(s // arr.itemsize for s in arr.strides))
        m.dl_tensor.data = root.ctypes.data
        m.dl_tensor.byte_offset = arr.ctypes.data - root.ctypes.data
        m.dl_tensor.device = _cabi.DLDevice(1, 0)
        m.dl_tensor.ndim = ndim
        code = {"i": 0, "u": 1, "f": 2, "b": 6}[arr.dtype.kind]
        m.dl_tensor.dtype = _cabi.DLDataType(code, arr.itemsize * 8, 1)
        m.dl_tensor.shape = ctypes.cast(shape, ctypes.POINTER(ctypes.c_int64))
        m.dl_tensor.strides = ctypes.cast(strides, ctypes.POINTER(ctypes.c_int64))
        m.deleter = ctypes.cast(_producer_deleter, ctypes.c_void_p).value
        addr = ctypes.addressof(m)
        _PRODUCED[addr] = (m, shape, strides, arr)
        return _cabi.PyCapsule_New(addr, b"dltensor", None)


def produced_alive():
    """Managed tensors of ByteOffsetProducer not yet deleted by their consumer."""
    return len(_PRODUCED)


def tensor_matches(arr, t):
    """`t` (a tvm_ffi.Tensor) views exactly the memory and layout of numpy `arr`."""
    if not isinstance(t, tvm_ffi.Tensor):
        return False
    if t.shape != arr.shape or t.dtype != str(arr.dtype):
        return False
    if arr.size and t.data_ptr() != arr.ctypes.data:
        return False
    if arr.size > 1 and any(n > 1 and st * arr.itemsize != bst
                            for n, st, bst in zip(arr.shape, t.strides, arr.strides)):
        return False
    back = np.from_dlpack(t)
    return back.shape == arr.shape and back.tobytes() == arr.tobytes()
