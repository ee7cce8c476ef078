"""Conversion between Python values and TVMFFIAny words (in call frames, see _frame.py).

Conversion Python -> Any goes through `SETTERS`, a dict from a Python type to a setter
`setter(frame, word_index, value)` resolved once per type. Setters that create new FFI objects
hand the new reference to the frame (`_frame.own_arg` / `give_object`: the call drops it in C;
larger frames keep a Python owner in `frame.temps`, released right after the call).
Conversion Any -> Python is `value_from_words` (owned values) keyed on the type index.
"""

import ctypes
import struct

from . import _cabi as C
from . import _frame
from ._frame import (
    bytes_address,
    decode_text,
    get_frame,
    give_object,
    own_arg,
    put_frame,
    raise_last_error,
    read_byte_array,
)

I64_MIN = -(1 << 63)
I64_MAX = (1 << 63) - 1
_MAX_INLINE = 7  # longest string/bytes stored inside the Any (SmallStr/SmallBytes)
_U32 = 0xFFFFFFFF
_DBL = struct.Struct("<d")
_I64 = struct.Struct("<q")

# ---------------------------------------------------------------------------------------------
# Python -> Any
# ---------------------------------------------------------------------------------------------
SETTERS = {}
# Resolvers tried in order for a type with no setter yet: f(type) -> setter or None.
SETTER_RESOLVERS = []


def setter_for(tp):
    """The setter for Python type `tp`, resolved once and cached in SETTERS."""
    fn = SETTERS.get(tp)
    if fn is None:
        for resolve in SETTER_RESOLVERS:
            fn = resolve(tp)
            if fn is not None:
                break
        else:
            fn = set_opaque_pyobject
        SETTERS[tp] = fn
    return fn


def set_none(fr, j, value):
    fr.q[j] = 0
    fr.q[j + 1] = 0


def set_bool(fr, j, value):
    fr.q[j] = C.kBool
    fr.q[j + 1] = 1 if value else 0


def set_int(fr, j, value):
    value = int(value)
    if I64_MIN <= value <= I64_MAX:
        fr.q[j] = C.kInt
        fr.q[j + 1] = value
    else:
        set_bigint(fr, j, value)


def set_bigint(fr, j, value):
    """Ints beyond int64 travel as BigInt objects (TVMFFIBigIntFromByteArray)."""
    nbytes = (value.bit_length() + 1 + 63) // 64 * 8  # +1 for the sign bit
    data = value.to_bytes(nbytes, "little", signed=True)
    _byte_array_call(fr, j, data, C.BigIntFromByteArray)


def set_float(fr, j, value):
    fr.q[j] = C.kFloat
    fr.d[j + 1] = value


# Words of recently passed short strings: names and modes recur, and a dict hit is far cheaper
# than encoding. SMALL_STR_PAYLOAD holds the payload alone, for the strings whose type word
# the call helpers can derive from it (no NUL byte: Function.__call__ passes a lone such
# argument as its payload, see call_helpers.cc). Bounded: cleared when full.
SMALL_STR_WORDS = {}
SMALL_STR_PAYLOAD = {}
_SMALL_STR_CACHE_MAX = 4096


def set_str(fr, j, value):
    data = value.encode("utf-8", "surrogatepass")
    if len(data) <= _MAX_INLINE:
        _set_small(fr, j, C.kSmallStr, data)
        if type(value) is str:
            if len(SMALL_STR_WORDS) >= _SMALL_STR_CACHE_MAX:
                SMALL_STR_WORDS.clear()
                SMALL_STR_PAYLOAD.clear()
            SMALL_STR_WORDS[value] = (fr.q[j], fr.q[j + 1])
            if b"\0" not in data:
                SMALL_STR_PAYLOAD[value] = fr.q[j + 1]
    else:
        _byte_array_call(fr, j, data, C.StringFromByteArray)


def set_bytes(fr, j, value):
    data = bytes(value)
    if len(data) <= _MAX_INLINE:
        _set_small(fr, j, C.kSmallBytes, data)
    else:
        _byte_array_call(fr, j, data, C.BytesFromByteArray)


def _set_small(fr, j, tindex, data):
    n = len(data)
    fr.q[j] = tindex | (n << 32)
    # All 8 payload bytes are written: the unused tail must be zero (hashing reads the word).
    fr.b[8 * j + 8:8 * j + 16] = data + b"\0" * (8 - n)


def _byte_array_call(fr, j, data, maker):
    """Runs `maker(&TVMFFIByteArray{data}, &args[j])`, which writes an owned Any in place."""
    fr.q[2] = bytes_address(data)  # `data` stays alive (a local) during the maker call
    fr.q[3] = len(data)
    out = fr.args_addr + 8 * (j - 4)
    if maker(fr.scratch_addr, out) != 0:
        raise_last_error()
    tindex = fr.q[j]
    if C.kObject <= tindex <= 0x7FFFFFFF:
        own_arg(fr, j, fr.q[j + 1], tindex)


def set_opaque_ptr(fr, j, value):
    fr.q[j] = C.kOpaquePtr
    fr.q[j + 1] = value.value or 0


# Converters of the kinds whose FFI types live above this module, registered by those modules
# when they load (container: "array", "map"; function: "function"; error: "error"; tensor:
# "dlpack"), so that value conversion depends on nothing above it. `import tvm_ffi` loads
# them all before any call.
CONVERTERS = {}


def _converter(kind):
    fn = CONVERTERS.get(kind)
    if fn is None:
        raise RuntimeError("tvm_ffi: no %s converter registered (import tvm_ffi first)" % kind)
    return fn


def set_sequence(fr, j, value):
    give_object(fr, j, _converter("array")(value), True)


def set_mapping(fr, j, value):
    give_object(fr, j, _converter("map")(value), True)


def set_object(fr, j, value):
    """Any FFI object wrapper: passed borrowed, the wrapper keeps it alive during the call."""
    h = value._h
    if not h:
        raise ValueError("cannot pass a released or moved %s" % type(value).__name__)
    fr.q[j] = value._ti
    fr.q[j + 1] = h


def set_callable(fr, j, value):
    f = _converter("function")(value)
    give_object(fr, j, f, f is not value)


# Opaque Python objects: the FFI object holds one strong Python reference, dropped by a
# GIL-taking ctypes callback whichever thread releases the object.
@C.FUNC_DELETER
def _opaque_deleter(handle):
    C.Py_DecRef(handle)


_OPAQUE_DELETER_ADDR = ctypes.cast(_opaque_deleter, ctypes.c_void_p).value


def set_opaque_pyobject(fr, j, value):
    if isinstance(value, BaseException):
        err = _converter("error")(value)  # may be the exception's own Error: not fresh
        give_object(fr, j, err, err is not getattr(value, "__tvm_ffi_error__", None))
        return
    out = ctypes.c_void_p()
    C.Py_IncRef(value)
    if C.ObjectCreateOpaque(id(value), C.kOpaquePyObject, _OPAQUE_DELETER_ADDR, ctypes.byref(out)):
        C.Py_DecRef(id(value))
        raise_last_error()
    fr.q[j] = C.kOpaquePyObject
    fr.q[j + 1] = out.value
    own_arg(fr, j, out.value, C.kOpaquePyObject)


SETTERS.update({
    type(None): set_none,
    bool: set_bool,
    int: set_int,
    float: set_float,
    str: set_str,
    bytes: set_bytes,
    bytearray: set_bytes,
    list: set_sequence,
    tuple: set_sequence,
    dict: set_mapping,
    ctypes.c_void_p: set_opaque_ptr,
})


def _resolve_builtin_like(tp):
    """Subclasses and ABC-registered types of the builtin kinds (IntEnum, numpy scalars...)."""
    import collections.abc as abc
    import numbers

    for base, fn in ((bool, set_bool), (str, set_str), (bytes, set_bytes),
                     (bytearray, set_bytes), (ctypes.c_void_p, set_opaque_ptr)):
        if issubclass(tp, base):
            return fn
    if hasattr(tp, "__tvm_ffi_object__"):
        return lambda fr, j, v: set_object(fr, j, v.__tvm_ffi_object__())
    if hasattr(tp, "__dlpack__"):
        return _converter("dlpack")(tp)  # a setter for that tensor type
    if hasattr(tp, "__tvm_ffi_int__"):
        return lambda fr, j, v: set_int(fr, j, v.__tvm_ffi_int__())
    if hasattr(tp, "__tvm_ffi_float__"):
        return lambda fr, j, v: set_float(fr, j, float(v.__tvm_ffi_float__()))
    if tp.__module__ == "numpy" and tp.__name__ in ("bool_", "bool"):
        return lambda fr, j, v: set_bool(fr, j, bool(v))
    if issubclass(tp, numbers.Integral):
        return set_int
    if issubclass(tp, numbers.Real):
        return lambda fr, j, v: set_float(fr, j, float(v))
    if issubclass(tp, (list, tuple)):
        return set_sequence
    if issubclass(tp, dict) or issubclass(tp, abc.Mapping):
        return set_mapping
    if hasattr(tp, "__tvm_ffi_opaque_ptr__"):
        return lambda fr, j, v: set_opaque_ptr(fr, j, ctypes.c_void_p(v.__tvm_ffi_opaque_ptr__()))
    if issubclass(tp, BaseException):
        return set_opaque_pyobject
    if any("__call__" in vars(k) for k in tp.__mro__ if k is not object):
        return set_callable
    return None


SETTER_RESOLVERS.append(_resolve_builtin_like)


def pack_args(fr, args):
    """Writes `args` into frame `fr` as AnyViews (the general path of Function.__call__ and
    the path of other callers)."""
    j = 4
    q = fr.q
    for a in args:
        t = type(a)
        if t is int and I64_MIN <= a <= I64_MAX:
            q[j] = 1
            q[j + 1] = a
        elif t is str:
            words = SMALL_STR_WORDS.get(a)  # (one lookup: another thread may clear it)
            if words is None:
                set_str(fr, j, a)
            else:
                q[j], q[j + 1] = words
        else:
            (SETTERS.get(t) or setter_for(t))(fr, j, a)
        j += 2


# ---------------------------------------------------------------------------------------------
# Any -> Python
# ---------------------------------------------------------------------------------------------
# Object constructors by type index: f(handle, type_index) -> Python value taking ownership of
# one reference. Filled by object.py (classes) and the modules of special kinds.
OBJECT_MAKERS = {}
# Fallback maker for indices without an entry (object.py installs the class lookup).
MAKE_OBJECT = [None]


def wrap_handle(h, tindex, borrowed=False):
    """The Python value of object handle `h` (taking one reference, or a new one when
    `borrowed`), through the maker registered for its type index."""
    if borrowed:
        C.ObjectIncRef(h)
    maker = OBJECT_MAKERS.get(tindex)
    return maker(h, tindex) if maker is not None else MAKE_OBJECT[0](h, tindex)


def owner_of(h, tindex):
    """A bare Object wrapper owning one reference of `h` (for temporaries)."""
    return MAKE_OBJECT[0](h, tindex, bare=True)


_frame.OWNER_OF[0] = owner_of


def read_str_object(h):
    return decode_text(read_byte_array(h + C.OBJ_CELL))


def _str_from_object(h, tindex):
    try:
        return decode_text(read_byte_array(h + C.OBJ_CELL))
    finally:
        C.ObjectDecRef(h)


def _bytes_from_object(h, tindex):
    try:
        return read_byte_array(h + C.OBJ_CELL)
    finally:
        C.ObjectDecRef(h)


def _bigint_from_object(h, tindex):
    """BigInt -> int through TVMFFIBigIntGetContentByteArray (int64 words, little end first)."""
    fr = get_frame(0)
    try:
        fr.q[2] = tindex
        fr.q[3] = h
        words = C.BigIntGetContentByteArray(fr.scratch_addr)
        data = C.string_at(words.data, words.size) if words.size else b""
        return int.from_bytes(data, "little", signed=True)
    finally:
        put_frame(fr)
        C.ObjectDecRef(h)


def _pyobject_from_object(h, tindex):
    try:
        addr = _I64.unpack(C.string_at(h + C.OBJ_CELL, 8))[0]
        return ctypes.cast(addr, ctypes.py_object).value
    finally:
        C.ObjectDecRef(h)


OBJECT_MAKERS.update({
    C.kStr: _str_from_object,
    C.kBytes: _bytes_from_object,
    C.kBigInt: _bigint_from_object,
    C.kOpaquePyObject: _pyobject_from_object,
})

# POD makers by type index: f(payload_int64) -> value. Float is handled by the callers, which
# can read the payload as a double directly.
_DEVICE_CLS = [None]
_DTYPE_FROM_PAYLOAD = [None]


def _small_bytes(w0, w1):
    return _I64.pack(w1)[: w0 >> 32]


def value_from_words(w0, w1):
    """The Python value of an owned Any given as two int64 words (payload as int)."""
    if C.kObject <= w0 <= 0x7FFFFFFF:  # small strings carry their length above bit 32
        maker = OBJECT_MAKERS.get(w0)
        if maker is None:
            return MAKE_OBJECT[0](w1, w0)
        return maker(w1, w0)
    tindex = w0 & _U32
    if tindex == C.kInt:
        return w1
    if tindex == C.kNone:
        return None
    if tindex == C.kBool:
        return w1 != 0
    if tindex == C.kFloat:
        return _DBL.unpack(_I64.pack(w1))[0]
    if tindex == C.kSmallStr:
        return decode_text(_small_bytes(w0, w1))
    if tindex == C.kSmallBytes:
        return _small_bytes(w0, w1)
    if tindex == C.kDevice:
        return _DEVICE_CLS[0]._from_payload(w1)
    if tindex == C.kDataType:
        return _DTYPE_FROM_PAYLOAD[0](w1)
    if tindex == C.kOpaquePtr:
        return ctypes.c_void_p(w1) if w1 else None
    if tindex == C.kDLTensorPtr:
        return ctypes.c_void_p(w1)
    if tindex == C.kUnchanged:
        return None
    raise ValueError("cannot convert an FFI value of type index %d to Python" % tindex)


def value_from_view(w0, w1):
    """Like value_from_words for a borrowed view (callback arguments): objects gain a
    reference, raw C strings and byte arrays are copied."""
    if C.kObject <= w0 <= 0x7FFFFFFF:
        C.ObjectIncRef(w1)
        return value_from_words(w0, w1)
    tindex = w0 & _U32
    if tindex == C.kRawStr:
        return decode_text(ctypes.string_at(w1))
    if tindex == C.kByteArrayPtr:
        return read_byte_array(w1)
    if tindex == C.kObjectRValueRef:
        addr = _I64.unpack(C.string_at(w1, 8))[0]
        if not addr:
            raise ValueError("ObjectRValueRef already moved")
        # Take the object out of the slot, as TVMFFIAnyViewToOwnedAny would.
        ctypes.c_void_p.from_address(w1).value = None
        tidx = struct.unpack("<i", C.string_at(addr + 8, 4))[0]
        return value_from_words(tidx, addr)
    return value_from_words(w0, w1)


def result_value(fr):
    """Converts the owned result in frame `fr` (fast paths first)."""
    q = fr.q
    w0 = q[0]
    if w0 == C.kInt:
        return q[1]
    if w0 == C.kNone:
        return None
    if w0 == C.kFloat:
        return fr.d[1]
    return value_from_words(w0, q[1])


