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
    if "tvm_runtime_cuda" in base._LOADED_LIBS:
        # The toolkit it was built against is a build fact; the driver is a run-time one.
        from .runtime import cuda_support

        status = cuda_support.driver_status()
        info["CUDA_VERSION"] = info.get("tvm_runtime_cuda.CUDA_VERSION", "")
        info["CUDA_DRIVER"] = ("available (driver %d, %d device(s))"
                               % (status["driver_version"], status["device_count"])
                               if status["available"] else "unavailable: " + status["reason"])
    if "tvm_runtime_extra" in base._LOADED_LIBS:
        # Collective engines are plugins found at first use: probed, never read from the env.
        probe = tvm_ffi.get_global_func("runtime.disco.probe_ccl")
        for ccl in ("gloo", "nccl"):
            why = probe(ccl)
            info["DISCO_CCL_" + ccl.upper()] = "available" if not why else "unavailable: " + why
        # cuBLAS (in libtvm_runtime_extra where USE_CUBLAS is ON): the driver and
        # libcublas.so.13 probed in this process (loads the library, ~0.2 s, once).
        cublas = tvm_ffi.get_global_func("tvm.contrib.cublas.probe", allow_missing=True)
        if cublas is not None:
            why = cublas()
            info["CUBLAS"] = "available" if not why else "unavailable: " + why
        else:
            info["CUBLAS"] = "unavailable: this build has no cuBLAS (USE_CUBLAS is OFF)"
    info["LOADED_LIBS"] = ", ".join(names)
    info["RUNTIME_ONLY"] = "ON" if base.RUNTIME_ONLY else "OFF"
    return info


def version():
    """The release version of the stack (bazel/version.bzl), as compiled into libtvm_runtime."""
    return json.loads(tvm_ffi.get_global_func("runtime.BuildInfo")())["version"]


def include_paths():
    """Folders to pass as -I to compile C++ against the runtime (and compiler) headers:
    tvm/runtime/... and tvm/ffi/... with dlpack. From an installed wheel these are
    tvm/include and tvm_ffi/include inside the packages; in a source checkout, the
    libraries' include folders."""
    import os

    pkg = os.path.dirname(os.path.abspath(__file__))
    installed = os.path.join(pkg, "include")
    if os.path.isdir(installed):
        ours = [installed]
    else:
        repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))
        ours = [os.path.join(repo, lib, "include") for lib in ("runtime", "compiler")]
        ours = [p for p in ours if os.path.isdir(p)]
        if not ours:
            raise OSError("tvm: cannot find the runtime headers (looked in %s and %s)"
                          % (installed, repo))
    return ours + tvm_ffi.libinfo.include_paths()


def library_dirs():
    """Folders holding libtvm_runtime (and the other tvm libraries) and libtvm_ffi: the -L
    and rpath entries for a C++ application linking them."""
    import os

    dirs = [os.path.dirname(base.find_library("tvm_runtime")), tvm_ffi.libinfo.find_lib_dir()]
    return sorted(set(dirs), key=dirs.index)
