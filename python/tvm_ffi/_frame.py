"""Call frames and raw memory access.

A call needs an array of TVMFFIAny arguments, a result slot and the function to call: a
`Frame`, mirroring `CallFrame` of ffi/src/python_support/call_helpers.cc (word offsets in
_cabi: result, scratch, arguments, W_FUNC, W_NARGS, W_OWNED). Allocating per call would
dominate the cost, so calls borrow frames from `POOL` (list.pop and list.append are atomic, so
the pool is safe across threads and re-entrant for callbacks that call back into C).

The pool starts with the library's static frames, each with its own zero-argument C entry
point (`fr.call()`): a call is "write the words, call a ctypes function that converts
nothing". When they are all in use (deep nesting, many threads) new frames are allocated here
and called through CallFrameAt(frame), one pointer argument.

Values are written as raw int64/double words through memoryviews over the frame, the cheapest
write path Python has, and each store costs tens of nanoseconds, so pooled frames keep an idle
state that the C call restores: W_NARGS = 0, every argument's type word Int (an Int argument
is written as its payload alone), nothing owned (W_OWNED = 0). The call also sets the result to
None before calling; code that hands `res_addr` to other C functions sets it itself.
Temporaries made for a call are owned by the frame (W_OWNED: the call drops them in C), so
standard frames never use `temps` (only the rare larger frames do). Code that writes arguments
without calling must say so to `put_frame`.

Also here: reading C memory (byte arrays, int64 arrays, DLTensor fields) and the hook that
raises the thread's pending FFI error.
"""

import ctypes
import functools
import struct

from . import _cabi as C

_DLTENSOR = struct.Struct("<QiiiBBHQQQ")  # data, dev type, dev id, ndim, code, bits, lanes, ...
BYTEARRAY = struct.Struct("<QQ")  # TVMFFIByteArray {data, size}

DEFAULT_FRAME_ARGS = C.FRAME_ARGS
W_FUNC, W_NARGS, W_OWNED = C.W_FUNC, C.W_NARGS, C.W_OWNED


class Frame:
    """Argument array + result slot + scratch words (+ the call header for standard frames).

    Word layout of the memory (int64 words): [0, 1] result, [2, 3] scratch (a TVMFFIByteArray
    or helper parameters), then the arguments (argument i at words 4 + 2i, 5 + 2i). Frames of
    DEFAULT_FRAME_ARGS arguments are CallFrames: `call()` / `call_keep_gil()` call
    q[W_FUNC] with q[W_NARGS] arguments, and `ref` passes the frame to the C helpers.
    Larger frames (rare) have no header and are called with TVMFFIFunctionCall.
    """

    __slots__ = ("cap", "mem", "q", "d", "b", "args", "res", "scratch", "temps", "res_addr",
                 "args_addr", "scratch_addr", "vp", "ref", "call", "call_keep_gil")

    def __init__(self, cap=DEFAULT_FRAME_ARGS, address=None, slot=None):
        self.cap = cap
        words = C.FRAME_WORDS if cap == DEFAULT_FRAME_ARGS else 4 + 2 * cap
        if address is None:
            self.mem = (ctypes.c_int64 * words)()
        else:
            self.mem = (ctypes.c_int64 * words).from_address(address)
        view = memoryview(self.mem).cast("B")
        self.b = view
        self.q = view.cast("q")
        self.d = view.cast("d")
        base = ctypes.addressof(self.mem)
        self.res = (ctypes.c_int64 * 2).from_address(base)
        self.scratch = (ctypes.c_int64 * 2).from_address(base + 16)
        self.args = (ctypes.c_int64 * (2 * cap)).from_address(base + 32)
        self.res_addr = base
        self.scratch_addr = base + 16
        self.args_addr = base + 32
        self.temps = []
        # A pointer argument for C calls made without argtypes (set .value, pass the object).
        self.vp = ctypes.c_void_p()
        if cap != DEFAULT_FRAME_ARGS:
            self.ref = self.call = self.call_keep_gil = None
            return
        for j in range(4, 4 + 2 * cap, 2):
            self.q[j] = C.kInt  # the idle state (see the module docstring)
        # byref made once: passing it costs ctypes no conversion object.
        self.ref = ctypes.byref(self.mem)
        if slot is not None:  # a static frame: its own zero-argument entry point
            self.call = C.NoArgTypesFunc(slot)
            self.call_keep_gil = C.NoArgTypesFuncKeepGIL(slot)
        else:
            self.call = functools.partial(C.CallFrameAt, self.ref)
            self.call_keep_gil = functools.partial(C.CallFrameAtKeepGIL, self.ref)


def _static_frames():
    table = C.CALL_HELPERS
    size = 8 * C.FRAME_WORDS
    return [Frame(address=table.call_frames + i * size, slot=table.call_slots[i])
            for i in range(table.num_call_frames)]


# Reversed, so that the first frames are used first (and the rest only under nesting).
POOL = _static_frames()[::-1] or [Frame() for _ in range(4)]


def get_frame(nargs):
    """A frame with room for `nargs` arguments; give it back with `put_frame`."""
    if nargs <= DEFAULT_FRAME_ARGS:
        try:
            return POOL.pop()
        except IndexError:
            return Frame()
    return Frame(nargs)


def put_frame(fr, nargs=0):
    """Gives a frame back, restoring the idle state (see the module docstring). `nargs`: how
    many arguments the caller wrote without calling the frame (they are reset)."""
    fr.temps.clear()
    q = fr.q
    q[0] = 0
    q[1] = 0
    if fr.cap == DEFAULT_FRAME_ARGS:
        if q[W_OWNED]:
            C.ResetFrame(fr.ref)  # drops the owned references, resets every argument
        else:
            for j in range(4, 4 + 2 * nargs, 2):
                q[j] = C.kInt
        POOL.append(fr)


def reset_frame(fr):
    """Gives a frame back after a failure part way through writing arguments."""
    fr.temps.clear()
    if fr.cap == DEFAULT_FRAME_ARGS:
        C.ResetFrame(fr.ref)
    put_frame(fr)


def own_arg(fr, j, h, tindex):
    """Records that argument word `j` holds a reference (`h`) the frame must drop: the frame
    owns it when it has an owned mask (dropped in C after the call), else a wrapper does."""
    if fr.cap == DEFAULT_FRAME_ARGS:
        fr.q[W_OWNED] |= 1 << ((j - 4) >> 1)
    else:
        fr.temps.append(OWNER_OF[0](h, tindex))


def give_object(fr, j, obj, fresh):
    """Argument word `j` := the object of wrapper `obj`, kept alive during the call. Frames
    with an owned mask hold a reference of their own: a `fresh` wrapper (made for this call,
    referenced nowhere else) hands over its reference, any other gains one. Other frames keep
    the wrapper in fr.temps."""
    h = obj._h
    fr.q[j] = obj._ti
    fr.q[j + 1] = h
    if fr.cap == DEFAULT_FRAME_ARGS:
        if fresh:
            obj._h = 0  # the frame owns the reference now; the wrapper's __del__ skips it
        else:
            C.ObjectIncRef(h)
        fr.q[W_OWNED] |= 1 << ((j - 4) >> 1)
    else:
        fr.temps.append(obj)


def take_arg(fr, j):
    """The words of argument `j` as an owned value: an owned argument is taken out of the
    frame, any other object gains a reference."""
    q = fr.q
    w0, w1 = q[j], q[j + 1]
    if 64 <= w0 <= 0x7FFFFFFF:
        bit = 1 << ((j - 4) >> 1)
        if fr.cap == DEFAULT_FRAME_ARGS and q[W_OWNED] & bit:
            q[W_OWNED] ^= bit
        else:
            C.ObjectIncRef(w1)
    return w0, w1


# A bare owner of one reference (object.make_object, installed by _any).
OWNER_OF = [None]


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
