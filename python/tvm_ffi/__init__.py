"""tvm_ffi: the Python face of libtvm_ffi, in plain Python over ctypes.

Public names follow apache-tvm-ffi's Python package, so code written for it carries over:

    import tvm_ffi

    @tvm_ffi.register_global_func("my.add")
    def add(a, b):
        return a + b

    assert tvm_ffi.get_global_func("my.add")(1, 2) == 3
    mod = tvm_ffi.load_module("kernels.so")      # exports via TVM_FFI_DLL_EXPORT_TYPED_FUNC
    mod.add_one(tvm_ffi.from_dlpack(array))      # zero copy
"""

import sys


def _is_config_mode():
    """`python -m tvm_ffi.config` must work without loading (or finding) the library."""
    argv = getattr(sys, "orig_argv", None) or []
    return any(a == "-m" and i + 1 < len(argv) and argv[i + 1] == "tvm_ffi.config"
               for i, a in enumerate(argv))


if not _is_config_mode():
    from ._lib import LIB  # noqa: F401 - loads libtvm_ffi first, RTLD_GLOBAL
    from . import _any, _cabi, _frame  # noqa: F401
    from .object import Object
    from .error import Error, register_error
    from .function import Function
    from .registry import (
        get_global_func,
        get_global_func_metadata,
        get_registered_type_keys,
        init_ffi_api,
        list_global_func_names,
        register_global_func,
        register_object,
        remove_global_func,
    )
    from .device import DLDeviceType, Device, device
    from .dtype import DataTypeCode, dtype
    from .string import Bytes, String
    from .shape import Shape
    from .tensor import Tensor, from_dlpack
    from .container import Array, Dict, List, Map
    from .module import Module, load_module, system_lib
    from . import libinfo, testing  # noqa: F401

    convert_func = Function

    def convert(value):
        """The FFI value of `value` (lists -> Array, dicts -> Map, callables -> Function...)."""
        fr = _frame.get_frame(1)
        try:
            _any.pack_args(fr, (value,))
            if fr.q[4] == _cabi.kFloat:
                return fr.d[5]
            return _any.value_from_words(*_frame.take_arg(fr, 4))
        finally:
            _frame.put_frame(fr, 1)

    def __getattr__(name):
        # dtype literals (tvm_ffi.float32 ...) are parsed on first use, keeping import cheap.
        from .dtype import _LITERALS

        if name in _LITERALS:
            value = dtype(name)
            globals()[name] = value
            return value
        raise AttributeError("module 'tvm_ffi' has no attribute %r" % name)

    __version__ = libinfo.version()

__all__ = [
    "LIB", "testing", "Array", "Bytes", "DLDeviceType", "DataTypeCode", "Device", "Dict", "Error", "Function",
    "List", "Map", "Module", "Object", "Shape", "String", "Tensor", "convert", "convert_func",
    "device", "dtype", "from_dlpack", "get_global_func", "get_global_func_metadata",
    "get_registered_type_keys", "init_ffi_api", "libinfo", "list_global_func_names",
    "load_module", "register_error", "register_global_func", "register_object",
    "remove_global_func", "system_lib",
]
