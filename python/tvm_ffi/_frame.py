"""Call frames and raw memory access.

A call needs an array of TVMFFIAny arguments and one result slot. Allocating ctypes arrays per
call would dominate the cost, so calls borrow a preallocated `Frame` from a pool (list.pop and
list.append are atomic, so the pool is safe across threads and re-entrant for callbacks that
call back into C). Values are written as raw int64/double words through memoryviews over the
frame's bytearray, the cheapest write path Python has. Also here: reading C memory (byte
arrays, int64 arrays, DLTensor fields) and the hook that raises the thread's pending FFI error.
"""

import ctypes
import struct

from . import _cabi as C

_DLTENSOR = struct.Struct("<QiiiBBHQQQ")  # data, dev type, dev id, ndim, code, bits, lanes, ...
BYTEARRAY = struct.Struct("<QQ")  # TVMFFIByteArray {data, size}

DEFAULT_FRAME_ARGS = 16


class Frame:
    """Preallocated argument array + result slot + scratch TVMFFIByteArray for one call.

    Word layout of `buf` (int64 words): [0, 1] result, [2, 3] scratch byte array, then the
    arguments (argument i at words 4 + 2i, 5 + 2i).
    """

    __slots__ = ("cap", "buf", "q", "d", "b", "args", "res", "scratch", "temps", "res_addr",
                 "args_addr", "scratch_addr", "vp")

    def __init__(self, cap):
        self.cap = cap
        self.buf = bytearray(16 * (cap + 2))
        view = memoryview(self.buf)
        self.b = view
        self.q = view.cast("q")
        self.d = view.cast("d")
        self.res = (ctypes.c_int64 * 2).from_buffer(self.buf, 0)
        self.scratch = (ctypes.c_int64 * 2).from_buffer(self.buf, 16)
        self.args = (ctypes.c_int64 * (2 * cap)).from_buffer(self.buf, 32)
        self.res_addr = ctypes.addressof(self.res)
        self.scratch_addr = ctypes.addressof(self.scratch)
        self.args_addr = ctypes.addressof(self.args)
        self.temps = []
        # A pointer argument for C calls made without argtypes (set .value, pass the object).
        self.vp = ctypes.c_void_p()


POOL = [Frame(DEFAULT_FRAME_ARGS) for _ in range(4)]


def get_frame(nargs):
    """A frame with room for `nargs` arguments; give it back with `POOL.append`."""
    if nargs <= DEFAULT_FRAME_ARGS:
        try:
            return POOL.pop()
        except IndexError:
            return Frame(DEFAULT_FRAME_ARGS)
    return Frame(nargs)


def put_frame(fr):
    """Gives a frame back (pooled frames keep their result slot at None)."""
    fr.temps.clear()
    fr.q[0] = 0
    fr.q[1] = 0
    if fr.cap == DEFAULT_FRAME_ARGS:
        POOL.append(fr)


def _probe_bytes_offset():
    """Offset of the character buffer inside a CPython bytes object, checked on two probes."""
    probes = [b"tvm-ffi probe one", b"another probe 2"]
    offs = {ctypes.cast(ctypes.c_char_p(p), ctypes.c_void_p).value - id(p) for p in probes}
    return offs.pop() if len(offs) == 1 else None


_BYTES_OFFSET = _probe_bytes_offset()


def bytes_address(data):
    """Address of the bytes of `data` (a bytes object the caller keeps alive)."""
    if _BYTES_OFFSET is not None:
        return id(data) + _BYTES_OFFSET
    return ctypes.cast(ctypes.c_char_p(data), ctypes.c_void_p).value



def read_byte_array(addr):
    data, size = BYTEARRAY.unpack(C.string_at(addr, 16))
    return C.string_at(data, size) if size else b""



def decode_text(data):
    """UTF-8 bytes from C -> str. Lone surrogates (which Python strings may hold and send as
    their UTF-8-like encoding) come back as they went; other invalid bytes are escaped."""
    try:
        return data.decode("utf-8", "surrogatepass")
    except UnicodeDecodeError:
        return data.decode("utf-8", "surrogateescape")


# The converter of the pending FFI error into a Python exception (installed by error.py).
RAISE_LAST_ERROR = [None]


def raise_last_error():
    raise RAISE_LAST_ERROR[0]()


def read_dltensor(h_plus_cell):
    """(data, dev_type, dev_id, ndim, code, bits, lanes, shape_ptr, strides_ptr, byte_offset)."""
    return _DLTENSOR.unpack(C.string_at(h_plus_cell, 48))


def read_int64s(addr, n):
    if n == 0 or not addr:
        return ()
    return struct.unpack("<%dq" % n, C.string_at(addr, 8 * n))
