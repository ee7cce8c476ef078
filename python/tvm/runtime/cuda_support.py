"""The CUDA backend (libtvm_runtime_cuda) from Python: is CUDA usable here, and why not;
the CUDA module blob format (apache-tvm's, docs/cuda.md) for code that makes or inspects
modules.

    >>> tvm.runtime.cuda_support.driver_status()   # also tvm.runtime.cuda_driver_status()
    {'available': False, 'reason': 'cannot load the CUDA driver: libcuda.so.1: ...', ...}
    >>> tvm.runtime.cuda_support.unavailable_reason()  # '' when CUDA is usable

A kernel module is loaded from blob bytes with `load_module_from_blob(blob)` (the global
`ffi.Module.load_from_bytes.cuda`); its functions take the kernel arguments followed by one
int64 per launch tag and launch on the current device's current stream.
"""

import collections
import struct

import tvm_ffi

_STATUS = "runtime.cuda.DriverStatus"

FunctionInfo = collections.namedtuple(
    "FunctionInfo", ["name", "arg_types", "launch_param_tags", "arg_extra_tags"])
FunctionInfo.__doc__ = """One kernel's signature: `arg_types` are (code, bits, lanes) tuples
(handles are (3, 64, 1)), `launch_param_tags` e.g. ["blockIdx.x", "threadIdx.x"],
`arg_extra_tags` one int per argument (0: none)."""


def backend_loaded():
    """True when libtvm_runtime_cuda is loaded in this process."""
    return tvm_ffi.get_global_func(_STATUS, allow_missing=True) is not None


def driver_status():
    """The CUDA driver's state as a dict: available, reason ('' when available), library,
    driver_version, device_count. Probes the driver on first use (dlopen, cuInit)."""
    func = tvm_ffi.get_global_func(_STATUS, allow_missing=True)
    if func is None:
        return {"available": False, "reason": "libtvm_runtime_cuda is not loaded",
                "library": "", "driver_version": 0, "device_count": 0}
    return {str(k): v for k, v in func().items()}


def unavailable_reason():
    """Why CUDA cannot be used in this process, or '' when it can."""
    return driver_status()["reason"]


def _str(value):
    data = value.encode() if isinstance(value, str) else bytes(value)
    return struct.pack("<Q", len(data)) + data


def pack_module_blob(fmt, functions, code):
    """The bytes `ffi.Module.load_from_bytes.cuda` loads.

    fmt: "ptx", "cubin", "fatbin" or "cuda"; functions: {key: FunctionInfo} (order kept);
    code: str or bytes (the image)."""
    out = [_str(fmt), struct.pack("<Q", len(functions))]
    for key, info in functions.items():
        out.append(_str(key))
        out.append(_str(info.name))
        out.append(struct.pack("<Q", len(info.arg_types)))
        out.extend(struct.pack("<BBH", *t) for t in info.arg_types)
        out.append(struct.pack("<Q", len(info.launch_param_tags)))
        out.extend(_str(t) for t in info.launch_param_tags)
        out.append(struct.pack("<Q", len(info.arg_extra_tags)))
        out.extend(struct.pack("<i", t) for t in info.arg_extra_tags)
    out.append(_str(code))
    return b"".join(out)


def unpack_module_blob(blob):
    """(fmt, {key: FunctionInfo}, code bytes) from blob bytes; ValueError when malformed."""
    pos = 0

    def take(n):
        nonlocal pos
        if n > len(blob) - pos:
            raise ValueError("corrupt CUDA module: truncated at byte %d" % pos)
        pos += n
        return blob[pos - n:pos]

    def u64():
        return struct.unpack("<Q", take(8))[0]

    def text():
        return take(u64()).decode()

    fmt = text()
    functions = {}
    for _ in range(u64()):
        key = text()
        name = text()
        arg_types = [struct.unpack("<BBH", take(4)) for _ in range(u64())]
        tags = [text() for _ in range(u64())]
        extra = [struct.unpack("<i", take(4))[0] for _ in range(u64())]
        functions[key] = FunctionInfo(name, arg_types, tags, extra)
    code = take(u64())
    if pos != len(blob):
        raise ValueError("corrupt CUDA module: %d trailing bytes" % (len(blob) - pos))
    return fmt, functions, code


def load_module_from_blob(blob):
    """A CUDA module (kind "cuda") from blob bytes; needs libtvm_runtime_cuda (not a driver)."""
    func = tvm_ffi.get_global_func("ffi.Module.load_from_bytes.cuda", allow_missing=True)
    if func is None:
        raise RuntimeError("cannot load a CUDA module: libtvm_runtime_cuda is not loaded")
    return func(bytes(blob))
