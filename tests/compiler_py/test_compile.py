"""tvm.compile end to end: TE -> PrimFunc -> LLVM IR (libtvm_compiler) -> llvmlite -> .so."""

import os
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tvm
from tvm import te, tir
from tvm.driver import compile as tvm_compile


def _elementwise():
    A = te.placeholder((4, 8), "float32", "A")
    B = te.placeholder((4, 8), "float32", "B")
    C = te.compute((4, 8), lambda i, j: A[i, j] * 2.0 + tir.exp(B[i, j]), name="C")
    return te.create_prim_func([A, B, C], "ew")


@pytest.fixture(scope="module")
def ew():
    return tvm_compile(_elementwise(), target="llvm")


def test_elementwise_numpy_and_tensors(ew):
    a = np.random.rand(4, 8).astype("float32")
    b = np.random.rand(4, 8).astype("float32")
    c = np.zeros((4, 8), "float32")
    ew["ew"](a, b, c)  # numpy arrays through DLPack
    np.testing.assert_allclose(c, a * 2 + np.exp(b), rtol=1e-6)
    ta, tb = tvm.runtime.tensor(a), tvm.runtime.tensor(b)
    tc = tvm.runtime.empty((4, 8), "float32")
    ew.ew(ta, tb, tc)
    np.testing.assert_allclose(tc.numpy(), c, rtol=0)


def test_llvm_ir_text(ew):
    assert "define i32 @__tvm_ffi_ew(ptr %self, ptr %args, i32 %num_args, ptr %result)" in ew.llvm_ir
    assert "fast" not in ew.llvm_ir  # no fast-math unless asked
    assert "@llvm.exp.f32" in ew.llvm_ir


@pytest.mark.parametrize("combiner", ["sum", "max", "min"])
@pytest.mark.parametrize("dtype", ["int32", "int64", "float32", "float64"])
def test_reductions(combiner, dtype):
    n, m = 5, 7
    A = te.placeholder((n, m), dtype, "A")
    k = te.reduce_axis((0, m), "k")
    red = getattr(te, combiner)
    B = te.compute((n,), lambda i: red(A[i, k], axis=k), name="B")
    f = tvm_compile(te.create_prim_func([A, B]))
    a = (np.random.randn(n, m) * 100).astype(dtype)
    b = np.zeros(n, dtype)
    f["main"](a, b)
    ref = getattr(np, combiner)(a, axis=1).astype(dtype)
    np.testing.assert_allclose(b, ref, rtol=1e-5)


@pytest.mark.parametrize("n,workspace", [(8, False), (32, True)])
def test_matmul_with_intermediate(n, workspace):
    A = te.placeholder((n, n), "float32", "A")
    B = te.placeholder((n, n), "float32", "B")
    k = te.reduce_axis((0, n), "k")
    C = te.compute((n, n), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    D = te.compute((n, n), lambda i, j: tir.max(C[i, j], 0.0), name="D")  # C is a temporary
    f = tvm_compile(te.create_prim_func([A, B, D]))
    # <= 1024 bytes: a stack temporary; larger: TVMBackendAllocWorkspace.
    assert ("TVMBackendAllocWorkspace" in f.llvm_ir) == workspace
    a = np.random.randn(n, n).astype("float32")
    b = np.random.randn(n, n).astype("float32")
    d = np.zeros((n, n), "float32")
    f["main"](a, b, d)
    np.testing.assert_allclose(d, np.maximum(a @ b, 0), rtol=1e-4, atol=1e-5)


def _memory_lines(ir, func):
    """The load and store lines of LLVM function `func` in `ir`."""
    body = ir[ir.index("define i32 @%s(" % func):]
    body = body[:body.index("\n}\n")]
    return [l for l in body.splitlines() if " = load " in l or l.lstrip().startswith("store ")]


@settings(max_examples=6, deadline=None)
@given(n=st.integers(1, 40), stages=st.integers(1, 3), seed=st.integers(0, 2**16))
def test_fresh_buffers_get_alias_scopes_and_the_results_stay_exact(n, stages, seed):
    """Temporaries (stack or workspace) are fresh memory no argument can point into: each gets
    an LLVM alias scope, its loads and stores say so, and every access to an argument says
    it touches none of them. Arguments' accesses get no scope of their own (they may alias
    one another). Chains of temporaries of any size compute what numpy does."""
    A = te.placeholder((n, n), "float32", "A")
    out = A
    for s_ in range(stages):
        out = te.compute((n, n), lambda i, j, t=out, s_=s_: t[j, i] * 2.0 + A[i, j] + float(s_), name="T%d" % s_)
    D = te.compute((n, n), lambda i, j: out[i, j] - 1.0, name="D")
    f = tvm_compile(te.create_prim_func([A, D]))
    lines = _memory_lines(f.llvm_ir, "__tvm_ffi_main")
    scoped = [l for l in lines if "!alias.scope" in l]
    # every temporary is touched, each through its own scope; the arguments' accesses are
    # the rest, and each of those excludes every temporary
    assert len({l.split("!alias.scope ")[1].split(",")[0] for l in scoped}) == stages
    args = [l for l in lines if "!alias.scope" not in l and ("float" in l)]
    assert args and all("!noalias" in l for l in args)
    a = np.random.default_rng(seed).standard_normal((n, n)).astype("float32")
    want = a
    for s_ in range(stages):
        want = want.T * 2 + a + s_
    d = np.zeros((n, n), "float32")
    f["main"](a, d)
    np.testing.assert_allclose(d, want - 1, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("elements", [16, 1000])  # a stack temporary / a workspace
@pytest.mark.parametrize("pointer", ["alias", "computed"])
def test_a_pointer_bound_to_fresh_memory_keeps_its_scope_or_drops_them_all(elements, pointer):
    """Hand-written TIR may name a temporary through a second pointer: a LetStmt binding the
    temporary's own pointer shares its scope; a pointer computed from fresh memory in any
    other way (here a select between the temporary and an argument) could point anywhere
    into it, so the function gets no scopes at all. Either way the result is exact."""
    n = elements
    A = tir.decl_buffer((n,), "float32", "A")
    B = tir.decl_buffer((n,), "float32", "B")
    T = tir.decl_buffer((n,), "float32", "T")
    p = tir.Var("p", "handle")
    V = tir.decl_buffer((n,), "float32", "V", data=p)
    i = tir.Var("i", "int32")
    loop = lambda store: tir.For(i, 0, n, tir.ForKind.SERIAL, store)  # noqa: E731
    body = tir.SeqStmt([
        loop(tir.BufferStore(T, A[i] * 2.0, [i])),
        loop(tir.BufferStore(V, V[i] + 1.0, [i])),  # T again, through p
        loop(tir.BufferStore(B, T[i] - 3.0, [i])),
    ])
    flag = tir.Var("flag", "int32")  # 1 at run time: the select picks T
    value = T.data if pointer == "alias" else tir.Select(flag > 0, T.data, A.data)
    body = tir.Allocate(T, tir.LetStmt(p, value, body))
    f = tvm_compile(tir.PrimFunc([A, B, flag], body).with_attr("global_symbol", "main"))
    lines = [l for l in _memory_lines(f.llvm_ir, "__tvm_ffi_main") if "float" in l]
    if pointer == "alias":
        scopes = {l.split("!alias.scope ")[1].split(",")[0] for l in lines if "!alias.scope" in l}
        assert len(scopes) == 1  # T's and V's accesses: one scope
        assert len([l for l in lines if "!alias.scope" in l]) == 4  # T's store and load, V's two
        assert all("!noalias" in l for l in lines if "!alias.scope" not in l)
    else:
        assert not [l for l in lines if "!alias.scope" in l or "!noalias" in l]
    a = np.random.default_rng(n).standard_normal(n).astype("float32")
    b = np.zeros(n, "float32")
    f["main"](a, b, 1)
    np.testing.assert_allclose(b, a * 2 + 1 - 3, rtol=1e-6)


def test_no_alias_scopes_without_temporaries(ew):
    assert "!alias.scope" not in ew.llvm_ir and "!noalias" not in ew.llvm_ir


@settings(max_examples=10, deadline=None)
@given(m=st.integers(1, 9), n=st.integers(1, 5))
def test_intermediate_indexed_in_int64_and_int32(m, n):
    """A temporary of int64 shape (rows padded to 4) written at int64 indices and read at int32
    ones (an extent from a Python int): the lowering unites the two index types when it
    shrinks the temporary to the rows read (before: TypeError, int32 - int64)."""
    i64 = lambda v: tir.const(v, "int64")  # noqa: E731
    A = te.placeholder((i64(m), i64(n)), "float32", "A")
    C = te.compute((i64((m + 3) // 4 * 4), i64(n)), lambda q, o: A[tir.min(q, i64(m - 1)), o] * 2.0, name="C")
    D = te.compute((m, n), lambda i, j: C[i, j] + 1.0, name="D")
    f = tvm_compile(te.create_prim_func([A, D]))
    a = np.random.default_rng(m * 10 + n).standard_normal((m, n)).astype("float32")
    d = np.zeros((m, n), "float32")
    f["main"](a, d)
    np.testing.assert_allclose(d, a * 2 + 1, rtol=1e-6)


def test_symbolic_shape_and_scalar_param():
    n = tir.Var("n", "int32")
    alpha = tir.Var("alpha", "float32")
    A = tir.decl_buffer((n,), "float32", "A")
    B = tir.decl_buffer((n,), "float32", "B")
    i = tir.Var("i", "int32")
    body = tir.For(i, 0, n, tir.ForKind.SERIAL, tir.BufferStore(B, A[i] * alpha, [i]))
    f = tir.PrimFunc([A, B, alpha], body).with_attr("global_symbol", "scale")
    mod = tvm_compile(f)
    for size in (1, 7, 33):
        a = np.random.rand(size).astype("float32")
        b = np.zeros(size, "float32")
        mod["scale"](a, b, 3.0)
        np.testing.assert_allclose(b, a * 3, rtol=1e-6)
        mod["scale"](a, b, 2)  # an int is accepted for a float parameter
        np.testing.assert_allclose(b, a * 2, rtol=1e-6)
    with pytest.raises(ValueError, match=r"argument 1 \(B\): shape\[0\] does not match"):
        mod["scale"](np.zeros(4, "float32"), np.zeros(5, "float32"), 1.0)
    with pytest.raises(TypeError, match=r"argument 2 \(alpha\) expects a float"):
        mod["scale"](np.zeros(4, "float32"), np.zeros(4, "float32"), "x")


def test_argument_errors_name_the_argument(ew):
    a = np.zeros((4, 8), "float32")
    fn = ew["ew"]
    with pytest.raises(TypeError, match="ew: expected 3 arguments"):
        fn(a, a)
    with pytest.raises(ValueError, match=r"argument 2 \(C\): shape\[1\] is expected to be 8"):
        fn(a, a, np.zeros((4, 7), "float32"))
    with pytest.raises(ValueError, match=r"argument 1 \(B\): ndim is expected to be 2"):
        fn(a, np.zeros(32, "float32"), a)
    with pytest.raises(TypeError, match=r"argument 0 \(A\): dtype is expected to be float32"):
        fn(np.zeros((4, 8), "float64"), a, a)
    with pytest.raises(TypeError, match=r"argument 1 \(B\) expects a Tensor"):
        fn(a, 3, a)
    with pytest.raises(ValueError, match=r"argument 0 \(A\): strides are expected to be compact"):
        fn(np.zeros((8, 8), "float32")[::2], a, a)


@settings(max_examples=25, deadline=None)
@given(shape=st.lists(st.integers(1, 5), min_size=1, max_size=4), data=st.data())
def test_tensor_checker_accepts_the_declared_shape_and_names_the_first_wrong_dim(shape, data):
    """Every tensor argument passes one checker (codegen's __tvm_check_tensor_arg): the
    declared shape runs, unit-extent axes may carry any stride, and a wrong extent is a
    ValueError naming its axis and the expected value."""
    A = te.placeholder(shape, "float32", "A")
    B = te.compute(shape, lambda *i: A[i] + 1.0, name="B")
    f = te.create_prim_func([A, B]).with_attr("global_symbol", "inc")
    fn = tvm_compile(f)["inc"]
    a = np.random.rand(*shape).astype("float32")
    b = np.zeros(shape, "float32")
    fn(a, b)
    np.testing.assert_allclose(b, a + 1, rtol=1e-6)
    axis = data.draw(st.integers(0, len(shape) - 1))
    wrong = list(shape)
    wrong[axis] += data.draw(st.integers(1, 3))
    with pytest.raises(ValueError, match=r"argument 1 \(B\): shape\[%d\] is expected to be %d" % (axis, shape[axis])):
        fn(a, np.zeros(wrong, "float32"))
    with pytest.raises(ValueError, match=r"argument 0 \(A\): ndim is expected to be %d" % len(shape)):
        fn(a.reshape(shape + [1]), b)


def test_jit_matches_library():
    f = _elementwise()
    jit = tvm_compile(f, jit=True)
    a = np.random.rand(4, 8).astype("float32")
    b = np.random.rand(4, 8).astype("float32")
    c = np.zeros((4, 8), "float32")
    jit["ew"](a, b, c)
    np.testing.assert_allclose(c, a * 2 + np.exp(b), rtol=1e-6)
    with pytest.raises(ValueError, match=r"argument 2 \(C\)"):
        jit["ew"](a, b, np.zeros((4, 7), "float32"))


def test_jit_function_outlives_its_executable():
    import gc

    fn = tvm_compile(_elementwise(), jit=True)["ew"]  # the Executable is garbage at once
    gc.collect()
    a = np.random.rand(4, 8).astype("float32")
    c = np.zeros((4, 8), "float32")
    fn(a, a, c)
    np.testing.assert_allclose(c, a * 2 + np.exp(a), rtol=1e-6)
    del fn
    gc.collect()


def test_export_library_loads_runtime_only(ew, tmp_path):
    path = str(tmp_path / "ew.so")
    ew.export_library(path)
    m = tvm.runtime.load_module(path)
    a = np.ones((4, 8), "float32")
    c = np.zeros((4, 8), "float32")
    m["ew"](a, a, c)
    np.testing.assert_allclose(c, 2 + np.exp(a), rtol=1e-6)
    # In a process that never loads libtvm_compiler.
    code = (
        "import numpy as np, tvm\n"
        "assert tvm.base.RUNTIME_ONLY\n"
        "m = tvm.runtime.load_module(%r)\n"
        "a = np.ones((4, 8), 'float32'); c = np.zeros((4, 8), 'float32')\n"
        "m['ew'](a, a, c)\n"
        "assert np.allclose(c, 2 + np.exp(a))\n"
        "print('ok')\n" % path)
    env = dict(os.environ, TVM_USE_RUNTIME_LIB="1", PYTHONPATH=os.pathsep.join(sys.path))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


def test_target_parsing():
    from tvm.target import Target

    t = Target("llvm -mtriple=x86_64-linux-gnu -mcpu=skylake")
    assert t.kind == "llvm" and t.mtriple == "x86_64-linux-gnu" and t.mcpu == "skylake"
    assert str(t) == "llvm -mtriple=x86_64-linux-gnu -mcpu=skylake"
    assert Target(str(t)).mcpu == "skylake"
    with pytest.raises(ValueError):
        Target("llvm mcpu")
    with pytest.raises(ValueError, match="not supported"):
        Target("opencl")


def test_parallel_loop_uses_backend_parallel_launch():
    n = tir.Var("n", "int32")
    A = tir.decl_buffer((n, 64), "float32", "A")
    B = tir.decl_buffer((n, 64), "float32", "B")
    i, j = tir.Var("i", "int32"), tir.Var("j", "int32")
    s = tir.Var("s", "float32")
    inner = tir.For(j, 0, 64, tir.ForKind.SERIAL,
                    tir.BufferStore(B, A[i, j] * s + tir.Cast("float32", i), [i, j]))
    f = tir.PrimFunc([A, B, s], tir.For(i, 0, n, tir.ForKind.PARALLEL, inner))
    mod = tvm_compile(f.with_attr("global_symbol", "par"))
    assert "@TVMBackendParallelLaunch" in mod.llvm_ir
    assert "__tvm_parallel_lambda_par_0" in mod.llvm_ir
    # all its stores are in the lambda: the packed function is glue, compiled without
    # optimisation (attribute group #1, optnone); the lambda with -O3 (#0)
    assert "define i32 @__tvm_ffi_par(ptr %self, ptr %args, i32 %num_args, ptr %result) #1 {" in mod.llvm_ir
    assert "attributes #1 = { noinline nounwind optnone }" in mod.llvm_ir
    assert "@__tvm_parallel_lambda_par_0(i32 %task_id, ptr %penv, ptr %cdata) #0 {" in mod.llvm_ir
    for rows in (1, 3, 100, 1000):
        a = np.random.rand(rows, 64).astype("float32")
        b = np.zeros_like(a)
        mod["par"](a, b, 2.0)
        np.testing.assert_allclose(b, a * 2 + np.arange(rows, dtype="float32")[:, None], rtol=1e-6)
    with pytest.raises(TypeError, match=r"argument 0 \(A\): dtype is expected to be float32"):
        mod["par"](np.zeros((3, 64), "float64"), np.zeros((3, 64), "float32"), 2.0)
    with pytest.raises(ValueError, match=r"argument 1 \(B\): shape\[1\] is expected to be 64"):
        mod["par"](np.zeros((3, 64), "float32"), np.zeros((3, 63), "float32"), 2.0)


def test_parallel_body_reusing_an_earlier_loops_var_does_not_capture_it():
    """if n <= 2: a serial loop over j, else: a parallel loop whose body loops over the same
    Var j (a kernel's two variants scheduled from one function share their loop vars): j is
    the body's own, not a value to pass in the closure (the serial loop's j, in the other
    branch, does not dominate the launch: LLVM rejected the module)."""
    n = tir.Var("n", "int32")
    A = tir.decl_buffer((n, 8), "float32", "A")
    B = tir.decl_buffer((n, 8), "float32", "B")
    i, j = tir.Var("i", "int32"), tir.Var("j", "int32")
    few = tir.For(i, 0, n, tir.ForKind.SERIAL,
                  tir.For(j, 0, 8, tir.ForKind.SERIAL, tir.BufferStore(B, A[i, j] + 1.0, [i, j])))
    inner = tir.For(j, 0, 8, tir.ForKind.SERIAL, tir.BufferStore(B, A[i, j] * 2.0, [i, j]))
    body = tir.IfThenElse(n <= 2, few, tir.For(i, 0, n, tir.ForKind.PARALLEL, inner))
    mod = tvm_compile(tir.PrimFunc([A, B], body).with_attr("global_symbol", "reuse"))
    # it stores outside the lambda (the serial branch): optimised as a whole (#0)
    assert "define i32 @__tvm_ffi_reuse(ptr %self, ptr %args, i32 %num_args, ptr %result) #0 {" in mod.llvm_ir
    for rows in (1, 2, 3, 50):
        a = np.random.rand(rows, 8).astype("float32")
        b = np.zeros_like(a)
        mod["reuse"](a, b)
        np.testing.assert_allclose(b, a + 1 if rows <= 2 else a * 2, rtol=1e-6)


@settings(max_examples=25, deadline=None)
@given(rows=st.integers(0, 300), threads=st.integers(1, 5), start=st.integers(-3, 3))
def test_parallel_chunks_cover_every_iteration_once(rows, threads, start):
    """The tasks of a parallel loop claim chunks from a shared counter: with any thread count
    and extent (0 and fewer rows than chunks included) each iteration runs exactly once."""
    import tvm_ffi

    n = tir.Var("n", "int32")
    B = tir.decl_buffer((n,), "float32", "B")  # n = rows + 3: iterations [start, rows) write B[i + 3]
    i = tir.Var("i", "int32")
    body = tir.BufferStore(B, B[i + 3] + tir.Cast("float32", i + 1), [i + 3])
    f = tir.PrimFunc([B], tir.For(i, start, n - 3 - start, tir.ForKind.PARALLEL, body))
    mod = tvm_compile(f.with_attr("global_symbol", "count"))
    set_threads = tvm_ffi.get_global_func("runtime.SetNumThreads")
    before = tvm_ffi.get_global_func("runtime.GetNumThreads")()
    set_threads(threads)
    try:
        b = np.zeros(rows + 3, "float32")
        mod["count"](b)
    finally:
        set_threads(before)
    want = np.zeros(rows + 3, "float32")
    for k in range(start, rows):
        want[k + 3] += k + 1
    np.testing.assert_array_equal(b, want)


def _tensor_claiming_device(arr, device_type):
    """A tvm_ffi Tensor over `arr`'s memory whose DLTensor says `device_type` (never read)."""
    import ctypes

    import tvm_ffi

    capsule = arr.__dlpack__()
    get = ctypes.pythonapi.PyCapsule_GetPointer
    get.restype = ctypes.c_void_p
    get.argtypes = [ctypes.py_object, ctypes.c_char_p]
    managed = get(capsule, b"dltensor")
    ctypes.c_int32.from_address(managed + 8).value = device_type  # DLTensor.device.device_type
    return tvm_ffi.from_dlpack(capsule)


def test_wrong_device_is_a_value_error_naming_the_argument(ew):
    a = np.zeros((4, 8), "float32")
    keep = np.zeros((4, 8), "float32")
    fake_cuda = _tensor_claiming_device(keep, 2)
    with pytest.raises(ValueError, match=r"argument 1 \(B\): device_type is expected to be cpu"):
        ew["ew"](a, fake_cuda, a)


def test_cross_compile_object_for_aarch64():
    # Never skipped: the driver initialises every llvmlite target, so a missing AArch64
    # backend is a failure ("No available targets are compatible with triple").
    lib = tvm_compile(_elementwise(), target="llvm -mtriple=aarch64-unknown-linux-gnu -mcpu=cortex-a72")
    assert not lib.is_host
    obj = lib.object
    assert obj[:4] == b"\x7fELF"
    assert int.from_bytes(obj[18:20], "little") == 183  # e_machine: EM_AARCH64
    with pytest.raises(RuntimeError, match="cannot run on this host"):
        lib["ew"]


def test_cross_compile_object_for_riscv64():
    lib = tvm_compile(_elementwise(), target="llvm -mtriple=riscv64-unknown-linux-gnu")
    assert not lib.is_host
    assert int.from_bytes(lib.object[18:20], "little") == 243  # e_machine: EM_RISCV


def _axpy(n=64):
    x = te.placeholder((n,), "float32", "x")
    y = te.placeholder((n,), "float32", "y")
    z = te.compute((n,), lambda i: x[i] * 3.0 + y[i], name="z")
    return te.create_prim_func([x, y, z], "axpy")


def test_contraction_into_fma_is_on_by_default_and_can_be_turned_off(tmp_path):
    """As apache-tvm's LLVM targets: a*b+c may become one FMA unless the target says
    -fast-math-contract=false (then every operation is rounded on its own, strict IEEE)."""
    fused = tvm_compile(_axpy(), target="llvm")
    assert "fmul contract float" in fused.llvm_ir and "fadd contract float" in fused.llvm_ir
    assert "fast" not in fused.llvm_ir and "reassoc" not in fused.llvm_ir  # nothing else relaxed
    plain = tvm_compile(_axpy(), target="llvm -fast-math-contract=false")
    assert " contract " not in plain.llvm_ir and "fmul float" in plain.llvm_ir
    assert tvm.target.Target("llvm -fast-math-contract").fast_math_flags == "contract"
    assert tvm.target.Target("llvm -fast-math-nnan").fast_math_flags == "contract,nnan"
    assert tvm.target.Target("llvm -fast-math-nnan -fast-math-contract=0").fast_math_flags == "nnan"
    x, y = np.random.rand(64).astype("float32"), np.random.rand(64).astype("float32")
    for lib in (plain, fused):
        z = np.zeros(64, "float32")
        lib["axpy"](x, y, z)
        np.testing.assert_allclose(z, x * 3 + y, rtol=1e-6)
    from llvmlite import binding as llvm

    if "+fma" in llvm.get_host_cpu_features().flatten():  # the machine code really fuses
        def disasm(lib):
            obj = tmp_path / "k.o"
            obj.write_bytes(lib.object)
            return subprocess.run(["objdump", "-d", str(obj)], capture_output=True, text=True,
                                  check=True).stdout
        assert "vfmadd" in disasm(fused) and "vfmadd" not in disasm(plain)
    everything = tvm_compile(_axpy(), target="llvm -fast-math")
    assert "fmul fast float" in everything.llvm_ir


@pytest.mark.parametrize("target,match", [("llvm -fast-math-bogus", "not an LLVM fast-math flag"),
                                          ("llvm -fast-math-contract=maybe", "expected a boolean")])
def test_bad_fast_math_options_are_clear_errors(target, match):
    with pytest.raises(ValueError, match=match):
        tvm_compile(_axpy(), target=target)


@settings(max_examples=8, deadline=None)
@given(rows=st.integers(1, 9), cols=st.integers(2, 12), seed=st.integers(0, 2**16))
def test_scalar_math_loops_are_not_left_to_llvms_vectorizer(rows, cols, seed):
    """A row-wise sum of exp over a few columns, left scalar by the schedule: LLVM is told not
    to vectorize its loops (it would scalarize exp per lane around gathers: a 10-column softmax
    grew tenfold), and the values stay numpy's."""
    A = te.placeholder((rows, cols), "float32", "A")
    k = te.reduce_axis((0, cols), "k")
    S = te.compute((rows,), lambda i: te.sum(tir.exp(A[i, k]), axis=k), name="S")
    f = tvm_compile(te.create_prim_func([A, S]))
    assert '!{!"llvm.loop.vectorize.enable", i1 false}' in f.llvm_ir
    a = np.random.default_rng(seed).standard_normal((rows, cols)).astype("float32")
    s = np.zeros(rows, "float32")
    f["main"](a, s)
    np.testing.assert_allclose(s, np.exp(a).sum(axis=1), rtol=1e-5)


def test_parallel_rows_of_vector_code_are_not_unrolled_by_llvm():
    """A parallel row loop whose body TIR vectorized: its chunk loop carries
    llvm.loop.unroll.disable (LLVM unrolled a layer norm's rows four times for nothing)."""
    A = te.placeholder((64, 32), "float32", "A")
    B = te.compute((64, 32), lambda i, j: A[i, j] * 2.0, name="B")
    sch = tir.Schedule(te.create_prim_func([A, B]))
    i, j = sch.get_loops(sch.get_block("B"))
    sch.parallel(i)
    sch.vectorize(j)
    f = tvm_compile(sch.mod["main"])
    lambda_ir = f.llvm_ir[f.llvm_ir.index("define internal i32 @__tvm_parallel_lambda"):]
    lambda_ir = lambda_ir[:lambda_ir.index("\n}\n")]
    assert "!llvm.loop" in lambda_ir
    assert '!{!"llvm.loop.unroll.disable"}' in f.llvm_ir
    a = np.random.rand(64, 32).astype("float32")
    b = np.zeros((64, 32), "float32")
    f["main"](a, b)
    np.testing.assert_allclose(b, a * 2, rtol=0)
