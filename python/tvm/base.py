"""Loading the native libraries in the seed's order.

    import tvm
      1. tvm_ffi              libtvm_ffi, RTLD_GLOBAL (the one type table and registry)
      2. libtvm_runtime       RTLD_GLOBAL, required: symbols visible to modules loaded later
      3. libtvm_compiler      RTLD_LOCAL, skipped in runtime-only mode; if it is shipped but
                              fails to load, a warning gives the loader's reason
      4. backends             libtvm_runtime_cuda, libtvm_runtime_extra when shipped,
                              RTLD_LOCAL, in both modes (they register device_api.cuda, ...)

Runtime-only mode: TVM_USE_RUNTIME_LIB=1, or no compiler library next to the runtime.
`_LOADED_LIBS` maps each loaded library's name to its ctypes handle.
"""

import ctypes
import os
import sys
import warnings

import tvm_ffi  # noqa: F401  (step 1: must come first)

_PKG_DIR = os.path.dirname(os.path.abspath(__file__))
_WORKSPACES = ("tvm_stack", "_main")
# Bazel package of each library in a source checkout / runfiles tree.
_BAZEL_DIRS = {
    "tvm_runtime": "runtime",
    "tvm_compiler": "compiler",
    "tvm_runtime_cuda": "runtime_cuda",
    "tvm_runtime_extra": "runtime_extra",
}
_BACKENDS = ("tvm_runtime_cuda", "tvm_runtime_extra")


def _search_dirs(name):
    """Folders that may hold lib<name>.so, in order."""
    dirs = []
    env = os.environ.get("TVM_LIBRARY_PATH")
    if env:
        dirs.extend(p for p in env.split(os.pathsep) if p)
    dirs.append(os.path.join(_PKG_DIR, "lib"))
    roots = [os.environ.get(v) for v in ("RUNFILES_DIR", "TEST_SRCDIR")]
    if sys.argv and sys.argv[0]:
        roots.append(os.path.abspath(sys.argv[0]) + ".runfiles")
    for root in filter(None, roots):
        for ws in filter(None, [os.environ.get("TEST_WORKSPACE")] + list(_WORKSPACES)):
            dirs.append(os.path.join(root, ws, _BAZEL_DIRS[name]))
    repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))
    dirs.append(os.path.join(repo, "bazel-bin", _BAZEL_DIRS[name]))
    return dirs


def find_library(name):
    """Path of lib<name>.so or None; the list of folders tried is in the error of `load`."""
    for d in _search_dirs(name):
        path = os.path.join(d, "lib%s.so" % name)
        if os.path.isfile(path):
            return os.path.abspath(path)
    return None


def runtime_only_requested():
    """True when TVM_USE_RUNTIME_LIB asks for runtime-only mode."""
    return os.environ.get("TVM_USE_RUNTIME_LIB", "").strip().lower() in ("1", "true", "on", "yes")


def runtime_only():
    """True when the compiler is not to be loaded (TVM_USE_RUNTIME_LIB=1 or not shipped)."""
    return runtime_only_requested() or find_library("tvm_compiler") is None


def _load_libraries():
    loaded = {}
    path = find_library("tvm_runtime")
    if path is None:
        raise OSError(
            "tvm: cannot find libtvm_runtime.so. Set TVM_LIBRARY_PATH. Looked in:\n  "
            + "\n  ".join(_search_dirs("tvm_runtime")))
    loaded["tvm_runtime"] = ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
    if not runtime_only():
        path = find_library("tvm_compiler")
        try:
            loaded["tvm_compiler"] = ctypes.CDLL(path, mode=ctypes.RTLD_LOCAL)
        except OSError as err:
            warnings.warn("tvm: the compiler library %s is present but failed to load (%s); "
                          "continuing in runtime-only mode" % (path, err), RuntimeWarning)
    for name in _BACKENDS:
        path = find_library(name)
        if path is None:
            continue  # not built/shipped: simply absent
        try:
            loaded[name] = ctypes.CDLL(path, mode=ctypes.RTLD_LOCAL)
        except OSError as err:
            warnings.warn("tvm: backend %s failed to load: %s" % (path, err), RuntimeWarning)
    return loaded


def _warn_if_both_wheels_installed():
    """tvm-stack and tvm-stack-runtime ship the same packages: installed together, the second
    overwrites the first's files and uninstalling either breaks the other. One listdir of the
    folder the packages are installed in (no importlib.metadata: it costs milliseconds)."""
    site = os.path.dirname(_PKG_DIR)
    try:
        names = os.listdir(site)
    except OSError:
        return
    dists = sorted(n for n in names
                   if n.endswith(".dist-info") and n.startswith(("tvm_stack-", "tvm_stack_runtime-")))
    if len(dists) > 1:
        warnings.warn("tvm: both %s are installed in %s; they ship the same tvm and tvm_ffi "
                      "packages, so keep one (pip uninstall both, then install one)"
                      % (" and ".join(d.split("-")[0] for d in dists), site), RuntimeWarning)


_warn_if_both_wheels_installed()
_LOADED_LIBS = _load_libraries()
RUNTIME_ONLY = "tvm_compiler" not in _LOADED_LIBS
