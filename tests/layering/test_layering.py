"""Each shipped library depends only on the layers below it (checked on the ELF files)."""

import os
import re
import subprocess

SYSTEM = {"libc.so.6", "libm.so.6", "libgcc_s.so.1", "libstdc++.so.6", "ld-linux-x86-64.so.2",
          "libdl.so.2", "libpthread.so.0", "librt.so.1"}
# Sanitizer builds (--config=asan) add their runtimes and hook symbols.
SANITIZER_LIBS = ("libasan.so", "libubsan.so", "liblsan.so", "libtsan.so")
SANITIZER_PREFIXES = ("__asan", "__ubsan", "__sanitizer", "__lsan", "__tsan")
# What each library may NEED beyond the system, and the prefixes its own exports carry.
# libtvm_ffi also exports the non-inline C++ API apache-tvm-ffi's library exports (ModuleObj /
# Module: vtable, typeinfo, out-of-line methods; the extra API: json, repr, deep copy,
# recursive and structural compare/hash, JSON graphs, error access paths; ffi/tvm_ffi.lds,
# each checked against the reference by //tests/abi).
MODULE_CXX = ("_ZN3tvm3ffi9ModuleObj", "_ZN3tvm3ffi6Module", "_ZTVN3tvm3ffi9ModuleObjE",
              "_ZTIN3tvm3ffi9ModuleObjE", "_ZTSN3tvm3ffi9ModuleObjE")
EXTRA_CXX = ("_ZN3tvm3ffi4json", "_ZN3tvm3ffi9ReprPrint", "_ZN3tvm3ffi8DeepCopy",
             "_ZN3tvm3ffi11Recursive", "_ZN3tvm3ffi13RecursiveHash", "_ZN3tvm3ffi11ToJSONGraph",
             "_ZN3tvm3ffi13FromJSONGraph", "_ZN3tvm3ffi15StructuralEqual",
             "_ZN3tvm3ffi14StructuralHash", "_ZN3tvm3ffi17VisitErrorContext")
LAYERS = {
    "LIB_TVM_FFI": ("libtvm_ffi.so", set(), ("TVMFFI",) + MODULE_CXX + EXTRA_CXX),
    "LIB_TVM_RUNTIME": ("libtvm_runtime.so", {"libtvm_ffi.so"}, ("TVMBackend",)),
    # Exports nothing: registers device_api.cuda etc. at load; the driver is dlopen'ed, never
    # NEEDED (so it loads on machines without one).
    "LIB_TVM_RUNTIME_CUDA": ("libtvm_runtime_cuda.so", {"libtvm_ffi.so", "libtvm_runtime.so"}, ()),
    # Exports nothing either: Disco and the CCL seam register runtime.disco.* at load; collective
    # engines are plugins dlopen'ed at init_ccl, never NEEDED.
    "LIB_TVM_RUNTIME_EXTRA": ("libtvm_runtime_extra.so", {"libtvm_ffi.so", "libtvm_runtime.so"}, ()),
}
# Backends are only built where their toolkit headers exist (runtime_cuda/defs.bzl).
OPTIONAL = {"LIB_TVM_RUNTIME_CUDA", "LIB_TVM_RUNTIME_EXTRA"}
# libtvm_runtime_extra arrives in a list of files (Bazel's env cannot select).
for _path in os.environ.get("OPTIONAL_LIBS", "").split():
    if os.path.basename(_path) == "libtvm_runtime_extra.so":
        os.environ.setdefault("LIB_TVM_RUNTIME_EXTRA", _path)
LAYERS = {k: v for k, v in LAYERS.items() if k not in OPTIONAL or os.environ.get(k)}
OUR_PREFIXES = ("TVM", "_ZN3tvm", "_ZNK3tvm", "_ZTVN3tvm", "_ZTIN3tvm", "_ZTSN3tvm")


def _readelf_needed(path):
    out = subprocess.run(["readelf", "-d", path], capture_output=True, text=True, check=True).stdout
    return set(re.findall(r"\(NEEDED\)\s+Shared library: \[(.+?)\]", out))


def _soname(path):
    out = subprocess.run(["readelf", "-d", path], capture_output=True, text=True, check=True).stdout
    return re.search(r"\(SONAME\)\s+Library soname: \[(.+?)\]", out).group(1)


def _symbols(path, flag):
    out = subprocess.run(["nm", "-D", flag, path], capture_output=True, text=True, check=True).stdout
    return [line.split()[-1] for line in out.splitlines() if line.strip()]


def test_needed_entries_follow_the_layers():
    for env, (name, allowed, _) in LAYERS.items():
        path = os.environ[env]
        assert _soname(path) == name
        needed = {n for n in _readelf_needed(path) if not n.startswith(SANITIZER_LIBS)}
        assert needed - SYSTEM <= allowed, f"{name} needs {sorted(needed - SYSTEM - allowed)}"


def test_undefined_symbols_come_from_lower_layers_or_the_system():
    sanitized = os.environ.get("TVM_STACK_SANITIZE") == "1"
    for env, (name, allowed, _) in LAYERS.items():
        undefined = [s for s in _symbols(os.environ[env], "--undefined-only")
                     if not s.startswith(SANITIZER_PREFIXES)]
        allowed_prefixes = tuple(p for e, (n, _, _) in LAYERS.items() if n in allowed
                                 for p in LAYERS[e][2])
        # Our symbols (C entry points, C++ in namespace tvm) only from layers below.
        ours = [s.split("@")[0] for s in undefined if s.startswith(OUR_PREFIXES)]
        bad = [s for s in ours if not (allowed_prefixes and s.startswith(allowed_prefixes))]
        assert not bad, f"{name} has undefined symbols from no lower layer: {bad[:10]}"
        if not sanitized:
            # Everything else is a versioned system symbol (GLIBC_, GLIBCXX_, CXXABI_, GCC_).
            # (ASan builds resolve libc symbols against the unversioned sanitizer runtime.)
            other = [s for s in undefined if s.split("@")[0] not in ours and "@" not in s
                     and not s.startswith(("_ITM_", "__gmon_start__"))]
            assert not other, f"{name} has unexpected undefined symbols: {other[:10]}"


def test_exports_are_only_c_entry_points_and_the_module_abi():
    for env, (name, _, prefix) in LAYERS.items():
        exported = [s for s in _symbols(os.environ[env], "--defined-only")]
        if not prefix:  # a backend: nothing at all
            assert not exported, (name, exported[:10])
            continue
        assert exported and all(s.startswith(prefix) for s in exported), (name, exported[:10])


def test_cuda_backend_never_links_the_driver():
    path = os.environ.get("LIB_TVM_RUNTIME_CUDA")
    # Built wherever CUDA headers exist, and tools/install_deps.sh provides them (the toolkit
    # or NVIDIA's pip wheels): its absence is a broken install, not a reason to skip.
    assert path, ("libtvm_runtime_cuda was not built: no CUDA headers were found (run "
                  "tools/install_deps.sh, then `bazel sync --configure`)")
    assert not any(n.startswith(("libcuda", "libcudart")) for n in _readelf_needed(path))
    undefined = [s.split("@")[0] for s in _symbols(path, "--undefined-only")]
    assert not [s for s in undefined if s.startswith("cu")], "driver symbols must be dlsym'ed"


def test_runtime_knows_nothing_of_cuda():
    """libtvm_runtime reaches CUDA only by name (device_api.cuda): no driver names inside."""
    data = open(os.environ["LIB_TVM_RUNTIME"], "rb").read()
    for marker in (b"libcuda", b"cuInit", b"cuMemAlloc", b"cuLaunchKernel", b"libtvm_runtime_cuda"):
        assert marker not in data, marker
