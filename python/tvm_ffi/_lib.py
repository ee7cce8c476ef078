"""Finding and loading libtvm_ffi.so.

The library is loaded once, RTLD_GLOBAL, before anything else in the package: modules loaded
later (load_module) resolve their undefined TVMFFI* symbols against this very copy, so there is
exactly one type table and one function registry in the process.
"""

import ctypes
import os
import sys

_NAME = "libtvm_ffi.dylib" if sys.platform == "darwin" else "libtvm_ffi.so"
_PKG_DIR = os.path.dirname(os.path.abspath(__file__))
# Workspace names under which Bazel lays out runfiles (WORKSPACE name, Bzlmod's root name).
_WORKSPACES = ("tvm_stack", "_main")


def _runfiles_roots():
    """Runfiles directories Bazel may have given this process (tests, `bazel run`)."""
    roots = []
    for var in ("RUNFILES_DIR", "TEST_SRCDIR"):
        value = os.environ.get(var)
        if value:
            roots.append(value)
    main = sys.argv[0] if sys.argv and sys.argv[0] else ""
    if main:
        roots.append(os.path.abspath(main) + ".runfiles")
    return roots


def candidates():
    """Every path the loader tries, in order (also used to explain a failure)."""
    out = []
    for var in ("TVM_FFI_LIBRARY_PATH", "TVM_FFI_LIBRARY"):
        value = os.environ.get(var)
        if value:
            out.append(os.path.join(value, _NAME) if os.path.isdir(value) else value)
    out.append(os.path.join(_PKG_DIR, "lib", _NAME))
    workspaces = [os.environ.get("TEST_WORKSPACE", "")] + list(_WORKSPACES)
    for root in _runfiles_roots():
        for ws in workspaces:
            if ws:
                out.append(os.path.join(root, ws, "ffi", _NAME))
    # Source checkout: python/tvm_ffi -> <repo>/bazel-bin/ffi (after `bazel build //ffi:...`).
    repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))
    out.append(os.path.join(repo, "bazel-bin", "ffi", _NAME))
    seen = set()
    return [p for p in out if not (p in seen or seen.add(p))]


def find_library():
    """Absolute path of libtvm_ffi, or raise OSError saying where it looked."""
    tried = candidates()
    for path in tried:
        if os.path.isfile(path):
            return os.path.abspath(path)
    raise OSError(
        "tvm_ffi: cannot find %s. Set TVM_FFI_LIBRARY_PATH to the library (or its folder). "
        "Looked in:\n  %s" % (_NAME, "\n  ".join(tried))
    )


def _load():
    path = find_library()
    try:
        return ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL), path
    except OSError as err:
        raise OSError("tvm_ffi: found %s but could not load it: %s" % (path, err)) from None


LIB, LIB_PATH = _load()
# Same library, but calls keep the GIL: for C helpers that never block or call back.
PYLIB = ctypes.PyDLL(LIB_PATH, mode=ctypes.RTLD_GLOBAL)
