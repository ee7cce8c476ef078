"""libtvm_runtime_extra sits on libtvm_runtime + libtvm_ffi, exports nothing, never NEEDs a
collective engine or cuBLAS, and libtvm_runtime works without it; the NCCL plugin NEEDs
libtvm_ffi alone (NCCL and CUDA are reached by dlopen and by name). (test_layering.py's generic checks
cover it too: NEEDED entries, undefined symbols, exports.)"""

import os
import subprocess
import sys

import re


def _readelf_needed(path):
    out = subprocess.run(["readelf", "-d", path], capture_output=True, text=True, check=True).stdout
    return set(re.findall(r"\(NEEDED\)\s+Shared library: \[(.+?)\]", out))


def _exports(path):
    out = subprocess.run(["nm", "-D", "--defined-only", path], capture_output=True, text=True,
                         check=True).stdout
    return [line.split()[-1] for line in out.splitlines() if line.strip()]


def test_extra_needs_exactly_the_runtime_and_ffi():
    needed = _readelf_needed(os.environ["LIB_TVM_RUNTIME_EXTRA"])
    assert {"libtvm_ffi.so", "libtvm_runtime.so"} <= needed
    assert not [n for n in needed if n.startswith(("libgloo", "libnccl", "libcuda", "libcudart",
                                                   "libcublas", "libtvm_compiler",
                                                   "libtvm_runtime_cuda"))]
    assert not _exports(os.environ["LIB_TVM_RUNTIME_EXTRA"])


def test_the_gloo_plugin_needs_only_ffi_and_gloo_and_exports_nothing():
    paths = [p for p in os.environ.get("GLOO_PLUGIN", "").split() if p.endswith(".so")]
    for path in paths:  # none where gloo is not installed
        needed = _readelf_needed(path)
        assert {"libtvm_ffi.so", "libgloo.so.0"} <= needed
        assert not [n for n in needed if n.startswith("libtvm_") and n != "libtvm_ffi.so"]
        assert not _exports(path)
        # The extra library finds it by name at init_ccl, never through NEEDED.
        assert "libtvm_disco_gloo" not in " ".join(_readelf_needed(os.environ["LIB_TVM_RUNTIME_EXTRA"]))


_SYSTEM = ("libc.so", "libm.so", "libdl.so", "libpthread.so", "librt.so", "libstdc++.so",
           "libgcc_s.so", "ld-linux")


def test_the_nccl_plugin_needs_only_ffi_and_exports_nothing():
    paths = [p for p in os.environ.get("NCCL_PLUGIN", "").split() if p.endswith(".so")]
    for path in paths:  # none where libtvm_runtime_cuda is not built
        needed = _readelf_needed(path)
        assert "libtvm_ffi.so" in needed
        assert not [n for n in needed if n != "libtvm_ffi.so" and not n.startswith(_SYSTEM)], needed
        assert not _exports(path)
        # NCCL is found at init_ccl, by dlopen: never NEEDED, by the plugin or by the extra library.
        assert "libnccl" not in " ".join(_readelf_needed(os.environ["LIB_TVM_RUNTIME_EXTRA"]))


def test_extra_is_not_known_to_the_runtime():
    data = open(os.environ["LIB_TVM_RUNTIME"], "rb").read()
    for marker in (b"libtvm_runtime_extra", b"runtime.disco."):
        assert marker not in data, marker


_WITHOUT = """
import ctypes, os, sys
import tvm_ffi
ctypes.CDLL(os.environ["LIB_TVM_RUNTIME"], mode=ctypes.RTLD_GLOBAL)
t = tvm_ffi.get_global_func("runtime.TensorEmpty")(tvm_ffi.Shape([2, 3]), tvm_ffi.dtype("float32"),
                                                    tvm_ffi.device("cpu", 0))
assert tuple(t.shape) == (2, 3)
assert tvm_ffi.get_global_func("vm.VirtualMachine", allow_missing=True) is not None
assert tvm_ffi.get_global_func("runtime.disco.SessionThreaded", allow_missing=True) is None
ctypes.CDLL(os.environ["LIB_TVM_RUNTIME_EXTRA"], mode=ctypes.RTLD_LOCAL)
assert tvm_ffi.get_global_func("runtime.disco.SessionThreaded", allow_missing=True) is not None
print("ok")
"""


def test_extra_runtime_works_without_it_and_extra_loads_on_demand():
    out = subprocess.run([sys.executable, "-c", _WITHOUT], capture_output=True, text=True,
                         env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)))
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr
