"""Facts about the libraries this process actually loaded."""

import json

import tvm_ffi

from . import base

# The global each library registers with its build facts (JSON).
_BUILD_INFO = {
    "tvm_ffi": "ffi.BuildInfo",
    "tvm_runtime": "runtime.BuildInfo",
    "tvm_compiler": "compiler.BuildInfo",
    "tvm_runtime_cuda": "runtime_cuda.BuildInfo",
    "tvm_runtime_extra": "runtime_extra.BuildInfo",
}


def libinfo():
    """Build facts of every loaded library, merged into one dict of strings.

    Feature switches (USE_*) are ON if any loaded library reports ON. Other facts are
    prefixed with the library they describe (e.g. `tvm_runtime.git_revision`).
    LOADED_LIBS lists the libraries in load order.
    """
    info = {}
    names = ["tvm_ffi"] + list(base._LOADED_LIBS)
    for lib in names:
        func = tvm_ffi.get_global_func(_BUILD_INFO[lib], allow_missing=True)
        if func is None:
            continue
        for key, value in json.loads(func()).items():
            if key.startswith("USE_"):
                if info.get(key) != "ON":
                    info[key] = value
            elif key != "library":
                info["%s.%s" % (lib, key)] = value
    info["LOADED_LIBS"] = ", ".join(names)
    info["RUNTIME_ONLY"] = "ON" if base.RUNTIME_ONLY else "OFF"
    return info
