"""cuBLAS: the registered packed functions (tvm.contrib.cublas.matmul / batch_matmul, in
libtvm_runtime_extra) and partition_for_cublas.

Without a GPU (this machine): a call raises LibraryNotAvailableError naming the missing
driver and libcublas.so.13 with what to pip install; with the fake driver in a child process,
only libcublas is blamed. The partition pass on generated matmul chains (shapes, dtypes,
transposed rhs, bias, relu/gelu) makes exactly one function with TVM's composite name and
Codegen "cublas"; RunCodegen turns it into call_dps_packed of the packed function; the module
builds for llvm and cuda targets, and running it on the CPU reaches the packed function (the
typed error). Chains cuBLAS cannot run stay as they are. With a GPU and cuBLAS: results vs
numpy (skipped otherwise, with the reason)."""

import os
import subprocess
import sys

import numpy as np
import pytest
import tvm_ffi
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nccl_testing import cublas_reason, gpu_missing_reason, require_library

import tvm
from tvm import relax, tir
from tvm.relax import op as R
from tvm.relax.backend.cuda import cublas

Error = tvm.runtime.LibraryNotAvailableError


def test_without_gpu_the_packed_functions_say_what_is_missing():
    a = tvm.runtime.empty((2, 4), "float32")
    if not cublas_reason():
        # A machine with a GPU and cuBLAS: host tensors are refused with a typed error.
        for name in ("matmul", "batch_matmul"):
            with pytest.raises((TypeError, ValueError)):
                tvm_ffi.get_global_func("tvm.contrib.cublas." + name)(a, a, a, False, True)
        assert tvm.support.libinfo()["CUBLAS"] == "available"
        return
    for name in ("matmul", "batch_matmul"):
        f = tvm_ffi.get_global_func("tvm.contrib.cublas." + name)
        with pytest.raises(Error) as err:
            f(a, a, a, False, True)
        msg = str(err.value)
        assert msg.startswith("tvm.contrib.cublas.%s cannot run" % name)
        if "cuBLAS:" in msg:
            assert "libcublas.so.13" in msg and "pip install nvidia-cublas" in msg
    info = tvm.support.libinfo()
    assert info["USE_CUBLAS"] == "ON" and info["CUBLAS"].startswith("unavailable: ")


def test_bad_arguments_are_type_errors():
    f = tvm_ffi.get_global_func("tvm.contrib.cublas.matmul")
    with pytest.raises(TypeError, match="5 or 7 arguments"):
        f(1, 2)
    with pytest.raises(TypeError):
        f(1, 2, 3, False, False)


_CHILD = """
import tvm, tvm_ffi
a = tvm.runtime.empty((2, 4), "float32")
try:
    tvm_ffi.get_global_func("tvm.contrib.cublas.matmul")(a, a, a, False, False)
except tvm.runtime.LibraryNotAvailableError as e:
    print(e)
"""


def test_with_a_driver_only_libcublas_is_blamed():
    fake = os.environ.get("FAKE_DRIVER")
    if not fake:
        pytest.fail("FAKE_DRIVER must name the fake CUDA driver (Bazel sets it: "
                    "//runtime_cuda/tests/fake_driver:libcuda.so.1; outside Bazel, build that "
                    "target and set FAKE_DRIVER=bazel-bin/runtime_cuda/tests/fake_driver/libcuda.so.1)")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path),
               TVM_CUDA_DRIVER_LIBRARY=os.path.abspath(fake),
               TVM_CUBLAS_LIBRARY="/nonexistent/libcublas.so.13")
    out = subprocess.run([sys.executable, "-c", _CHILD], capture_output=True, text=True,
                         env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "cuBLAS: cannot load libcublas.so.13" in out.stdout and "CUDA:" not in out.stdout
    assert "TVM_CUBLAS_LIBRARY=/nonexistent/libcublas.so.13" in out.stdout


# ------------------------------------------------------------------ the partition pass

def chain(lhs_shape, rhs_shape, dtype, out_dtype, transposed, bias, act):
    x = relax.Var("x", relax.TensorStructInfo(lhs_shape, dtype))
    w = relax.Var("w", relax.TensorStructInfo(rhs_shape, dtype))
    n = rhs_shape[-2] if transposed else rhs_shape[-1]
    params = [x, w]
    if bias:
        params.append(relax.Var("b", relax.TensorStructInfo([n], out_dtype)))
    bb = relax.BlockBuilder()
    with bb.function("main", params):
        with bb.dataflow():
            rhs = w
            if transposed:
                nd = len(rhs_shape)
                rhs = bb.emit(R.permute_dims(w, None if nd == 2 else [0, 2, 1]))
            y = bb.emit(R.matmul(x, rhs, out_dtype=out_dtype))
            if bias:
                y = bb.emit(R.add(y, params[2]))
                if act:
                    y = bb.emit(getattr(R.nn, act)(y))
            gv = bb.emit_output(R.nn.softmax(y, axis=-1) if out_dtype != "int32" else R.add(y, y))
        bb.emit_func_output(gv)
    return bb.get()


def expected_name(transposed, bias, act):
    return ("cublas.matmul" + ("_transposed" if transposed else "") +
            ("_bias" if bias else "") + ("_" + act if bias and act else ""))


_DT = st.sampled_from([("float32", "float32"), ("float16", "float16"), ("float16", "float32"),
                       ("bfloat16", "float32"), ("int8", "int32")])


@st.composite
def chains(draw):
    dtype, out_dtype = draw(_DT)
    mult = 4 if dtype == "int8" else 1
    m = draw(st.integers(1, 6))
    k = draw(st.integers(1, 4)) * mult
    n = draw(st.integers(1, 4)) * mult
    batch = draw(st.sampled_from([None, 1, 3]))
    rhs_batch = draw(st.sampled_from([None, 1, batch])) if batch else None
    transposed = draw(st.booleans())
    bias = draw(st.booleans()) and dtype != "int8"
    act = draw(st.sampled_from([None, "relu", "gelu"])) if bias else None
    lhs = [batch, m, k] if batch else [m, k]
    rhs = [n, k] if transposed else [k, n]
    if rhs_batch:
        rhs = [rhs_batch] + rhs
    return lhs, rhs, dtype, out_dtype, transposed, bias, act


def _composites(mod):
    return {str(g): f for g, f in mod.functions.items()
            if isinstance(f, relax.Function) and f.attrs is not None and "Composite" in f.attrs}


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(chains())
def test_partition_makes_tvms_composite_and_the_module_builds(case):
    lhs, rhs, dtype, out_dtype, transposed, bias, act = case
    mod = cublas.partition_for_cublas(chain(*case))
    comps = _composites(mod)
    assert len(comps) == 1, mod
    (name, func), = comps.items()
    assert str(func.attrs["Composite"]) == expected_name(transposed, bias, act)
    assert str(func.attrs["Codegen"]) == "cublas"
    assert str(func.attrs["Composite"]) in cublas.PATTERNS
    assert name.endswith("_cublas") and name in str(mod["main"])
    lowered = relax.transform.RunCodegen()(mod)
    text = str(lowered[name])
    packed = "batch_matmul" if len(lhs) == 3 else "matmul"
    assert 'R.ExternFunc("tvm.contrib.cublas.%s")' % packed in text
    assert "Codegen" not in text and "R.matmul" not in text
    # The default pipeline runs RunCodegen itself: the partitioned module builds as it is.
    ex = tvm.compile(mod, "llvm")
    assert ex is not None


def test_offloaded_module_builds_for_cuda_and_reaches_the_packed_function_at_run_time():
    mod = cublas.partition_for_cublas(chain([4, 8], [16, 8], "float32", "float32", True, True, "relu"))
    tvm.compile(mod, tvm.target.Target("cuda -arch=sm_80"))
    ex = tvm.compile(mod, "llvm")
    vm = relax.VirtualMachine(ex, tvm.cpu())
    args = [tvm.runtime.tensor(np.ones(s, "float32")) for s in [(4, 8), (16, 8), (16,)]]
    if not cublas_reason():
        # With a GPU and cuBLAS the call is reached and refuses the host tensors, typed.
        with pytest.raises((TypeError, ValueError)):
            vm["main"](*args)
        return
    with pytest.raises(Error, match="tvm.contrib.cublas.matmul cannot run"):
        vm["main"](*args)


@pytest.mark.parametrize("case,why", [
    (([4, 8], [8, 16], "float64", "float64", False, False, None), "float64"),
    (([4, 6], [6, 16], "int8", "int32", False, False, None), "int8 row lengths"),
    (([4, 8], [8, 16], "float16", "float64", False, False, None), "out float64"),
    (([4, 8], [2, 8, 16], "float32", "float32", False, False, None), "3-D rhs, 2-D lhs"),
    (([2, 2, 4, 8], [8, 16], "float32", "float32", False, False, None), "4-D lhs"),
])
def test_chains_cublas_cannot_run_are_left_alone(case, why):
    mod = chain(*case)
    assert not _composites(cublas.partition_for_cublas(mod)), why


def test_symbolic_shapes_are_left_alone():
    n = tir.Var("n", "int64")
    x = relax.Var("x", relax.TensorStructInfo([n, 8], "float32"))
    w = relax.Var("w", relax.TensorStructInfo([8, 4], "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x, w]):
        with bb.dataflow():
            gv = bb.emit_output(R.matmul(x, w))
        bb.emit_func_output(gv)
    assert not _composites(cublas.partition_for_cublas(bb.get()))


def test_a_bias_used_twice_keeps_only_the_matmul():
    x = relax.Var("x", relax.TensorStructInfo([4, 8], "float32"))
    w = relax.Var("w", relax.TensorStructInfo([8, 16], "float32"))
    b = relax.Var("b", relax.TensorStructInfo([16], "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x, w, b]):
        with bb.dataflow():
            y = bb.emit(R.matmul(x, w))
            z = bb.emit(R.add(y, b))
            gv = bb.emit_output(R.add(z, y))  # y has a second use: no bias fusion
        bb.emit_func_output(gv)
    comps = _composites(cublas.partition_for_cublas(bb.get()))
    assert [str(f.attrs["Composite"]) for f in comps.values()] == ["cublas.matmul"]


# ------------------------------------------------------------------ on a GPU

@pytest.mark.parametrize("dtype,out_dtype", [("float32", "float32"), ("float16", "float32"),
                                             ("int8", "int32")])
@pytest.mark.parametrize("transb", [False, True])
def test_matmul_on_gpu_matches_numpy(dtype, out_dtype, transb):
    if gpu_missing_reason():
        pytest.skip("no GPU: " + gpu_missing_reason())
    require_library(cublas_reason(), "cuBLAS")
    rng = np.random.default_rng(1)
    a = rng.integers(-3, 3, (8, 12)).astype(dtype)
    b = rng.integers(-3, 3, (16, 12) if transb else (12, 16)).astype(dtype)
    dev = tvm.cuda(0)
    c = tvm.runtime.empty((8, 16), out_dtype, dev)
    tvm_ffi.get_global_func("tvm.contrib.cublas.matmul")(
        tvm.runtime.tensor(a, dev), tvm.runtime.tensor(b, dev), c, False, transb)
    ref = a.astype("float64") @ (b.T if transb else b).astype("float64")
    np.testing.assert_allclose(c.numpy(), ref.astype(out_dtype), rtol=1e-3)
