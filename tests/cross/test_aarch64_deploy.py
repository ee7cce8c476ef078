"""Cross-compilation that really runs ("compile on x86 for Jetson").

Kernels are compiled here (x86-64) with `llvm -mtriple=aarch64-linux-gnu`, exported with the
aarch64 cross gcc against the aarch64 builds of libtvm_ffi/libtvm_runtime (built by Bazel
through //bazel/cross's transition), and run under qemu-aarch64 by aarch64 programs:
kernel_runner (dense + bias + relu, the main job's scheduled kernel) and the C++ deploy app
(a VM program calling add/relu). Results are checked against numpy on the host.

A missing cross gcc or qemu-aarch64 is a failure, never a skip: tools/install_deps.sh
installs both.
"""

import importlib.util
import os
import re
import shutil
import subprocess

import numpy as np
import pytest

from tvm import ir, te, tir
from tvm.driver import compile as tvm_compile
from tvm.driver import cross

TARGET = "llvm -mtriple=aarch64-linux-gnu"
SYSROOT = "/usr/aarch64-linux-gnu"
EM_AARCH64 = 183


def _aarch64_files():
    """basename -> path of the files //tests/cross:aarch64_programs built for aarch64."""
    paths = os.environ["TVM_TEST_AARCH64_FILES"].split()
    files = {os.path.basename(p): os.path.abspath(p) for p in paths}
    for name in ("libtvm_ffi.so", "libtvm_runtime.so", "kernel_runner", "deploy_app"):
        assert name in files, "%s not among %s" % (name, paths)
        assert cross.elf_machine(files[name]) == EM_AARCH64, files[name]
    return files


FILES = _aarch64_files()


@pytest.fixture
def cross_libs(monkeypatch):
    """TVM_CROSS_LIB_DIR naming the aarch64 libtvm_ffi/libtvm_runtime folders."""
    dirs = [os.path.dirname(FILES["libtvm_ffi.so"]), os.path.dirname(FILES["libtvm_runtime.so"])]
    monkeypatch.setenv("TVM_CROSS_LIB_DIR", os.pathsep.join(dirs))
    monkeypatch.delenv("TVM_CROSS_CC", raising=False)
    return dirs


def _qemu(*args):
    qemu = shutil.which("qemu-aarch64")
    assert qemu, "qemu-aarch64 is missing: run tools/install_deps.sh (apt-get install qemu-user)"
    assert os.path.isdir(SYSROOT), "%s is missing: install libc6-dev-arm64-cross" % SYSROOT
    # Under --config=asan this process preloads the host's libasan: not for qemu or its guest.
    env = {k: v for k, v in os.environ.items() if k not in ("LD_PRELOAD", "ASAN_OPTIONS")}
    proc = subprocess.run([qemu, "-L", SYSROOT] + [str(a) for a in args],
                          capture_output=True, text=True, timeout=240, env=env)
    assert proc.returncode == 0, "qemu-aarch64 %s failed (%d):\n%s\n%s" % (
        " ".join(map(str, args)), proc.returncode, proc.stdout, proc.stderr)
    return proc.stdout


def _needed(path):
    out = subprocess.run(["readelf", "-d", str(path)], capture_output=True, text=True,
                         check=True).stdout
    return [line.split("[", 1)[1].rstrip("]") for line in out.splitlines() if "(NEEDED)" in line]


def _check_exported(path, needs_runtime):
    """An AArch64 .so linked against the aarch64 libraries. gcc links --as-needed here
    (Debian's default), so libtvm_runtime is NEEDED only by kernels that call into it
    (parallel loops: TVMBackendParallelLaunch)."""
    assert cross.elf_machine(path) == EM_AARCH64
    needed = _needed(path)
    assert "libtvm_ffi.so" in needed, needed
    assert ("libtvm_runtime.so" in needed) == needs_runtime, needed


def _compile_and_export_module():
    """examples/compile_deploy/compile_and_export.py: the main job's dense + bias + relu."""
    path = os.environ["TVM_TEST_COMPILE_AND_EXPORT"]
    spec = importlib.util.spec_from_file_location("compile_and_export", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


# Generic armv8-a (NEON is baseline) with contraction turned off: 4-lane fmul + fadd. Jetson
# Orin's core with the default (a*b+c contracted, as apache-tvm does): 4-lane fmla.
@pytest.mark.parametrize("flags, vector_op", [
    ("-fast-math-contract=false", "fmul"),
    ("-mcpu=cortex-a78ae", "fmla"),
])
def test_dense_bias_relu_compiled_for_aarch64_runs_under_qemu(tmp_path, cross_libs, flags,
                                                               vector_op):
    ex = _compile_and_export_module()
    m, k, n = 64, 48, 32  # divisible by the 4 x 16 register tile: the fully scheduled path
    mod = ex._named(ex.schedule(ex.dense_relu(m, k, n), m, k, n))
    lib = tvm_compile(mod, target=(TARGET + " " + flags).strip())
    assert not lib.is_host
    so = tmp_path / "dense_relu_aarch64.so"
    lib.export_library(str(so))
    _check_exported(so, needs_runtime=True)
    # The 16-column register tile became NEON code on q registers (v<n>.4s).
    objdump = shutil.which("aarch64-linux-gnu-objdump")
    assert objdump, "aarch64-linux-gnu-objdump is missing (binutils-aarch64-linux-gnu)"
    asm = subprocess.run([objdump, "-d", str(so)], capture_output=True, text=True,
                         check=True).stdout
    assert re.search(r"\b%s\s+v\d+\.4s" % vector_op, asm), "no 4-lane %s" % vector_op

    rng = np.random.default_rng(7)
    x = rng.standard_normal((m, k), dtype=np.float32)
    w = rng.standard_normal((k, n), dtype=np.float32)
    b = rng.standard_normal(n, dtype=np.float32)
    for name, arr in (("x", x), ("w", w), ("b", b)):
        arr.tofile(tmp_path / (name + ".f32"))
    out = _qemu(FILES["kernel_runner"], so, "dense_relu",
                "in:%s:%dx%d" % (tmp_path / "x.f32", m, k),
                "in:%s:%dx%d" % (tmp_path / "w.f32", k, n),
                "in:%s:%d" % (tmp_path / "b.f32", n),
                "out:%s:%dx%d" % (tmp_path / "y.f32", m, n))
    assert "dense_relu(4 tensors) done" in out
    y = np.fromfile(tmp_path / "y.f32", dtype=np.float32).reshape(m, n)

    expected = np.maximum(x.astype(np.float64) @ w + b, 0)
    err = float(np.max(np.abs(y - expected)))
    print("aarch64 [%s] dense_relu %dx%dx%d under qemu: max abs error vs numpy %.3g"
          % (flags, m, k, n, err))
    np.testing.assert_allclose(y, expected, rtol=1e-5, atol=1e-4)
    assert (y == 0).any() and (y > 0).any()  # relu really cut something

    # The same schedule compiled for this host gives the same numbers (up to rounding).
    host = tvm_compile(mod, target=("llvm " + flags.replace("-mcpu=cortex-a78ae", "")).strip())
    y_host = np.zeros((m, n), np.float32)
    host["dense_relu"](x, w, b, y_host)
    np.testing.assert_allclose(y, y_host, rtol=1e-5, atol=1e-5)


def _add_relu(n=8):
    """The two kernels examples/cpp_deploy's app calls by name (float32[8])."""
    a = te.placeholder((n,), "float32", "a")
    b = te.placeholder((n,), "float32", "b")
    add = te.compute((n,), lambda i: a[i] + b[i], name="add")
    x = te.placeholder((n,), "float32", "x")
    relu = te.compute((n,), lambda i: tir.max(x[i], 0.0), name="relu")
    return ir.IRModule({
        "add": te.create_prim_func([a, b, add]).with_attr("global_symbol", "add"),
        "relu": te.create_prim_func([x, relu]).with_attr("global_symbol", "relu"),
    })


def test_deploy_app_runs_cross_compiled_kernels_under_qemu(tmp_path, cross_libs):
    so = tmp_path / "kernels_aarch64.so"
    tvm_compile(_add_relu(), target=TARGET).export_library(str(so))
    _check_exported(so, needs_runtime=False)
    out = _qemu(FILES["deploy_app"], so)
    assert "deploy_app: OK" in out, out
    line = next(s for s in out.splitlines() if s.startswith("relu(x + y) ="))
    got = np.array([float(v) for v in line.split("=", 1)[1].split()], np.float32)
    xs = np.arange(8, dtype=np.float32) - 4
    np.testing.assert_array_equal(got, np.maximum(xs + 0.5, 0))


def test_cross_export_links_the_runtime_only_when_asked(tmp_path, monkeypatch):
    lib = tvm_compile(_add_relu(), target=TARGET)
    monkeypatch.delenv("TVM_CROSS_LIB_DIR", raising=False)
    # Without TVM_CROSS_LIB_DIR (as TVM): no libtvm_* dependency, the symbols resolve when the
    # target's process (which has loaded the runtime) loads the library.
    path = lib.export_library(str(tmp_path / "k.so"))
    assert cross.elf_machine(path) == EM_AARCH64
    assert not [n for n in _needed(path) if n.startswith("libtvm")], _needed(path)
    # The host's libraries are the wrong machine: refused before the linker says it obscurely.
    from tvm import base
    host_dirs = [os.path.dirname(os.path.realpath(base._LOADED_LIBS["tvm_runtime"]._name))]
    from tvm_ffi import _lib
    host_dirs.append(os.path.dirname(os.path.realpath(_lib.LIB._name)))
    monkeypatch.setenv("TVM_CROSS_LIB_DIR", os.pathsep.join(host_dirs))
    with pytest.raises(RuntimeError, match="ELF machine 62, not aarch64"):
        lib.export_library(str(tmp_path / "k.so"))


def test_cross_compiler_is_the_triples_gcc(monkeypatch):
    monkeypatch.delenv("TVM_CROSS_CC", raising=False)
    assert os.path.basename(cross.compiler("aarch64-unknown-linux-gnu")) == "aarch64-linux-gnu-gcc"
    monkeypatch.setenv("TVM_CROSS_CC", "my-gcc")
    assert cross.compiler("aarch64-linux-gnu") == "my-gcc"
    assert cross.compiler("aarch64-linux-gnu", cc="given-gcc") == "given-gcc"
