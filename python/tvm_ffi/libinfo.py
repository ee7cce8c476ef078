"""Where the library and headers are, and what was built.

Works in three layouts: an installed package (lib/ and include/ inside the package), the
source tree (python/tvm_ffi next to ffi/include, library under bazel-bin/ffi), and Bazel
runfiles. Nothing here loads the library except `version()` and `build_info()`.
"""

import os
import sys

from . import _lib

_PKG_DIR = os.path.dirname(os.path.abspath(__file__))


def find_libtvm_ffi():
    """Absolute path of libtvm_ffi (the loaded copy if the package is initialised)."""
    if "tvm_ffi._lib" in sys.modules and hasattr(sys.modules["tvm_ffi._lib"], "LIB_PATH"):
        return sys.modules["tvm_ffi._lib"].LIB_PATH
    return _lib.find_library()


def find_lib_dir():
    return os.path.dirname(find_libtvm_ffi())


def _include_candidates():
    out = [os.path.join(_PKG_DIR, "include")]
    repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))
    out.append(os.path.join(repo, "ffi", "include"))
    # The staged library in runfiles/bazel-out sits in <root>/python/tvm_ffi/lib: its
    # workspace root also holds ffi/include when the headers are runfiles.
    here = os.path.dirname(os.path.dirname(_PKG_DIR))
    out.append(os.path.join(here, "ffi", "include"))
    for root in _lib._runfiles_roots():
        for ws in (os.environ.get("TEST_WORKSPACE", ""),) + _lib._WORKSPACES:
            if ws:
                out.append(os.path.join(root, ws, "ffi", "include"))
    return out


def find_include_path():
    """Folder holding tvm/ffi/c_api.h (and dlpack/dlpack.h) for compiling against us."""
    tried = _include_candidates()
    for path in tried:
        if os.path.isfile(os.path.join(path, "tvm", "ffi", "c_api.h")):
            return os.path.abspath(path)
    raise OSError("tvm_ffi: cannot find the C headers. Looked in:\n  " + "\n  ".join(tried))


def find_dlpack_include_path():
    """Folder holding dlpack/dlpack.h (shipped next to our headers)."""
    path = find_include_path()
    if os.path.isfile(os.path.join(path, "dlpack", "dlpack.h")):
        return path
    raise OSError("tvm_ffi: dlpack/dlpack.h not found next to %s" % path)


def include_paths():
    paths = [find_include_path(), find_dlpack_include_path()]
    return sorted(set(paths), key=paths.index)


def version():
    """Library version string, e.g. "0.1.16" (TVMFFIGetVersion)."""
    import ctypes

    from . import _cabi

    v = _cabi.TVMFFIVersion()
    _cabi.GetVersion(ctypes.byref(v))
    return "%d.%d.%d" % (v.major, v.minor, v.patch)


def build_info():
    """Build facts of the loaded library (global ffi.BuildInfo) as a dict."""
    import json

    from .function import get_global_func

    return json.loads(get_global_func("ffi.BuildInfo")())


def load_lib_ctypes(path, mode="RTLD_LOCAL"):
    """ctypes.CDLL of a library that uses tvm_ffi (loaded after libtvm_ffi)."""
    import ctypes

    return ctypes.CDLL(path, mode=getattr(ctypes, mode) if isinstance(mode, str) else mode)


def load_lib_module(path, keep_module_alive=True):
    """`load_module` of a library file."""
    from .module import load_module

    return load_module(path, keep_module_alive)
