"""A library exported by tvm.compile loads and runs under the real apache-tvm-ffi package
(in a separate interpreter: its import name `tvm_ffi` clashes with ours)."""

import os
import subprocess
import sys
import textwrap

import numpy as np

import tvm
from tvm import te, tir
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

