"""Call frames and raw memory access.

A call needs an array of TVMFFIAny arguments, a result slot and the function to call: a
`Frame`, mirroring `CallFrame` of ffi/src/python_support/call_helpers.cc (word offsets in
_cabi: result, scratch, arguments, W_FUNC, W_NARGS, W_OWNED; and W_STR here). Allocating per
call would dominate the cost, so calls borrow frames from a pool (list.pop and list.append are
atomic, so the pools are safe across threads and re-entrant for callbacks that call back into
C): `POOL` for calls that release the GIL, `POOL_KEEP_GIL` for Functions with
release_gil = False.

The pools start with the library's static frames, each with its own zero-argument C entry
points (`fr.call()`, and `call1`..`call3`, `call1s`, `call1o`, which also imply the number or
the kind of the arguments; global `ffi.PythonCallSlots`): a call is "write the words, call a
ctypes function that converts nothing". When they are all in use (deep nesting, many threads)
new frames are allocated here and called through CallFrameAt(frame), one pointer argument.

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
W_STR = W_OWNED + 1  # CallFrame.str_payload (call_helpers.cc)


# Frame words are read and written through memoryviews of C longs where those are 64-bit:
# storing an int above 2**30 (a handle, an address, a string's bytes) goes through
# PyLong_AsLong, about 10 ns faster than the byte-array path of PyLong_AsLongLong ('q').
# Both raise ValueError for ints beyond int64 (the call path relies on it).
WORD_FORMAT = "l" if struct.calcsize("l") == 8 else "q"


class Frame:
    """Argument array + result slot + scratch words (+ the call header for standard frames).

    Word layout of the memory (int64 words): [0, 1] result, [2, 3] scratch (a TVMFFIByteArray
    or helper parameters), then the arguments (argument i at words 4 + 2i, 5 + 2i). Frames of
    DEFAULT_FRAME_ARGS arguments are CallFrames: `call()` calls q[W_FUNC] with q[W_NARGS]
    arguments, `call1()`..`call3()` with that many (W_NARGS untouched: it stays 0),
    `call1s()` with one SmallStr argument whose payload is in word W_STR (see `s0`), `call1o()`
    with one object argument of which only the handle was written (see call_helpers.cc), and
    `ref` passes the frame to the C helpers. Whether the calls release the GIL is a property of the
    frame (`keep_gil`): such frames live in their own pool (`pool`, where put_frame returns
    them). Larger frames (rare) have no header and are called with TVMFFIFunctionCall.
    """

    __slots__ = ("cap", "mem", "q", "d", "b", "args", "res", "scratch", "temps", "res_addr",
                 "args_addr", "scratch_addr", "vp", "ref", "call", "call1", "call2", "call3",
                 "call1s", "call1o", "fh", "s0", "pool")

    def __init__(self, cap=DEFAULT_FRAME_ARGS, address=None, slots=None, keep_gil=False):
        self.cap = cap
        words = C.FRAME_WORDS if cap == DEFAULT_FRAME_ARGS else 4 + 2 * cap
        if address is None:
            self.mem = (ctypes.c_int64 * words)()
        else:
            self.mem = (ctypes.c_int64 * words).from_address(address)
        view = memoryview(self.mem).cast("B")
        self.b = view
        self.q = view.cast(WORD_FORMAT)
        self.d = view.cast("d")
        base = ctypes.addressof(self.mem)
        self.res = (ctypes.c_int64 * 2).from_address(base)
        self.scratch = (ctypes.c_int64 * 2).from_address(base + 16)
        self.args = (ctypes.c_int64 * (2 * cap)).from_address(base + 32)
        self.res_addr = base
        self.scratch_addr = base + 16
        self.args_addr = base + 32
        self.temps = []
        # The int object last written to q[W_FUNC] (None: nothing yet). Function.__call__
        # skips the store when the caller's handle is this very object: calling the same
        # function again and again (loops) then costs one identity test instead of a
        # memoryview store. Identity implies the same value, so the word is right; whoever
        # else writes q[W_FUNC] must set this too.
        self.fh = None
        # Likewise the str whose SmallStr payload word W_STR holds (for call1s), a word that
        # nothing else writes.
        self.s0 = None
        self.pool = POOL_KEEP_GIL if keep_gil else POOL
        # A pointer argument for C calls made without argtypes (set .value, pass the object).
        self.vp = ctypes.c_void_p()
        if cap != DEFAULT_FRAME_ARGS:
            self.ref = self.call = self.call1 = self.call2 = self.call3 = None
            self.call1s = self.call1o = None
            return
        for j in range(4, 4 + 2 * cap, 2):
            self.q[j] = C.kInt  # the idle state (see the module docstring)
        # byref made once: passing it costs ctypes no conversion object.
        self.ref = ctypes.byref(self.mem)
        if slots is not None:  # a static frame: its own zero-argument entry points
            cfunc = C.NoArgTypesFuncKeepGIL if keep_gil else C.NoArgTypesFunc
            (self.call, self.call1, self.call2, self.call3, self.call1s,
             self.call1o) = map(cfunc, slots)
        else:  # allocated here (the static ones are all in use): through CallFrameAt(frame)
            self.call = functools.partial(
                C.CallFrameAtKeepGIL if keep_gil else C.CallFrameAt, self.ref)
            self.call1, self.call2, self.call3 = (_with_count(self.q, self.call, n)
                                                  for n in (1, 2, 3))
            self.call1s = _with_type_word(self.q, self.call, _small_str_type_word, W_STR)
            self.call1o = _with_type_word(self.q, self.call, _object_type_word)


# Frames allocated here have no entry points of their own, only CallFrameAt(frame): these
# closures do in Python what the static frames' fixed-arity entry points do in C. They close
# over the view and the call, not the frame (no reference cycle).
def _with_count(q, call, n):
    """call() with n arguments."""

    def call_n():
        q[W_NARGS] = n
        return call()

    return call_n


def _small_str_type_word(payload):
    """The type word of a SmallStr from its payload (no NUL bytes: see call_helpers.cc)."""
    return C.kSmallStr | (((payload.bit_length() + 7) // 8) << 32)


def _object_type_word(h):
    """The type word of an object argument: its type index, read from its header."""
    return struct.unpack("<i", C.string_at(h + 8, 4))[0]


def _with_type_word(q, call, type_word, source=5):
    """call() with one argument whose type word is derived from its payload (read from word
    `source`)."""

    def call_1():
        payload = q[source]
        q[4] = type_word(payload)
        q[5] = payload
        q[W_NARGS] = 1
        return call()

    return call_1


class _CallSlotTable(ctypes.Structure):
    """PythonCallSlotTable of call_helpers.cc (global ffi.PythonCallSlots)."""

    _fields_ = [("version", ctypes.c_int64), ("num_call_frames", ctypes.c_int64),
                ("num_kinds", ctypes.c_int64), ("slots", ctypes.c_void_p * 5)]


_CALL_SLOTS_VERSION = 1


def _load_call_slots():
    """More entry points of the static frames: slots[k][i] calls frame i with k + 1 arguments
    (k < 3), with one SmallStr payload (k = 3) or with one object handle (k = 4). A raw ctypes
    call of the global, like _cabi._load_call_helpers."""
    name = b"ffi.PythonCallSlots"
    func, words = ctypes.c_void_p(), (ctypes.c_int64 * 4)()
    ba = C.TVMFFIByteArray(ctypes.cast(ctypes.c_char_p(name), ctypes.c_void_p).value, len(name))
    if C.PYLIB.TVMFFIFunctionGetGlobal(ctypes.byref(ba), ctypes.byref(func)) != 0 or not func:
        raise ImportError("tvm_ffi: libtvm_ffi lacks ffi.PythonCallSlots (an older build?)")
    try:
        rc = C.PYLIB.TVMFFIFunctionCall(func, words, 0, ctypes.byref(words, 16))
    finally:
        C.PYLIB.TVMFFIObjectDecRef(func)
    if rc != 0 or words[2] != C.kOpaquePtr or not words[3]:
        raise ImportError("tvm_ffi: ffi.PythonCallSlots failed")
    table = _CallSlotTable.from_address(words[3])
    if (table.version != _CALL_SLOTS_VERSION or table.num_kinds != 5
            or table.num_call_frames < C.CALL_HELPERS.num_call_frames):
        raise ImportError("tvm_ffi: libtvm_ffi's ffi.PythonCallSlots has an unexpected layout")
    n = table.num_call_frames
    return [(ctypes.c_void_p * n).from_address(table.slots[k]) for k in range(5)]


def _static_frames(keep_gil_frames):
    """The library's static frames (this copy of the package claimed them, see _cabi), the
    last `keep_gil_frames` of them for calls that keep the GIL."""
    table = C.CALL_HELPERS
    n = table.num_call_frames
    if not n:
        return [], []
    size = 8 * C.FRAME_WORDS
    fixed = _load_call_slots()
    frames = [Frame(address=table.call_frames + i * size,
                    slots=(table.call_slots[i],) + tuple(kind[i] for kind in fixed),
                    keep_gil=i >= n - keep_gil_frames)
              for i in range(n)]
    return frames[:n - keep_gil_frames], frames[n - keep_gil_frames:]


# The pools: frames for calls that release the GIL (the default, and the helpers' frames),
# and for calls of Functions with release_gil = False. Reversed, so that the first frames are
# used first (and the rest only under nesting). A pool that runs dry gets frames allocated
# here, which join it when given back.
POOL = []
POOL_KEEP_GIL = []
_release, _keep = _static_frames(keep_gil_frames=16)
POOL[:] = _release[::-1] or [Frame() for _ in range(4)]
POOL_KEEP_GIL[:] = _keep[::-1] or [Frame(keep_gil=True) for _ in range(4)]
del _release, _keep


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
        fr.pool.append(fr)


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
