"""llvm_compile.compile_isolated: a module of LLVM IR compiled in an LLVM context and target
machine of its own, its long calls made around llvmlite's process-wide lock, so several
threads compile at once (what llvm_backend's parts and relax.build's early kernels do).
Threads compiling generated kernels at the same time, beside this thread's llvmlite calls
in the global context, make the objects and optimised IR a one-at-a-time compile makes,
byte for byte; bad IR is a RuntimeError in the thread that compiled it."""

import threading

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tvm
from tvm import te
from tvm.target import Target, llvm_backend, llvm_compile


def _poly_func(n, coeffs, name="k"):
    """b[i] = poly(a[i]) over n points (Horner, coefficients highest first)."""
    a = te.placeholder((n,), "float32", name="a")

    def poly(i):
        acc = tvm.tir.const(coeffs[0], "float32")
        for c in coeffs[1:]:
            acc = acc * a[i] + tvm.tir.const(c, "float32")
        return acc

    return te.create_prim_func([a, te.compute((n,), poly, name="b")]).with_attr("global_symbol", name)


def _kernel_ir(n, coeffs, name):
    """LLVM IR (before optimisation) of _poly_func, lowered to the packed API."""
    from tvm.tir.build import lower

    host, _ = lower(tvm.IRModule({name: _poly_func(n, coeffs, name)}), Target("llvm"), None)
    return llvm_backend.lower_to_llvm_ir(host)


def _settings():
    tm = llvm_backend.target_machine(Target("llvm"))
    return tm.tvm_settings


def test_the_long_calls_bypass_llvmlites_lock():
    # llvmlite 0.50 (pinned) wraps each C function in a locking object holding it as `_cfn`;
    # compile_isolated calls the functions themselves (a version without it would take turns)
    from llvmlite.binding import ffi

    for name in ("LLVMPY_ParseAssembly", "LLVMPY_RunNewModulePassManager",
                 "LLVMPY_TargetMachineEmitToMemory", "LLVMPY_PrintModuleToString"):
        raw = llvm_compile._unlocked(name)
        assert raw is getattr(ffi.lib, name)._cfn


@settings(max_examples=5, deadline=None)
@given(kernels=st.lists(st.tuples(st.integers(1, 300), st.lists(st.floats(-2, 2, width=32), min_size=1, max_size=5)),
                        min_size=2, max_size=5),
       seed=st.integers(0, 2**16))
def test_threads_compile_at_once_what_one_at_a_time_makes(kernels, seed):
    llvm_backend.llvm()
    settings_ = _settings()
    irs = [_kernel_ir(n, cs, "k%d" % i) for i, (n, cs) in enumerate(kernels)]
    serial = [llvm_compile.compile_isolated(ir, settings_) for ir in irs]
    results = [None] * len(irs)
    start = threading.Barrier(len(irs) + 1)

    def compile_one(i):
        start.wait()
        results[i] = llvm_compile.compile_isolated(irs[i], settings_)

    threads = [threading.Thread(target=compile_one, args=(i,)) for i in range(len(irs))]
    for t in threads:
        t.start()
    start.wait()
    # meanwhile this thread uses llvmlite's global context (under its lock) as other code does
    triple = settings_[0]
    tm = llvm_compile.target_machine(*settings_)
    here = llvm_backend.compile_here(irs[0], triple, tm)
    for t in threads:
        t.join()
    assert results == serial
    assert here[0] == serial[0][0] and here[1] == serial[0][1]
    # and the objects run: each kernel loaded from its own object computes its polynomial
    n, coeffs = kernels[seed % len(kernels)]
    x = np.random.default_rng(seed).uniform(-1, 1, n).astype("float32")
    want = np.full(n, coeffs[0], "float32")
    for c in coeffs[1:]:
        want = want * x + np.float32(c)
    lib = tvm.compile(tvm.IRModule({"k": _poly_func(n, coeffs)}), target="llvm")
    out = tvm.runtime.tensor(np.zeros(n, "float32"))
    lib["k"](tvm.runtime.tensor(x), out)
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-5, atol=1e-5)


def test_bad_ir_is_a_runtime_error_naming_the_problem():
    settings_ = _settings()
    with pytest.raises(RuntimeError, match="parsing error"):
        llvm_compile.compile_isolated("this is not IR", settings_)
    with pytest.raises(RuntimeError, match="function result type"):
        llvm_compile.compile_isolated("define void @f() {\n  ret i32 0\n}\n", settings_)
    # parses, but fails verification (a use before its definition in one block)
    bad = "define i32 @f(i32 %x) {\n  %b = add i32 %a, 1\n  %a = add i32 %x, 1\n  ret i32 %b\n}\n"
    with pytest.raises(RuntimeError, match="dominate"):
        llvm_compile.compile_isolated(bad, settings_)
    # a good module after the failures compiles (no context or lock left behind)
    obj, text = llvm_compile.compile_isolated("define i32 @f(i32 %x) {\n  %y = add i32 %x, 1\n  ret i32 %y\n}\n", settings_)
    assert obj and "define" in text


def test_a_failing_part_raises_after_every_thread_is_done():
    """llvm_backend's parts: one bad part among good ones raises its error once all are
    joined (no thread left running)."""
    llvm_backend.llvm()
    tm = llvm_backend.target_machine(Target("llvm"))
    good = "define i32 @g%d(i32 %%x) {\n  %%y = add i32 %%x, %d\n  ret i32 %%y\n}\n"
    texts = [good % (0, 0), "not IR", good % (2, 2)]
    started = llvm_backend._start_part_compiles(texts, tm)
    with pytest.raises(RuntimeError, match="parsing error"):
        llvm_backend._finish_part_compiles(started)
    assert not any(thread.is_alive() for thread, _ in started)
    objects, irs = llvm_backend._finish_part_compiles(llvm_backend._start_part_compiles([texts[0], texts[2]], tm))
    assert len(objects) == 2 and "@g2(" in irs[1]


def test_relax_build_loads_llvmlite_in_a_thread_of_its_own_once():
    """A fresh interpreter: importing tvm leaves llvmlite unloaded; relax.build starts one
    thread loading it (llvm_backend.preload) while its passes run, and a second preload or
    build starts no other; llvm() called from several threads at once initialises once."""
    import subprocess
    import sys

    code = r'''
import sys, threading
import numpy as np
import tvm
from tvm import relax
from tvm.relax import op as R
from tvm.target import llvm_backend
assert "llvmlite" not in sys.modules
started = []
orig = threading.Thread.start
def start(self):
    started.append(self)
    return orig(self)
threading.Thread.start = start
x = relax.Var("x", relax.TensorStructInfo([4], "float32"))
bb = relax.BlockBuilder()
with bb.function("main", [x]):
    bb.emit_func_output(bb.emit(R.add(x, x)))
ex = relax.build(bb.get(), "llvm")
llvm_backend.preload()
preloads = [t for t in started if "(_preload)" in t.name]
assert len(preloads) == 1, started
threading.Thread.start = orig
results = []
threads = [threading.Thread(target=lambda: results.append(llvm_backend.llvm())) for _ in range(4)]
for t in threads: t.start()
for t in threads: t.join()
assert len(set(map(id, results))) == 1 and llvm_backend._LLVM_READY == [results[0]]
out = relax.VirtualMachine(ex, tvm.cpu())["main"](tvm.runtime.tensor(np.ones(4, "float32"))).numpy()
assert (out == 2).all()
print("ok")
'''
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout.strip().endswith("ok"), done.stderr[-3000:]
