"""The public registry API: global functions and object types (apache-tvm-ffi names)."""

import sys

from .function import (
    get_global_func,
    get_global_func_metadata,
    list_global_func_names,
    register_global_func,
    remove_global_func,
)
from .object import register_object


def init_ffi_api(namespace, target_module_name=None):
    """Puts every global `namespace.<name>` into module `target_module_name` as `<name>`.

    ``init_ffi_api("testing", __name__)`` in a package's _ffi_api.py exposes the C functions
    registered under "testing." as attributes.
    """
    target = sys.modules[target_module_name or namespace]
    prefix = namespace + "."
    for name in list_global_func_names():
        if name.startswith(prefix):
            short = name[len(prefix):]
            if "." not in short:
                setattr(target, short, get_global_func(name))


__all__ = [
    "get_global_func",
    "get_global_func_metadata",
    "get_registered_type_keys",
    "init_ffi_api",
    "list_global_func_names",
    "register_global_func",
    "register_object",
    "remove_global_func",
]


def get_registered_type_keys():
    """All type keys registered in the library (global ffi.GetRegisteredTypeKeys)."""
    text = get_global_func("ffi.GetRegisteredTypeKeys")()
    return [k for k in text.split("\n") if k]
