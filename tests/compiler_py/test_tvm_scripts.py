"""TVM scripts, written the way TVM's tutorials and deployment guides write them, run here
unchanged: tvm.contrib.utils.tempdir, tvm.compile(..., tir_pipeline=...), export_library to
.so and .tar, cross-compilation with tvm.contrib.cc.cross_compiler run under qemu-aarch64,
write_to_file of a cross object, and a runtime-only deploy script that imports tvm.te.

The cross part needs the aarch64 cross gcc, its sysroot and qemu-user (tools/install_deps.sh);
a missing tool is a failure, never a skip. The kernel library is linked WITHOUT
libtvm_runtime/libtvm_ffi (as TVM's are): the aarch64 program that loads it provides the one
symbol it needs (TVMFFIErrorSetRaisedFromCStr), as a process with the runtime loaded does.
"""

import os
import shutil
import subprocess
import sys
import tarfile

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import tvm
import tvm.contrib.cc
import tvm.contrib.tar
import tvm.contrib.utils
from tvm import te

AARCH64 = "llvm -mtriple=aarch64-linux-gnu"
SYSROOT = "/usr/aarch64-linux-gnu"
EM_AARCH64 = 183


def _axpb(name="axpb"):
    n = te.var("n")
    A = te.placeholder((n,), "float32", "A")
    B = te.compute((n,), lambda i: A[i] * 2.0 + 1.0, name="B")
    return te.create_prim_func([A, B]).with_attr("global_symbol", name)


def _add(m, n):
    A = te.placeholder((m, n), "float32", "A")
    B = te.placeholder((m, n), "float32", "B")
    C = te.compute((m, n), lambda i, j: A[i, j] + B[i, j], name="C")
    return te.create_prim_func([A, B, C]).with_attr("global_symbol", "add")


def _elf_machine(path):
    with open(path, "rb") as f:
        head = f.read(20)
    assert head[:4] == b"\x7fELF", path
    return int.from_bytes(head[18:20], "little")


def _needed(path):
    out = subprocess.run(["readelf", "-d", str(path)], capture_output=True, text=True,
                         check=True).stdout
    return [line.split("[", 1)[1].rstrip("]") for line in out.splitlines() if "(NEEDED)" in line]


# ---- tvm.contrib.utils ---------------------------------------------------------------------

def test_tempdir_as_tutorials_use_it():
    temp = tvm.contrib.utils.tempdir()
    path = temp.relpath("x.txt")
    with open(path, "w") as f:
        f.write("x")
    assert temp.listdir() == ["x.txt"]
    folder = temp.temp_dir
    temp.remove()
    assert not os.path.exists(folder)
    with tvm.contrib.utils.tempdir() as t:
        kept = t.temp_dir
        assert os.path.isdir(kept)
    assert not os.path.exists(kept)
    keep = tvm.contrib.utils.tempdir(keep_for_debug=True)
    keep.remove()
    assert os.path.isdir(keep.temp_dir)
    shutil.rmtree(keep.temp_dir)


def test_tempdir_custom_path(tmp_path):
    temp = tvm.contrib.utils.tempdir(custom_path=str(tmp_path / "mine"))
    assert temp.temp_dir == str(tmp_path / "mine") and os.path.isdir(temp.temp_dir)
    with pytest.raises(OSError):
        tvm.contrib.utils.tempdir(custom_path=str(tmp_path / "mine"))


# ---- tvm.compile as TVM 0.27 spells it -----------------------------------------------------

def test_compile_prim_func_with_tir_pipeline():
    x = np.arange(16, dtype="float32")
    for pipeline in ("default", "s_tir", tvm.tir.get_tir_pipeline("default"), None):
        ex = tvm.compile(_axpb(), target="llvm", tir_pipeline=pipeline)
        assert isinstance(ex, tvm.runtime.Executable)
        y = np.zeros_like(x)
        ex["axpb"](x, y)
        np.testing.assert_allclose(y, 2 * x + 1)
    with pytest.raises(ValueError, match="unknown TIR pipeline"):
        tvm.compile(_axpb(), target="llvm", tir_pipeline="no-such-pipeline")


def test_compile_rejects_unknown_keywords():
    with pytest.raises(TypeError):
        tvm.compile(_axpb(), target="llvm", pipeline="default")  # TVM's keyword: tir_pipeline


def test_tir_build_and_tirx_build_are_one_function():
    assert tvm.tirx.build is tvm.tir.build and tvm.tirx is tvm.tir
    assert tvm.tirx.transform is tvm.tir.transform
    assert tvm.s_tir.dlight is tvm.dlight and tvm.s_tir.pipeline is tvm.tir.pipeline
    lib = tvm.tir.build(_axpb(), target="llvm")
    x = np.ones(5, "float32")
    y = np.zeros(5, "float32")
    lib["axpb"](x, y)
    np.testing.assert_allclose(y, 3)
    # also by its global name, as C++ and other languages reach it
    import tvm_ffi
    mod = tvm_ffi.get_global_func("tirx.build")(_axpb(), "llvm")
    assert mod.kind == "llvm"


def test_build_is_deprecated_and_forwards():
    with pytest.warns(DeprecationWarning, match="tvm.compile"):
        lib = tvm.build(_axpb(), target="llvm")
    y = np.zeros(3, "float32")
    lib["axpb"](np.zeros(3, "float32"), y)
    np.testing.assert_allclose(y, 1)


# ---- export to .so and .tar ---------------------------------------------------------------

def test_export_tar_holds_the_objects_and_loads():
    temp = tvm.contrib.utils.tempdir()
    lib = tvm.compile(_add(4, 8), target="llvm")
    path = temp.relpath("k.tar")
    lib.export_library(path)
    with tarfile.open(path) as tf:
        names = tf.getnames()
    assert names == ["lib0.o"]
    m = tvm.runtime.load_module(path)   # links the tar with tvm.contrib.cc, as TVM does
    a = np.random.rand(4, 8).astype("float32")
    c = np.zeros_like(a)
    m["add"](a, a, c)
    np.testing.assert_allclose(c, a + a)


@settings(max_examples=6, deadline=None)
@given(m=st.integers(1, 9), n=st.integers(1, 17), suffix=st.sampled_from([".so", ".tar"]))
def test_random_shapes_through_export_and_load(m, n, suffix):
    with tvm.contrib.utils.tempdir() as temp:
        lib = tvm.compile(_add(m, n), target="llvm")
        path = temp.relpath("k" + suffix)
        lib.export_library(path)
        loaded = tvm.runtime.load_module(path)
        rng = np.random.default_rng(m * 100 + n)
        a = rng.standard_normal((m, n)).astype("float32")
        b = rng.standard_normal((m, n)).astype("float32")
        c = np.zeros_like(a)
        loaded["add"](a, b, c)
        np.testing.assert_allclose(c, a + b, rtol=1e-6)


def test_export_with_fcompile_create_shared(tmp_path):
    lib = tvm.compile(_axpb(), target="llvm")
    path = str(tmp_path / "k.so")
    lib.export_library(path, fcompile=tvm.contrib.cc.create_shared)
    assert not [n for n in _needed(path) if n.startswith("libtvm")]  # resolved at load time
    m = tvm.runtime.load_module(path)
    y = np.zeros(4, "float32")
    m["axpb"](np.ones(4, "float32"), y)
    np.testing.assert_allclose(y, 3)


def test_tar_refuses_two_files_with_one_name(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    for d in ("a", "b"):
        (tmp_path / d / "x.o").write_bytes(b"x")
    with pytest.raises(ValueError, match="two files"):
        tvm.contrib.tar.tar(str(tmp_path / "o.tar"), [str(tmp_path / "a" / "x.o"),
                                                     str(tmp_path / "b" / "x.o")])


# ---- cross-compilation for aarch64 ---------------------------------------------------------

def test_write_to_file_of_a_cross_object(tmp_path):
    ex = tvm.compile(_axpb(), target=AARCH64)
    assert not ex.is_host
    ex.mod.write_to_file(str(tmp_path / "k.o"))
    assert _elf_machine(tmp_path / "k.o") == EM_AARCH64
    ex.mod.write_to_file(str(tmp_path / "k.ll"))
    assert "aarch64" in (tmp_path / "k.ll").read_text()
    ex.mod.write_to_file(str(tmp_path / "k.s"))
    assert "__tvm_ffi_axpb:" in (tmp_path / "k.s").read_text()
    with pytest.raises(RuntimeError, match="cannot run on this host"):
        ex["axpb"]


def test_cross_tar_packs_objects_without_linking(tmp_path):
    ex = tvm.compile(_axpb(), target=AARCH64)
    path = str(tmp_path / "k.tar")
    ex.export_library(path)
    with tarfile.open(path) as tf:
        tf.extractall(tmp_path / "x")
        assert tf.getnames() == ["lib0.o"]
    assert _elf_machine(tmp_path / "x" / "lib0.o") == EM_AARCH64


_RUNNER = r"""
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* The pieces of the tvm-ffi C ABI the call needs (shared/reference/tvm_ffi_abi.md). */
typedef struct { int32_t device_type, device_id; } Device;
typedef struct { uint8_t code, bits; uint16_t lanes; } DType;
typedef struct {
  void* data; Device device; int32_t ndim; DType dtype;
  int64_t* shape; int64_t* strides; uint64_t byte_offset;
} Tensor;
typedef struct { int32_t type_index; uint32_t pad; union { int64_t v_int64; void* v_ptr; }; } Any;

int32_t __tvm_ffi_axpb(void* self, Any* args, int32_t num_args, Any* result);

/* What libtvm_ffi provides in a real process: here, the error is printed. */
void TVMFFIErrorSetRaisedFromCStr(const char* kind, const char* message) {
  printf("raised %s: %s\n", kind, message);
}

int main(int argc, char** argv) {
  int64_t n = atoi(argv[1]);
  float* a = malloc(sizeof(float) * n);
  float* b = malloc(sizeof(float) * n);
  for (int64_t i = 0; i < n; ++i) a[i] = 0.5f * (float)i - 3.0f;
  Tensor ta = {a, {1, 0}, 1, {2, 32, 1}, &n, NULL, 0};
  Tensor tb = {b, {1, 0}, 1, {2, 32, 1}, &n, NULL, 0};
  Any args[2] = {{7, 0, {.v_ptr = &ta}}, {7, 0, {.v_ptr = &tb}}};
  Any ret = {0, 0, {0}};
  int rc = __tvm_ffi_axpb(NULL, args, 2, &ret);
  if (rc != 0) { printf("rc %d\n", rc); return 1; }
  for (int64_t i = 0; i < n; ++i) printf("%.6f\n", b[i]);
  Tensor bad = {b, {1, 0}, 1, {0, 32, 1}, &n, NULL, 0};  /* int32 where float32 is expected */
  Any wrong[2] = {{7, 0, {.v_ptr = &ta}}, {7, 0, {.v_ptr = &bad}}};
  printf("bad dtype rc %d\n", __tvm_ffi_axpb(NULL, wrong, 2, &ret));
  return 0;
}
"""


def _tool(name):
    path = shutil.which(name)
    assert path, "%s is missing: run tools/install_deps.sh" % name
    return path


def test_cross_compile_with_cross_compiler_and_run_under_qemu(tmp_path):
    gcc = _tool("aarch64-linux-gnu-gcc")
    qemu = _tool("qemu-aarch64")
    assert os.path.isdir(SYSROOT), "%s is missing: install libc6-dev-arm64-cross" % SYSROOT
    ex = tvm.compile(_axpb(), target=AARCH64)
    fcompile = tvm.contrib.cc.cross_compiler("aarch64-linux-gnu-gcc")
    assert fcompile.output_format == "so"
    assert fcompile.get_target_triple().startswith("aarch64")
    lib = str(tmp_path / "libaxpb.so")
    ex.export_library(lib, fcompile=fcompile)
    assert _elf_machine(lib) == EM_AARCH64
    assert not [n for n in _needed(lib) if n.startswith("libtvm")], _needed(lib)
    src = tmp_path / "runner.c"
    src.write_text(_RUNNER)
    runner = str(tmp_path / "runner")
    tvm.contrib.cc.create_executable(runner, [str(src), lib],
                                     options=["-rdynamic", "-Wl,-rpath,$ORIGIN"], cc=gcc)
    assert _elf_machine(runner) == EM_AARCH64
    env = {k: v for k, v in os.environ.items() if k not in ("LD_PRELOAD", "ASAN_OPTIONS")}
    for n in (1, 7, 64):
        proc = subprocess.run([qemu, "-L", SYSROOT, runner, str(n)], capture_output=True,
                              text=True, timeout=240, env=env, cwd=str(tmp_path))
        assert proc.returncode == 0, proc.stdout + proc.stderr
        lines = proc.stdout.splitlines()
        got = np.array([float(v) for v in lines[:n]], np.float32)
        a = 0.5 * np.arange(n, dtype=np.float32) - 3.0
        np.testing.assert_allclose(got, 2 * a + 1, rtol=1e-6)
        # the kernel's argument check ran on aarch64 and raised through the runtime's symbol
        assert "raised TypeError" in proc.stdout and "bad dtype rc -1" in proc.stdout, proc.stdout


def test_cross_export_by_default_uses_the_triples_gcc(tmp_path, monkeypatch):
    monkeypatch.delenv("TVM_CROSS_LIB_DIR", raising=False)
    monkeypatch.delenv("TVM_CROSS_CC", raising=False)
    _tool("aarch64-linux-gnu-gcc")
    ex = tvm.compile(_axpb(), target=AARCH64)
    path = str(tmp_path / "k.so")
    ex.export_library(path)        # no TVM_CROSS_LIB_DIR needed
    assert _elf_machine(path) == EM_AARCH64
    assert not [n for n in _needed(path) if n.startswith("libtvm")]


# ---- runtime-only deployment --------------------------------------------------------------

_DEPLOY = r"""
import sys
import numpy as np
import tvm
from tvm import te, relax          # a deploy script's imports, as TVM's guides write them
from tvm._compiler_guard import CompilerNotAvailableError

assert tvm.base.RUNTIME_ONLY and "tvm_compiler" not in tvm.base._LOADED_LIBS
lib = tvm.runtime.load_module(sys.argv[1])
x = np.arange(6, dtype="float32")
y = np.zeros_like(x)
lib["axpb"](x, y)
np.testing.assert_allclose(y, 2 * x + 1)
print("ran")
for call in (lambda: te.placeholder((4,), "float32"), lambda: tvm.compile(None)):
    try:
        call()
    except CompilerNotAvailableError as err:
        print("refused:", err)
    else:
        raise SystemExit("a compiler call worked in runtime-only mode")
"""


def test_runtime_only_deploy_script(tmp_path):
    lib = str(tmp_path / "k.so")
    tvm.compile(_axpb(), target="llvm").export_library(lib)
    script = tmp_path / "deploy.py"
    script.write_text(_DEPLOY)
    env = dict(os.environ, TVM_USE_RUNTIME_LIB="1", PYTHONPATH=os.pathsep.join(sys.path))
    proc = subprocess.run([sys.executable, str(script), lib], env=env, capture_output=True,
                          text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == "ran"
    refused = [line for line in lines if line.startswith("refused:")]
    assert len(refused) == 2
    assert all("runtime-only mode" in line and "TVM_USE_RUNTIME_LIB" in line for line in refused)


def test_relax_model_exports_to_tar_with_its_imports():
    from tvm import relax

    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo((4,), "float32"))
    with bb.function("main", [x]):
        y = bb.emit(relax.op.add(x, x))
        bb.emit_func_output(y)
    ex = tvm.compile(bb.get(), "llvm", relax_pipeline="default", tir_pipeline="default")
    with tvm.contrib.utils.tempdir() as temp:
        path = temp.relpath("model.tar")
        ex.export_library(path)
        with tarfile.open(path) as tf:
            # the kernels' object and the library binary (bytecode + constants) as an object
            assert sorted(tf.getnames()) == ["devc.o", "lib0.o"]
        m = tvm.runtime.load_module(path)
        assert m.kind == "relax.VMExecutable"
        out = relax.VirtualMachine(m)["main"](tvm.runtime.tensor(np.arange(4, dtype="float32")))
        np.testing.assert_allclose(out.numpy(), 2 * np.arange(4, dtype="float32"))
