"""ctypes mirror of the C ABI in ffi/include/tvm/ffi/c_api.h (layouts, constants, entry points),
and of the library's internal call helpers for this package (call_helpers.cc).

Entry points on the hot path (the call helpers, TVMFFIFunctionCall) are deliberately left
without `argtypes`: ctypes then converts arguments natively instead of through from_param,
which is about twice as fast. Such functions are always called with ctypes objects (c_void_p,
arrays, byref) or small ints, never with raw Python ints holding addresses (ctypes would pass
a 32-bit C int). Cold-path functions get full signatures for safety.
"""

import ctypes
from ctypes import (
    CFUNCTYPE,
    POINTER,
    Structure,
    c_char_p,
    c_double,
    c_int,
    c_int32,
    c_int64,
    c_size_t,
    c_uint8,
    c_uint16,
    c_uint32,
    c_uint64,
    c_void_p,
)

from ._lib import LIB, PYLIB

# ---- type indices (TVMFFITypeIndex) --------------------------------------------------------
kAny = -1
kNone = 0
kInt = 1
kBool = 2
kFloat = 3
kOpaquePtr = 4
kDataType = 5
kDevice = 6
kDLTensorPtr = 7
kRawStr = 8
kByteArrayPtr = 9
kObjectRValueRef = 10
kSmallStr = 11
kSmallBytes = 12
kUnchanged = 13
kObject = 64
kStr = 65
kBytes = 66
kError = 67
kFunction = 68
kShape = 69
kTensor = 70
kArray = 71
kMap = 72
kModule = 73
kOpaquePyObject = 74
kList = 75
kDict = 76
kBigInt = 78


# ---- structs ---------------------------------------------------------------------------------
class TVMFFIAny(Structure):
    """The 16-byte tagged value; the payload is viewed as int64 here."""

    _fields_ = [("type_index", c_int32), ("zero_padding", c_uint32), ("v_int64", c_int64)]


class TVMFFIByteArray(Structure):
    _fields_ = [("data", c_void_p), ("size", c_size_t)]


class TVMFFIVersion(Structure):
    _fields_ = [("major", c_uint32), ("minor", c_uint32), ("patch", c_uint32)]


class DLDevice(Structure):
    _fields_ = [("device_type", c_int32), ("device_id", c_int32)]


class DLDataType(Structure):
    _fields_ = [("code", c_uint8), ("bits", c_uint8), ("lanes", c_uint16)]


class DLTensor(Structure):
    _fields_ = [
        ("data", c_void_p),
        ("device", DLDevice),
        ("ndim", c_int32),
        ("dtype", DLDataType),
        ("shape", POINTER(c_int64)),
        ("strides", POINTER(c_int64)),
        ("byte_offset", c_uint64),
    ]


class DLPackVersion(Structure):
    _fields_ = [("major", c_uint32), ("minor", c_uint32)]


DLPACK_DELETER = CFUNCTYPE(None, c_void_p)


class DLManagedTensor(Structure):
    _fields_ = [("dl_tensor", DLTensor), ("manager_ctx", c_void_p), ("deleter", c_void_p)]


class DLManagedTensorVersioned(Structure):
    _fields_ = [
        ("version", DLPackVersion),
        ("manager_ctx", c_void_p),
        ("deleter", c_void_p),
        ("flags", c_uint64),
        ("dl_tensor", DLTensor),
    ]


class TVMFFIFieldInfo(Structure):
    _fields_ = [
        ("name", TVMFFIByteArray),
        ("doc", TVMFFIByteArray),
        ("metadata", TVMFFIByteArray),
        ("flags", c_int64),
        ("size", c_int64),
        ("alignment", c_int64),
        ("offset", c_int64),
        ("getter", c_void_p),
        ("setter", c_void_p),
        ("default_value_or_factory", TVMFFIAny),
        ("field_static_type_index", c_int32),
    ]


class TVMFFIMethodInfo(Structure):
    _fields_ = [
        ("name", TVMFFIByteArray),
        ("doc", TVMFFIByteArray),
        ("metadata", TVMFFIByteArray),
        ("flags", c_int64),
        ("method", TVMFFIAny),
    ]


class TVMFFITypeMetadata(Structure):
    _fields_ = [
        ("doc", TVMFFIByteArray),
        ("creator", c_void_p),
        ("total_size", c_int32),
        ("structural_eq_hash_kind", c_int32),
    ]


class TVMFFITypeInfo(Structure):
    pass


TVMFFITypeInfo._fields_ = [
    ("type_index", c_int32),
    ("type_depth", c_int32),
    ("type_key", TVMFFIByteArray),
    ("type_ancestors", POINTER(POINTER(TVMFFITypeInfo))),
    ("type_key_hash", c_uint64),
    ("num_fields", c_int32),
    ("num_methods", c_int32),
    ("fields", POINTER(TVMFFIFieldInfo)),
    ("methods", POINTER(TVMFFIMethodInfo)),
    ("metadata", POINTER(TVMFFITypeMetadata)),
]

assert ctypes.sizeof(TVMFFIAny) == 16 and ctypes.sizeof(TVMFFITypeInfo) == 72
assert ctypes.sizeof(TVMFFIFieldInfo) == 120 and ctypes.sizeof(TVMFFIMethodInfo) == 72
assert ctypes.sizeof(DLManagedTensor) == 64 and ctypes.sizeof(DLManagedTensorVersioned) == 80

# Offsets inside objects (relative to the handle).
OBJ_CELL = 24  # first byte after the TVMFFIObject header

# ---- call helpers (ffi/src/python_support/call_helpers.cc) ------------------------------------
# Internal helpers of libtvm_ffi for this package; their addresses come from the global
# `ffi.PythonCallHelpers` (an OpaquePtr to this table). See _frame.py for how they are used.
CALL_HELPERS_VERSION = 3  # 2: void callbacks, W_STR, ffi.PythonCallSlots; 3: env words
FRAME_ARGS = 16  # arguments per call frame (kMaxArgs)
# int64 word offsets in a CallFrame: [0, 1] result, [2, 3] scratch, [4, 36) arguments, then:
W_FUNC = 4 + 2 * FRAME_ARGS  # the Function handle to call
W_NARGS = W_FUNC + 1  # number of arguments; every call resets it to 0
W_OWNED = W_FUNC + 2  # bit i: argument i is a reference the frame owns and the call drops
# The framework environment of a call (CallFrame::env_*): set while packing a framework
# tensor argument, restored by the call (or by reset_frame); W_RESULT_API is the call's output.
W_ENV_API = W_FUNC + 4
W_ENV_PREV_ALLOC = W_FUNC + 5
W_ENV_STREAM_DEV = W_FUNC + 6
W_ENV_PREV_STREAM = W_FUNC + 7
W_RESULT_API = W_FUNC + 8
FRAME_WORDS = W_FUNC + 9
# Idle frames (pooled, and after every call) have every argument's type word = kInt, so an
# Int argument is written as its payload alone.
# int64 word offsets in a CallbackFrame: [0, 1] result, 2 key, 3 number of arguments, [4, 36)
# arguments (copied views).
CB_FRAME_WORDS = 4 + 2 * FRAME_ARGS


class PythonCallHelperTable(Structure):
    _fields_ = [
        ("version", c_int64),
        ("max_args", c_int64),
        ("num_call_frames", c_int64),
        ("call_frames", c_void_p),
        ("call_slots", POINTER(c_void_p)),
        ("call_frame_at", c_void_p),
        ("reset_frame", c_void_p),
        ("import_capsule", c_void_p),
        ("num_callback_frames", c_int64),
        ("callback_frames", c_void_p),
        ("callback_safe_call", c_void_p),
        ("set_python_callbacks", c_void_p),
    ]


class PythonCallbacks(Structure):
    _fields_ = [(name, c_void_p) for name in
                ("generic", "frame", "args0", "ints1", "ints2", "ints3")]


class NoArgTypesFunc(ctypes._CFuncPtr):
    """`int f(...)` at an address, called without argtypes (no per-call conversion objects:
    ctypes passes ints as C ints and ctypes instances/byref by address). Releases the GIL."""

    _flags_ = ctypes._FUNCFLAG_CDECL
    _restype_ = c_int


class NoArgTypesFuncKeepGIL(ctypes._CFuncPtr):
    """Same, keeping the GIL (for helpers that never block, or that touch Python objects)."""

    _flags_ = ctypes._FUNCFLAG_CDECL | ctypes._FUNCFLAG_PYTHONAPI
    _restype_ = c_int


def _load_call_helpers():
    """Claims the helper table: a raw ctypes call of the global (the call path needs it)."""
    name = b"ffi.PythonCallHelpers"
    func, words = c_void_p(), (c_int64 * 4)()
    ba = TVMFFIByteArray(ctypes.cast(c_char_p(name), c_void_p).value, len(name))
    if PYLIB.TVMFFIFunctionGetGlobal(ctypes.byref(ba), ctypes.byref(func)) != 0 or not func:
        raise ImportError("tvm_ffi: libtvm_ffi lacks ffi.PythonCallHelpers (an older build?)")
    try:
        rc = PYLIB.TVMFFIFunctionCall(func, words, 0, ctypes.byref(words, 16))
    finally:
        PYLIB.TVMFFIObjectDecRef(func)
    if rc != 0 or words[2] != kOpaquePtr or not words[3]:
        raise ImportError("tvm_ffi: ffi.PythonCallHelpers failed")
    table = PythonCallHelperTable.from_address(words[3])
    if table.version != CALL_HELPERS_VERSION or table.max_args != FRAME_ARGS:
        raise ImportError("tvm_ffi: libtvm_ffi's call helpers have layout version %d, this "
                          "package expects %d" % (table.version, CALL_HELPERS_VERSION))
    return table


CALL_HELPERS = _load_call_helpers()
# Calls any CallFrame (by pointer): CallFrameAt(frame).
CallFrameAt = NoArgTypesFunc(CALL_HELPERS.call_frame_at)
CallFrameAtKeepGIL = NoArgTypesFuncKeepGIL(CALL_HELPERS.call_frame_at)
# Restores a frame's idle state after a failure: ResetFrame(frame).
ResetFrame = NoArgTypesFuncKeepGIL(CALL_HELPERS.reset_frame)
# DLPack capsule -> Tensor: ImportCapsule(frame), parameters in the frame's scratch words.
ImportCapsule = NoArgTypesFuncKeepGIL(CALL_HELPERS.import_capsule)

# C -> Python callback prototypes of PyCallbackSafeCall (call_helpers.cc): the callback frame
# index first, then the Function's `self` (the address of a Python object: ctypes passes the
# object itself), then Int arguments by value. They return nothing (see function.py).
_pyobj = ctypes.py_object
CB_FRAME = CFUNCTYPE(None, c_int32)
CB_ARGS0 = CFUNCTYPE(None, c_int32, _pyobj)
CB_INTS1 = CFUNCTYPE(None, c_int32, _pyobj, c_int64)
CB_INTS2 = CFUNCTYPE(None, c_int32, _pyobj, c_int64, c_int64)
CB_INTS3 = CFUNCTYPE(None, c_int32, _pyobj, c_int64, c_int64, c_int64)

# ---- callback prototypes ---------------------------------------------------------------------
# The safe_call itself (the trampoline's fallback): `self` arrives as an int; args and result
# as int64 pointers, which cost a little to build but make reading and writing words cheap
# (measured: cheaper overall than from_address).
SAFE_CALL = CFUNCTYPE(c_int, c_void_p, POINTER(c_int64), c_int32, POINTER(c_int64))
FUNC_DELETER = CFUNCTYPE(None, c_void_p)
# A field getter copies one field into an Any (a reference count taken, nothing that blocks or
# calls back into Python): called with the GIL held, which spares its release and retaking.
FIELD_GETTER = ctypes.PYFUNCTYPE(c_int, c_void_p, c_void_p)
FIELD_SETTER = CFUNCTYPE(c_int, c_void_p, c_void_p)


def _sig(func, restype, argtypes):
    func.restype = restype
    func.argtypes = argtypes
    return func


# ---- hot path: no argtypes (see module docstring) -------------------------------------------
FunctionCall = LIB.TVMFFIFunctionCall  # (c_void_p, array, int, array) -> int, GIL released
FunctionCallNoGIL = PYLIB.TVMFFIFunctionCall  # same, GIL kept (Function.release_gil = False)
# DLPack import, called as (c_void_p managed, int, int, frame scratch array) -> int.
TensorFromDLPackRaw = PYLIB.TVMFFITensorFromDLPack
TensorFromDLPackVersionedRaw = PYLIB.TVMFFITensorFromDLPackVersioned

# ---- cold path: full signatures; these never block or call Python, so the GIL is kept ------
ObjectIncRef = _sig(PYLIB.TVMFFIObjectIncRef, c_int, [c_void_p])
# DecRef may run deleters that call back into Python (capsules, callbacks): ctypes callbacks
# re-acquire the GIL recursively, so keeping it here is safe.
ObjectDecRef = _sig(PYLIB.TVMFFIObjectDecRef, c_int, [c_void_p])
ObjectCreateOpaque = _sig(
    PYLIB.TVMFFIObjectCreateOpaque, c_int, [c_void_p, c_int32, c_void_p, POINTER(c_void_p)]
)
TypeKeyToIndex = _sig(
    PYLIB.TVMFFITypeKeyToIndex, c_int, [POINTER(TVMFFIByteArray), POINTER(c_int32)]
)
FunctionCreate = _sig(
    PYLIB.TVMFFIFunctionCreate, c_int, [c_void_p, c_void_p, c_void_p, POINTER(c_void_p)]
)
FunctionGetGlobal = _sig(
    PYLIB.TVMFFIFunctionGetGlobal, c_int, [POINTER(TVMFFIByteArray), POINTER(c_void_p)]
)
FunctionSetGlobal = _sig(
    PYLIB.TVMFFIFunctionSetGlobal, c_int, [POINTER(TVMFFIByteArray), c_void_p, c_int]
)
AnyViewToOwnedAny = _sig(PYLIB.TVMFFIAnyViewToOwnedAny, c_int, [c_void_p, c_void_p])
ErrorMoveFromRaised = _sig(PYLIB.TVMFFIErrorMoveFromRaised, None, [POINTER(c_void_p)])
ErrorSetRaised = _sig(PYLIB.TVMFFIErrorSetRaised, None, [c_void_p])
ErrorCreate = _sig(
    PYLIB.TVMFFIErrorCreate,
    c_int,
    [POINTER(TVMFFIByteArray)] * 3 + [POINTER(c_void_p)],
)
TensorToDLPack = _sig(PYLIB.TVMFFITensorToDLPack, c_int, [c_void_p, POINTER(c_void_p)])
TensorToDLPackVersioned = _sig(
    PYLIB.TVMFFITensorToDLPackVersioned, c_int, [c_void_p, POINTER(c_void_p)]
)
StringFromByteArray = _sig(PYLIB.TVMFFIStringFromByteArray, c_int, [c_void_p, c_void_p])
BytesFromByteArray = _sig(PYLIB.TVMFFIBytesFromByteArray, c_int, [c_void_p, c_void_p])
BigIntFromByteArray = _sig(PYLIB.TVMFFIBigIntFromByteArray, c_int, [c_void_p, c_void_p])
BigIntGetContentByteArray = _sig(
    PYLIB.TVMFFIBigIntGetContentByteArray, TVMFFIByteArray, [c_void_p]
)
DataTypeFromString = _sig(
    PYLIB.TVMFFIDataTypeFromString, c_int, [POINTER(TVMFFIByteArray), POINTER(DLDataType)]
)
DataTypeToString = _sig(PYLIB.TVMFFIDataTypeToString, c_int, [POINTER(DLDataType), c_void_p])
GetTypeInfo = _sig(PYLIB.TVMFFIGetTypeInfo, POINTER(TVMFFITypeInfo), [c_int32])
Backtrace = _sig(PYLIB.TVMFFIBacktrace, POINTER(TVMFFIByteArray), [c_char_p, c_int, c_char_p, c_int])
GetVersion = _sig(PYLIB.TVMFFIGetVersion, None, [POINTER(TVMFFIVersion)])
EnvSetStream = _sig(LIB.TVMFFIEnvSetStream, c_int, [c_int32, c_int32, c_void_p, POINTER(c_void_p)])
EnvGetStream = _sig(LIB.TVMFFIEnvGetStream, c_void_p, [c_int32, c_int32])
EnvSetDLPackManagedTensorAllocator = _sig(
    LIB.TVMFFIEnvSetDLPackManagedTensorAllocator, c_int, [c_void_p, c_int, POINTER(c_void_p)])
EnvGetDLPackManagedTensorAllocator = _sig(LIB.TVMFFIEnvGetDLPackManagedTensorAllocator, c_void_p, [])
# Hot path of calls given framework tensors: (c_void_p allocator, int, c_void_p out) -> int.
EnvSetDLPackManagedTensorAllocatorRaw = PYLIB.TVMFFIEnvSetDLPackManagedTensorAllocator

# ---- Python C API pieces used for DLPack capsules and opaque Python objects -----------------
_py = ctypes.pythonapi
PyCapsule_GetName = _sig(_py.PyCapsule_GetName, c_char_p, [ctypes.py_object])
PyCapsule_GetPointer = _sig(_py.PyCapsule_GetPointer, c_void_p, [ctypes.py_object, c_char_p])
PyCapsule_SetName = _sig(_py.PyCapsule_SetName, c_int, [ctypes.py_object, c_char_p])
PyCapsule_IsValid = _sig(_py.PyCapsule_IsValid, c_int, [ctypes.py_object, c_char_p])
PyCapsule_Destructor = CFUNCTYPE(None, c_void_p)
PyCapsule_New = _sig(_py.PyCapsule_New, ctypes.py_object, [c_void_p, c_char_p, c_void_p])
Py_IncRef = _sig(_py.Py_IncRef, None, [ctypes.py_object])
Py_DecRef = _sig(_py.Py_DecRef, None, [c_void_p])

string_at = ctypes.string_at
c_double_t = c_double
