"""Kernels compiled by tvm.compile(target="cuda") launched through the whole host path:
the host code's argument checks, __tvm_set_device, the kernel's lookup in the library's
imports, argument packing and the launch configuration; also from an exported .so in a
runtime-only process.

The fake driver (TVM_CUDA_DRIVER_LIBRARY) stands in for libcuda.so.1 and records what the
runtime hands to cuLaunchKernelEx: this checks HOST-SIDE logic only. Kernel results are
checked on a GPU by tools/gpu_check.sh.
"""

import os
import struct
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tvm
from tvm import te
from cuda_testing import FakeDriver


def scheduled_add(n, factor):
    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda i: A[i] + 1.0, name="B")
    sch = tvm.tir.Schedule(te.create_prim_func([A, B]))
    (i,) = sch.get_loops(sch.get_block("B"))
    bx, tx = sch.split(i, [None, factor])
    sch.bind(bx, "blockIdx.x")
    sch.bind(tx, "threadIdx.x")
    return sch.mod


def symbolic_add(factor):
    n = te.var("n")
    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda i: A[i] * 2.0, name="B")
    sch = tvm.tir.Schedule(te.create_prim_func([A, B]))
    (i,) = sch.get_loops(sch.get_block("B"))
    bx, tx = sch.split(i, [None, factor])
    sch.bind(bx, "blockIdx.x")
    sch.bind(tx, "threadIdx.x")
    return sch.mod


def ptr(b):
    return struct.unpack("<Q", b)[0]


@settings(max_examples=8, deadline=None)
@given(n=st.integers(1, 5000), factor=st.sampled_from([32, 128, 256, 1024]))
def test_launch_configuration_and_arguments(n, factor):
    exe = tvm.compile(symbolic_add(factor), target="cuda -arch=sm_90")
    a = tvm.runtime.tensor(np.zeros(n, "float32"), tvm.cuda(0))
    b = tvm.runtime.empty((n,), "float32", tvm.cuda(0))
    fake = FakeDriver()
    exe["main"](a, b)
    launch = fake.last_launch()
    assert launch.name == b"main_kernel"
    assert list(launch.grid) == [(n + factor - 1) // factor, 1, 1]
    assert list(launch.block) == [factor, 1, 1]
    params = launch.param_bytes()
    # (B data, A data, n): pointers first in the order the kernel uses them, then scalars.
    assert [ptr(p) for p in params[:2]] == [b.data_ptr(), a.data_ptr()]
    assert struct.unpack("<i", params[2])[0] == n


def test_host_checks_run_before_any_launch():
    exe = tvm.compile(scheduled_add(256, 64), target="cuda -arch=sm_90")
    fake = FakeDriver()
    fake.reset()
    a_host = tvm.runtime.tensor(np.zeros(256, "float32"))
    b = tvm.runtime.empty((256,), "float32", tvm.cuda(0))
    with pytest.raises(ValueError, match="device_type is expected to be cuda"):
        exe["main"](a_host, b)
    with pytest.raises(ValueError, match="shape"):
        exe["main"](tvm.runtime.empty((255,), "float32", tvm.cuda(0)), b)
    assert fake.stats().launches == 0


def test_export_loads_and_launches_in_a_runtime_only_process(tmp_path):
    exe = tvm.compile(scheduled_add(1000, 128), target="cuda -arch=sm_90")
    path = str(tmp_path / "k.so")
    exe.export_library(path)
    script = textwrap.dedent("""
        import sys, numpy as np, tvm, tvm_ffi
        sys.path.insert(0, sys.argv[2])
        from cuda_testing import FakeDriver
        assert tvm.base.RUNTIME_ONLY and "tvm_runtime_cuda" in tvm.base._LOADED_LIBS
        lib = tvm_ffi.load_module(sys.argv[1])
        assert [m.kind for m in lib.imports] == ["cuda"]
        assert ".entry main_kernel" in lib.imports[0].inspect_source("ptx")
        a = tvm.runtime.tensor(np.zeros(1000, "float32"), tvm.cuda(0))
        b = tvm.runtime.empty((1000,), "float32", tvm.cuda(0))
        lib["main"](a, b)
        launch = FakeDriver().last_launch()
        print(launch.name.decode(), list(launch.grid), list(launch.block))
    """)
    env = dict(os.environ, TVM_USE_RUNTIME_LIB="1", PYTHONPATH=os.pathsep.join(sys.path))
    proc = subprocess.run([sys.executable, "-c", script, path, os.path.dirname(os.path.abspath(__file__))],
                          env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["main_kernel", "[8,", "1,", "1]", "[128,", "1,", "1]"]
