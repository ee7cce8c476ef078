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
    if "tvm_compiler" in base._LOADED_LIBS:
        # LLVM is llvmlite's: report the versions this process would really use.
        try:
            import llvmlite
            from llvmlite import binding as llvm

            info["LLVMLITE_VERSION"] = llvmlite.__version__
            info["LLVM_VERSION"] = ".".join(str(v) for v in llvm.llvm_version_info)
        except ImportError:
            info["USE_LLVM"] = "OFF (llvmlite not installed)"
    info["LOADED_LIBS"] = ", ".join(names)
    info["RUNTIME_ONLY"] = "ON" if base.RUNTIME_ONLY else "OFF"
    return info
