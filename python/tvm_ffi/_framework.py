"""Framework tensors (torch) in calls: the framework's allocator and stream for the call, and
its tensor type for tensor results, as apache-tvm-ffi does (shared/reference/tvm_ffi_abi.md
§9, §10.3).

A framework publishes a DLPackExchangeAPI (a C struct: version, prev_api, then function
pointers: managed_tensor_allocator, managed_tensor_from_py_object_no_sync,
managed_tensor_to_py_object_no_sync, dltensor_from_py_object_no_sync, current_work_stream) as
`type(tensor).__dlpack_c_exchange_api__`, a PyCapsule named "dlpack_exchange_api" (torch >=
2.9; older torch: `__c_dlpack_exchange_api__`, an int address).

When a call receives such a tensor, the first one's API decides the call's environment:
`TVMFFIEnvSetDLPackManagedTensorAllocator` gets its allocator (a kernel's
TVMFFIEnvTensorAlloc then allocates framework memory), and for a device tensor
`TVMFFIEnvSetStream` gets the framework's current stream on that device. The call frame
records what to restore and the C side of the call (call_helpers.cc) restores it after the
call, so calls without framework tensors pay nothing. A Tensor result of such a call comes
back as the framework's tensor (zero copy, through managed_tensor_to_py_object_no_sync).
Frames of more than 16 arguments take no part (they have no environment words).

`TVM_FFI_SKIP_DLPACK_C_EXCHANGE_API=1` turns it off (plain DLPack conversion, no environment).
"""

import ctypes
import os

from . import _cabi as C
from . import _frame

_OFF_ALLOC, _OFF_FROM_PY, _OFF_TO_PY, _OFF_STREAM = 16, 24, 32, 48
_DISABLED = os.environ.get("TVM_FFI_SKIP_DLPACK_C_EXCHANGE_API", "") == "1"
_API = {}  # type -> DLPackExchangeAPI address (0: none)
_INFO = {}  # DLPackExchangeAPI address -> ApiInfo

# PYFUNCTYPE: the GIL stays held (the framework makes Python objects in there).
_FromPy = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.py_object, ctypes.POINTER(ctypes.c_void_p))
_ToPy = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p))
_Stream = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_int32, ctypes.c_int32,
                            ctypes.POINTER(ctypes.c_void_p))


def _read_ptr(addr):
    return ctypes.c_void_p.from_address(addr).value or 0


def exchange_api(tp):
    """The DLPackExchangeAPI address of tensor type `tp`, or 0."""
    api = _API.get(tp)
    if api is not None:
        return api
    api = 0
    if not _DISABLED:
        cap = getattr(tp, "__dlpack_c_exchange_api__", None)
        if cap is not None and C.PyCapsule_IsValid(cap, b"dlpack_exchange_api"):
            api = C.PyCapsule_GetPointer(cap, b"dlpack_exchange_api") or 0
        elif isinstance(getattr(tp, "__c_dlpack_exchange_api__", None), int):
            api = tp.__c_dlpack_exchange_api__
    _API[tp] = api
    return api


class ApiInfo:
    """The function pointers of one DLPackExchangeAPI, read once."""

    __slots__ = ("addr", "alloc", "from_py", "stream")

    def __init__(self, addr):
        self.addr = addr
        self.alloc = ctypes.c_void_p(_read_ptr(addr + _OFF_ALLOC) or None)
        from_py = _read_ptr(addr + _OFF_FROM_PY)
        self.from_py = _FromPy(from_py) if from_py else None
        stream = _read_ptr(addr + _OFF_STREAM)
        self.stream = _Stream(stream) if stream else None


def info(api):
    found = _INFO.get(api)
    if found is None:
        found = _INFO[api] = ApiInfo(api)
    return found


def import_arg(fr, j, value, api_info):
    """Argument j := a Tensor of `value` through the API's managed_tensor_from_py_object
    (one call, no capsule), owned by the frame; False when the API has no such function."""
    if api_info.from_py is None:
        return False
    managed = ctypes.c_void_p()
    if api_info.from_py(value, ctypes.byref(managed)) != 0 or not managed.value:
        return False
    if C.TensorFromDLPackVersionedRaw(managed, 0, 0, fr.scratch):
        deleter = _read_ptr(managed.value + 16)
        if deleter:
            ctypes.CFUNCTYPE(None, ctypes.c_void_p)(deleter)(managed.value)
        _frame.raise_last_error()
    h = fr.q[2]
    fr.q[j] = C.kTensor
    fr.q[j + 1] = h
    _frame.own_arg(fr, j, h, C.kTensor)
    return True


def enter(fr, j, api_info):
    """Installs the environment of the framework for the call in frame `fr` (first framework
    tensor of the call only; argument j holds its Tensor)."""
    q = fr.q
    if fr.cap != _frame.DEFAULT_FRAME_ARGS or q[C.W_ENV_API]:
        return
    if api_info.alloc.value is None:  # no allocator to install: the restore changes nothing
        q[C.W_ENV_PREV_ALLOC] = C.EnvGetDLPackManagedTensorAllocator() or 0
    else:
        prev = ctypes.c_void_p(fr.res_addr + 8 * C.W_ENV_PREV_ALLOC)  # written in place
        if C.EnvSetDLPackManagedTensorAllocatorRaw(api_info.alloc, 0, prev):
            _frame.raise_last_error()
    q[C.W_ENV_API] = api_info.addr  # from here the call (or reset_frame) restores it
    stream_fn = api_info.stream
    if not stream_fn:
        return
    h = q[j + 1]  # the Tensor: its DLTensor's device (type at +8, id at +12)
    dev_type = ctypes.c_int32.from_address(h + C.OBJ_CELL + 8).value
    dev_id = ctypes.c_int32.from_address(h + C.OBJ_CELL + 12).value
    if dev_type != 1:
        stream = ctypes.c_void_p()
        if stream_fn(dev_type, dev_id, ctypes.byref(stream)) == 0:
            prev_stream = ctypes.c_void_p()
            if C.EnvSetStream(int(dev_type), int(dev_id), stream, ctypes.byref(prev_stream)):
                _frame.raise_last_error()
            q[C.W_ENV_PREV_STREAM] = prev_stream.value or 0
            q[C.W_ENV_STREAM_DEV] = ((int(dev_type) << 32) | int(dev_id)) + 1


def tensor_result(api, handle, make_tensor):
    """A Tensor result (owned handle) of a call made under `api`: the framework's tensor."""
    to_py = _read_ptr(api + _OFF_TO_PY)
    if not to_py:
        return make_tensor(handle, C.kTensor)
    managed = ctypes.c_void_p()
    rc = C.TensorToDLPackVersioned(handle, ctypes.byref(managed))
    C.ObjectDecRef(handle)
    if rc:
        _frame.raise_last_error()
    out = ctypes.c_void_p()
    if _ToPy(to_py)(managed, ctypes.byref(out)) != 0 or not out.value:
        # Not taken: the managed tensor is still ours to release (its deleter at byte 16).
        deleter = _read_ptr(managed.value + 16)
        if deleter:
            ctypes.CFUNCTYPE(None, ctypes.c_void_p)(deleter)(managed.value)
        raise RuntimeError("the framework could not take back a tensor result")
    obj = ctypes.cast(out, ctypes.py_object).value  # a new reference of ours
    C.Py_DecRef(out.value)                          # the one the framework gave
    return obj
