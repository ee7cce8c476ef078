"""export_library packs imported modules into the .so (tvm-ffi's library binary format): the
file loads with them in this process, in a runtime-only process, and a VM executable given as
the root module runs the library's kernels."""

import os
import subprocess
import sys

import numpy as np
import pytest
import tvm_ffi

import tvm
from tvm.driver import library_bin
from tvm.runtime.vm import Executable, VirtualMachine

from bundles import N, add_relu_program as _add_relu_program, kernels as _kernels


def _inputs():
    rng = np.random.default_rng(0)
    return [rng.standard_normal(N).astype("float32") for _ in range(2)]


def test_imported_module_travels_in_the_library(tmp_path):
    lib = _kernels()
    exe = _add_relu_program()
    lib.import_module(exe.mod)
    path = str(tmp_path / "with_import.so")
    lib.export_library(path)
    m = tvm_ffi.load_module(path)
    assert m.kind == "library"
    assert [x.kind for x in m.imports] == ["relax.VMExecutable"]
    assert Executable(m.imports[0]).function_names() == ["add_relu"]
    a, b = _inputs()
    out = np.zeros(N, "float32")
    m["add"](a, b, out)
    np.testing.assert_allclose(out, a + b)
    # The bytes in the file are the executable's own serialization.
    assert bytes(Executable(m.imports[0]).save_to_bytes()) == bytes(exe.save_to_bytes())


def test_root_module_runs_the_library_kernels(tmp_path):
    lib = _kernels()
    exe = _add_relu_program()
    path = str(tmp_path / "bundle.so")
    lib.export_library(path, root_module=exe.mod)
    m = tvm_ffi.load_module(path)
    assert m.kind == "relax.VMExecutable" and [x.kind for x in m.imports] == ["library"]
    a, b = _inputs()
    got = VirtualMachine(m)["add_relu"](tvm.runtime.tensor(a), tvm.runtime.tensor(b))
    np.testing.assert_allclose(got.numpy(), np.maximum(a + b, 0))


def test_runtime_only_process_loads_and_runs(tmp_path):
    lib = _kernels()
    path = str(tmp_path / "bundle.so")
    lib.export_library(path, root_module=_add_relu_program().mod)
    code = (
        "import numpy as np, tvm, tvm_ffi\n"
        "from tvm.runtime.vm import VirtualMachine\n"
        "assert 'tvm_compiler' not in tvm.base._LOADED_LIBS, tvm.base._LOADED_LIBS\n"
        "m = tvm.runtime.load_module(%r)\n"
        "a = np.arange(-4, 4, dtype='float32'); b = np.ones(8, 'float32')\n"
        "out = VirtualMachine(m)['add_relu'](tvm.runtime.tensor(a), tvm.runtime.tensor(b))\n"
        "np.testing.assert_allclose(out.numpy(), np.maximum(a + b, 0))\n"
        "print('runtime-only OK')\n" % path)
    env = dict(os.environ, TVM_USE_RUNTIME_LIB="1")
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert "runtime-only OK" in proc.stdout


def test_blob_layout_round_trips():
    exe = _add_relu_program()
    blob = library_bin.pack([exe.mod])
    indptr, children, mods = library_bin.unpack(blob)
    assert indptr == [0, 1, 1] and children == [1]
    assert [k for k, _ in mods] == ["_lib", "relax.VMExecutable"]
    blob = library_bin.pack([], root=exe.mod)
    indptr, children, mods = library_bin.unpack(blob)
    assert indptr == [0, 1, 1] and children == [1] and mods[1] == ("_lib", None)


def test_import_module_refuses_what_cannot_be_exported():
    lib = _kernels()
    with pytest.raises(TypeError, match="tvm_ffi.Module"):
        lib.import_module("not a module")
    with pytest.raises(ValueError, match="cannot be exported"):
        lib.import_module(lib.mod)  # a loaded library is not binary serializable


def test_codegen_by_target_kind_through_the_registry(tmp_path):
    from tvm import te

    A = te.placeholder((N,), "float32", "A")
    B = te.compute((N,), lambda i: A[i] * 3.0, name="B")
    lowered = tvm.driver.build_module.host_pipeline()(tvm.lower(te.create_prim_func([A, B])))
    build = tvm_ffi.get_global_func("target.build.llvm")
    mod = build(lowered, "llvm")
    assert isinstance(mod, tvm_ffi.Module) and mod.kind == "llvm"
    assert mod.is_runnable() and mod.is_compilation_exportable()
    a = np.arange(N, dtype="float32")
    b = np.zeros(N, "float32")
    mod["main"](a, b)
    np.testing.assert_allclose(b, a * 3)
    obj = str(tmp_path / "k.o")
    mod.write_to_file(obj, "o")
    assert open(obj, "rb").read(4) == b"\x7fELF"
    assert "define" in mod.inspect_source("ll")
    # tvm.compile's result holds the same kind of module; imports go into it.
    lib = _kernels()
    assert lib.mod.kind == "llvm"
    lib.import_module(_add_relu_program().mod)
    assert [m.kind for m in lib.mod.imports] == ["relax.VMExecutable"]
