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

_OFF_ALLOC, _OFF_TO_PY, _OFF_STREAM = 16, 32, 48
_DISABLED = os.environ.get("TVM_FFI_SKIP_DLPACK_C_EXCHANGE_API", "") == "1"
_API = {}  # type -> DLPackExchangeAPI address (0: none)

# PYFUNCTYPE: the GIL stays held (the framework makes Python objects in there).
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


def enter(fr, api, value):
    """Installs the environment of framework API `api` for the call in frame `fr` (first
    framework tensor of the call only)."""
    q = fr.q
    if fr.cap != _frame.DEFAULT_FRAME_ARGS or q[C.W_ENV_API]:
        return
    alloc = _read_ptr(api + _OFF_ALLOC)
    prev = ctypes.c_void_p()
    if C.EnvSetDLPackManagedTensorAllocator(alloc or None, 0, ctypes.byref(prev)):
        _frame.raise_last_error()
    q[C.W_ENV_PREV_ALLOC] = prev.value or 0
    q[C.W_ENV_API] = api  # from here the call (or reset_frame) restores the allocator
    dev_type, dev_id = value.__dlpack_device__()
    stream_fn = _read_ptr(api + _OFF_STREAM)
    if int(dev_type) != 1 and stream_fn:
        stream = ctypes.c_void_p()
        if _Stream(stream_fn)(int(dev_type), int(dev_id), ctypes.byref(stream)) == 0:
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
