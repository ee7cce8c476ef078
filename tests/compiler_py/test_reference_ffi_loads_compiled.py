"""A library exported by tvm.compile loads and runs under the real apache-tvm-ffi package
(in a separate interpreter: its import name `tvm_ffi` clashes with ours), also with a VM
executable made by our libtvm_runtime as the root module: then apache-tvm-ffi's library
calls our ModuleObj subclass through the C++ vtable (kind, ImportModule, GetFunction)."""

import os
import subprocess
import sys
import textwrap

import tvm
from tvm import te
from tvm.driver import compile as tvm_compile

REFERENCE_DIR = os.environ["TVM_FFI_REFERENCE_DIR"]

SCRIPT = textwrap.dedent(
    r"""
    import sys
    import numpy as np
    import tvm_ffi
    assert "tvm_stack" not in tvm_ffi.__file__, tvm_ffi.__file__
    m = tvm_ffi.load_module(sys.argv[1])
    a = np.arange(12, dtype="float32").reshape(3, 4)
    c = np.zeros((3, 4), "float32")
    m["axpy"](tvm_ffi.from_dlpack(a), tvm_ffi.from_dlpack(a), tvm_ffi.from_dlpack(c))
    assert np.allclose(c, a * 3 + 1), c
    try:
        m["axpy"](tvm_ffi.from_dlpack(a), tvm_ffi.from_dlpack(a),
                  tvm_ffi.from_dlpack(np.zeros((3, 5), "float32")))
        raise AssertionError("no error")
    except ValueError as err:
        assert "argument 2 (C): shape[1] is expected to be 4" in str(err), str(err)
    print("ok")
    """
)


def test_reference_loads_exported_library(tmp_path):
    A = te.placeholder((3, 4), "float32", "A")
    B = te.placeholder((3, 4), "float32", "B")
    C = te.compute((3, 4), lambda i, j: A[i, j] * 2.0 + B[i, j] + 1.0, name="C")
    lib = tvm_compile(te.create_prim_func([A, B, C], "axpy"))
    path = str(tmp_path / "axpy.so")
    lib.export_library(path)
    runtime_dir = os.path.dirname(os.path.realpath(tvm.base._LOADED_LIBS["tvm_runtime"]._name))
    env = dict(os.environ)
    env["PYTHONPATH"] = REFERENCE_DIR
    env["LD_LIBRARY_PATH"] = runtime_dir
    out = subprocess.run([sys.executable, "-c", SCRIPT, path], env=env, capture_output=True,
                         text=True)
    assert out.returncode == 0, out.stdout + out.stderr
    assert out.stdout.strip() == "ok"


VM_SCRIPT = textwrap.dedent(
    r"""
    import sys
    import numpy as np
    import tvm_ffi
    assert "tvm_stack" not in tvm_ffi.__file__, tvm_ffi.__file__
    m = tvm_ffi.load_module(sys.argv[1])
    # Made by our runtime's loader (ffi.Module.load_from_bytes.relax.VMExecutable), given
    # its import by the reference's ImportModule, asked for its kind through the vtable.
    assert m.kind == "relax.VMExecutable", m.kind
    assert [x.kind for x in m.imports] == ["library"], m.imports
    assert m.implements_function("vm_load_executable")
    assert m.get_function("add", query_imports=True) is not None  # found in the import
    vm = tvm_ffi.get_global_func("vm.VirtualMachine")(m, 1, 0, 1)
    assert vm.kind == "relax.VirtualMachine", vm.kind
    a = np.linspace(-2, 2, 8, dtype="float32")
    b = np.full(8, 0.5, "float32")
    out = vm["add_relu"](tvm_ffi.from_dlpack(a), tvm_ffi.from_dlpack(b))
    got = np.from_dlpack(out)
    assert np.allclose(got, np.maximum(a + b, 0)), got
    # Drops the library module: the bundle is dlclosed, libtvm_runtime (its NEEDED entry)
    # must stay loaded (-z nodelete) because the pinned executable and its globals live on.
    m.clear_imports()
    assert len(m.imports) == 0
    del vm, m, out
    print("vm ok")
    """
)


def _add_relu_bundle(path):
    from bundles import add_relu_program, kernels

    kernels().export_library(path, root_module=add_relu_program().mod)


def test_reference_runs_a_vm_executable_root_module(tmp_path):
    path = str(tmp_path / "bundle.so")
    _add_relu_bundle(path)
    runtime_dir = os.path.dirname(os.path.realpath(tvm.base._LOADED_LIBS["tvm_runtime"]._name))
    env = dict(os.environ)
    env["PYTHONPATH"] = REFERENCE_DIR
    env["LD_LIBRARY_PATH"] = runtime_dir
    env.pop("PYTHONSAFEPATH", None)
    out = subprocess.run([sys.executable, "-c", VM_SCRIPT, path], env=env, capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, "rc=%d\n%s%s" % (out.returncode, out.stdout, out.stderr)
    assert out.stdout.strip() == "vm ok"
