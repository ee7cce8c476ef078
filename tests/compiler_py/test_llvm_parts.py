"""A large host module is compiled in parts at once (llvm_backend: the parts in threads,
each with an LLVM context of its own; objects joined by a relocatable link): the result computes what the whole-module
compile does, exports, JIT-compiles and prints its IR and assembly. The threshold is lowered
here so a small module splits; generated programs decide how many functions it holds.
relax.build starts the kernels' parts early, beside its last Relax passes
(relax/backend/early_kernels.py): the same executable, checked here too."""

import os

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tvm
from tvm import relax
from tvm.relax import op as R
from tvm.target import llvm_backend


def _program(widths, seed, batch=3):
    """A chain of matmul + bias + activation layers (one kernel each after fusion)."""
    rng = np.random.default_rng(seed)
    x = relax.Var("x", relax.TensorStructInfo([batch, widths[0]], "float32"))
    acts = [R.nn.relu, R.tanh, R.sigmoid, R.nn.gelu]
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        with bb.dataflow():
            h = x
            for i, (a, b) in enumerate(zip(widths, widths[1:])):
                w = (rng.standard_normal((a, b)) / np.sqrt(a)).astype("float32")
                h = bb.emit(acts[i % len(acts)](R.add(R.matmul(h, relax.const(w)),
                                                      relax.const(np.full(b, 0.1, "float32")))))
            out = bb.emit_output(h)
        bb.emit_func_output(out)
    return bb.get()


def _build(mod, monkeypatch, parallel):
    """(executable, the kernels' LLVMBuild): tvm.compile with the parts threshold at 0, or
    in one piece (no parts, no early start)."""
    monkeypatch.setattr(llvm_backend, "_PARALLEL_MIN_IR", 0 if parallel else 1 << 60)
    if not parallel:
        monkeypatch.setenv("TVM_LLVM_PARALLEL", "0")
    ex = tvm.compile(mod, target="llvm")
    monkeypatch.undo()
    return ex, ex.kernels.host_build


@settings(max_examples=3, deadline=None)
@given(widths=st.lists(st.sampled_from([8, 16, 24, 40]), min_size=3, max_size=6), seed=st.integers(0, 2**16))
def test_parts_compute_what_the_whole_does(widths, seed):
    with pytest.MonkeyPatch.context() as mp:
        mod = _program(widths, seed)
        whole, wb = _build(mod, mp, parallel=False)
        parted, pb = _build(mod, mp, parallel=True)
    assert wb._part_irs is None and len(pb._part_irs) >= 2
    x = tvm.runtime.tensor(np.random.default_rng(seed).standard_normal((3, widths[0])).astype("float32"))
    want = relax.VirtualMachine(whole, tvm.cpu())["main"](x).numpy()
    got = relax.VirtualMachine(parted, tvm.cpu())["main"](x).numpy()
    np.testing.assert_array_equal(got, want)
    # Every function's code is in the parts; the joined object defines each one.
    for name in pb.func_names:
        assert "@__tvm_ffi_%s(" % name in pb.optimized_ir
    assert "__tvm_ffi_%s" % pb.func_names[0] in pb.emit_assembly()
    # The runtime module keeps the parts' IR joined; its assembly (inspect_source "s" or
    # "asm", as TVM's LLVM module takes both) links them back into one module first.
    for fmt in ("s", "asm"):
        asm = parted.inspect_source(fmt)
        for name in pb.func_names:
            assert "__tvm_ffi_%s:" % name in asm, (fmt, name)


def test_parts_export_and_reload(tmp_path, monkeypatch):
    mod = _program([16, 24, 8, 16], 0)
    ex, art = _build(mod, monkeypatch, parallel=True)
    assert len(art._part_irs) >= 2
    path = str(tmp_path / "model.so")
    ex.export_library(path)
    loaded = tvm.runtime.load_module(path)
    x = tvm.runtime.tensor(np.ones((3, 16), "float32"))
    want = relax.VirtualMachine(ex, tvm.cpu())["main"](x).numpy()
    got = relax.VirtualMachine(loaded, tvm.cpu())["main"](x).numpy()
    np.testing.assert_array_equal(got, want)


def test_parts_jit(monkeypatch):
    """tvm.compile(..., jit=True) on a TIR module compiled in parts: MCJIT runs the linked
    parts."""
    from tvm import te

    n = 64
    a = te.placeholder((n,), "float32", "a")
    funcs = {}
    for i, scale in enumerate((2.0, 3.0, 5.0)):
        b = te.compute((n,), lambda j, s=scale: a[j] * s, name="b%d" % i)
        funcs["scale%d" % i] = te.create_prim_func([a, b]).with_attr("global_symbol", "scale%d" % i)
    monkeypatch.setattr(llvm_backend, "_PARALLEL_MIN_IR", 0)
    lib = tvm.compile(tvm.IRModule(funcs), target="llvm", jit=True)
    x = np.arange(n, dtype="float32")
    for i, scale in enumerate((2.0, 3.0, 5.0)):
        out = np.zeros(n, "float32")
        lib["scale%d" % i](x, out)
        np.testing.assert_array_equal(out, x * scale)


@settings(max_examples=3, deadline=None)
@given(n_funcs=st.integers(2, 5), bad=st.data())
def test_parts_share_one_tensor_checker_and_its_errors(n_funcs, bad, tmp_path_factory):
    """A module compiled in parts defines the tensor-argument checker in its first part only
    (weak_odr hidden; the others declare it): every function, whichever part it is in, still
    raises the argument errors, compiled and exported."""
    from tvm import te

    n = 16
    a = te.placeholder((n,), "float32", "A")
    funcs = {}
    for i in range(n_funcs):
        b = te.compute((n,), lambda j, s=float(i + 2): a[j] * s, name="B")
        funcs["scale%d" % i] = te.create_prim_func([a, b]).with_attr("global_symbol", "scale%d" % i)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(llvm_backend, "_PARALLEL_MIN_IR", 0)
        lib = tvm.compile(tvm.IRModule(funcs), target="llvm")
    parts = lib.host_build._part_irs
    assert len(parts) >= 2
    checker = "@__tvm_check_tensor_arg("
    assert ["define weak_odr hidden ptr " + checker in p for p in parts] == [True] + [False] * (len(parts) - 1)
    assert all("declare hidden ptr " + checker in p for p in parts[1:])
    path = str(tmp_path_factory.mktemp("parts") / "lib.so")
    lib.export_library(path)
    loaded = tvm.runtime.load_module(path)
    i = bad.draw(st.integers(0, n_funcs - 1))
    for m in (lib, loaded):
        fn = m["scale%d" % i]
        out = np.zeros(n, "float32")
        fn(np.arange(n, dtype="float32"), out)
        np.testing.assert_array_equal(out, np.arange(n, dtype="float32") * (i + 2))
        with pytest.raises(TypeError, match=r"argument 0 \(A\): dtype is expected to be float32"):
            fn(np.zeros(n, "float64"), out)
        with pytest.raises(ValueError, match=r"argument 1 \(B\): shape\[0\] is expected to be %d" % n):
            fn(np.zeros(n, "float32"), np.zeros(n + 1, "float32"))


def test_relax_build_compiles_the_early_parts_in_threads(monkeypatch):
    """relax.build starts the kernels' parts after scheduling, each in a thread with an LLVM
    context of its own (llvm_compile.compile_isolated), and compiles VMShapeLower's function
    in the caller's thread meanwhile (a symbolic batch: the sizes of its tensors are computed
    at run time): three modules, one tensor checker (in the first early part; the others
    declare it), the same results as the build in one piece."""
    import threading

    from tvm.relax import vm_build
    from tvm.target import llvm_compile

    monkeypatch.delenv("TVM_LLVM_PARALLEL", raising=False)
    monkeypatch.setattr(llvm_backend, "_cores", lambda: 2)
    threads = []
    orig = llvm_compile.compile_isolated

    def compile_isolated(ir, settings):
        threads.append(threading.current_thread())
        return orig(ir, settings)

    monkeypatch.setattr(llvm_compile, "compile_isolated", compile_isolated)
    mod = _program([16, 24, 8, 16], 1, batch=tvm.tir.Var("n", "int64"))
    assert vm_build._bindings(mod) >= vm_build._EARLY_MIN_BINDINGS
    ex, art = _build(mod, monkeypatch, parallel=True)
    assert "__vm_shape_func_main_0" in art.func_names and len(art._part_irs) == 3
    assert [p.count("define weak_odr hidden ptr @__tvm_check_tensor_arg(") for p in art._part_irs] == [1, 0, 0]
    # the two early parts each in a thread of its own, not the caller's
    assert len(threads) >= 2 and threading.main_thread() not in threads[:2]
    assert threads[0] is not threads[1]
    x = tvm.runtime.tensor(np.ones((3, 16), "float32"))
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(llvm_backend, "_PARALLEL_MIN_IR", 1 << 60)  # one piece (in one thread)
        whole = tvm.compile(mod, target="llvm")
    np.testing.assert_array_equal(relax.VirtualMachine(ex, tvm.cpu())["main"](x).numpy(),
                                  relax.VirtualMachine(whole, tvm.cpu())["main"](x).numpy())


def _finishes(monkeypatch):
    """The results of EarlyKernels.finish in the builds that follow (None: not used)."""
    from tvm.relax.backend import early_kernels

    seen = []
    orig = early_kernels.EarlyKernels.finish

    def finish(self, funcs):
        seen.append(orig(self, funcs))
        return seen[-1]

    monkeypatch.setattr(early_kernels.EarlyKernels, "finish", finish)
    return seen


@settings(max_examples=3, deadline=None)
@given(widths=st.lists(st.sampled_from([8, 16, 24, 40]), min_size=4, max_size=6), seed=st.integers(0, 2**16))
def test_relax_build_with_kernels_started_early_computes_what_the_usual_build_does(widths, seed):
    """relax.build starts the kernels' LLVM work after DefaultSchedule (StartKernelBuild) and
    joins it at the end: the same results as the build without it (TVM_LLVM_PARALLEL=0),
    exported and reloaded too."""
    mod = _program(widths, seed)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(llvm_backend, "_cores", lambda: 2)
        mp.delenv("TVM_LLVM_PARALLEL", raising=False)
        seen = _finishes(mp)
        early = tvm.compile(mod, target="llvm")
        assert len(seen) == 1 and seen[0] is not None  # the early objects were used
        mp.setenv("TVM_LLVM_PARALLEL", "0")
        usual = tvm.compile(mod, target="llvm")
        assert len(seen) == 1  # off: no early build
    x = tvm.runtime.tensor(np.random.default_rng(seed).standard_normal((3, widths[0])).astype("float32"))
    want = relax.VirtualMachine(usual, tvm.cpu())["main"](x).numpy()
    np.testing.assert_array_equal(relax.VirtualMachine(early, tvm.cpu())["main"](x).numpy(), want)
    assert sorted(early.kernels.host_build.func_names) == sorted(usual.kernels.host_build.func_names)


def test_a_kernel_changed_after_the_early_start_is_built_as_it_ends(tmp_path):
    """A pass after the default pipeline rewrites the matmul kernels (a new attribute: new
    PrimFuncs): the early objects are dropped and the kernels built as the pipeline left them;
    the executable computes, exports and reloads as the usual build's."""
    from tvm import tir
    from tvm.ir.transform import ModulePass, PassInfo, Sequential

    def rewrite(mod, ctx):
        funcs = {}
        for name, f in mod.functions.items():
            if isinstance(f, tir.PrimFunc) and "matmul" in str(name):
                f = f.with_attr("rewritten", 1)
            funcs[str(name)] = f
        return tvm.IRModule(funcs)

    mod = _program([16, 24, 8, 16], 2)
    pipeline = Sequential([relax.get_pipeline("default"), ModulePass(rewrite, PassInfo(0, "test.Rewrite"))])
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(llvm_backend, "_cores", lambda: 2)
        mp.delenv("TVM_LLVM_PARALLEL", raising=False)
        seen = _finishes(mp)
        ex = relax.build(mod, "llvm", relax_pipeline=pipeline)
        assert seen == [None]  # started, then dropped: a kernel changed after the start
        plain = relax.build(mod, "llvm")
        assert len(seen) == 2 and seen[1] is not None
    x = tvm.runtime.tensor(np.ones((3, 16), "float32"))
    np.testing.assert_array_equal(relax.VirtualMachine(ex, tvm.cpu())["main"](x).numpy(),
                                  relax.VirtualMachine(plain, tvm.cpu())["main"](x).numpy())
    path = str(tmp_path / "m.so")
    ex.export_library(path)
    loaded = relax.VirtualMachine(tvm.runtime.load_module(path), tvm.cpu())["main"](x).numpy()
    np.testing.assert_array_equal(loaded, relax.VirtualMachine(plain, tvm.cpu())["main"](x).numpy())


def test_the_loaded_library_is_linked_by_ld_else_by_the_c_compiler(monkeypatch):
    """LLVMBuild.load links its temporary library with the system `ld` directly (a third of
    the gcc driver's time); a missing or failing ld falls back to the C compiler's link, and a
    user's $CC is always used as it is. Each way the kernels compute the same."""
    import shutil
    import subprocess

    mod = _program([16, 24, 8], 3)
    x = tvm.runtime.tensor(np.ones((3, 16), "float32"))
    calls = []
    real_run = subprocess.run

    def run(cmd, *args, **kwargs):
        calls.append(os.path.basename(str(cmd[0])))
        return real_run(cmd, *args, **kwargs)

    monkeypatch.setattr(llvm_backend.subprocess, "run", run)
    monkeypatch.delenv("CC", raising=False)
    monkeypatch.setenv("TVM_LLVM_PARALLEL", "0")
    want = relax.VirtualMachine(tvm.compile(mod, target="llvm"), tvm.cpu())["main"](x).numpy()
    assert calls == (["ld"] if shutil.which("ld") else [])
    calls.clear()
    monkeypatch.setattr(llvm_backend, "_system_ld", lambda: "/nonexistent/ld")
    got = relax.VirtualMachine(tvm.compile(mod, target="llvm"), tvm.cpu())["main"](x).numpy()
    assert calls[0] == "ld" and len(calls) == 2  # ld tried (OSError), then the C compiler's link
    np.testing.assert_array_equal(got, want)
    monkeypatch.undo()
    monkeypatch.setenv("CC", shutil.which("cc") or "gcc")
    monkeypatch.setenv("TVM_LLVM_PARALLEL", "0")
    assert llvm_backend._system_ld() is None
    monkeypatch.setattr(llvm_backend.subprocess, "run", run)
    calls.clear()
    got = relax.VirtualMachine(tvm.compile(mod, target="llvm"), tvm.cpu())["main"](x).numpy()
    assert "ld" not in calls and len(calls) == 1  # the user's compiler only
    np.testing.assert_array_equal(got, want)
