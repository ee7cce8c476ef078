"""tvm.transform: passes, Sequential, PassContext (opt_level, config, instruments), written as a
TVM user writes them."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
import pytest

import tvm
from tvm import te


def _mod():
    A = te.placeholder((16, 8), name="A")
    k = te.reduce_axis((0, 8), name="k")
    B = te.compute((16,), lambda i: te.sum(A[i, k], axis=k), name="B")
    return tvm.IRModule({"main": te.create_prim_func([A, B])})


def test_sequential_of_tir_passes_lowers_blocks():
    mod = _mod()
    seq = tvm.transform.Sequential([
        tvm.tir.transform.LowerInitBlock(),
        tvm.tir.transform.ConvertBlocksToOpaque(),
        tvm.tir.transform.LowerOpaqueBlock(),
    ])
    out = seq(mod)
    text = str(out)
    assert "T.block" not in text and "T.init" not in text and "if (k == 0)" in text, text
    assert "T.block" in str(mod)  # passes build new modules; the input is unchanged


def test_lower_shows_the_module_codegen_sees():
    text = str(tvm.lower(_mod()))
    assert "T.block" not in text and "B[i]" in text, text


def test_opt_level_required_and_disabled():
    calls = []

    @tvm.transform.module_pass(opt_level=3, name="Probe")
    def probe(mod, ctx):
        calls.append(ctx.opt_level)
        return mod

    mod = _mod()
    probe(mod)                                   # default opt_level 2 < 3: skipped
    assert calls == []
    with tvm.transform.PassContext(opt_level=3):
        probe(mod)
    with tvm.transform.PassContext(opt_level=0, required_pass=["Probe"]):
        probe(mod)
    with tvm.transform.PassContext(opt_level=3, disabled_pass=["Probe"]):
        probe(mod)
    assert calls == [3, 0]


def test_prim_func_pass_and_class_pass():
    seen = []

    @tvm.tir.transform.prim_func_pass(opt_level=0)
    def count(func, mod, ctx):
        seen.append(func)
        return func

    @tvm.transform.module_pass(opt_level=0)
    class Rename:
        def __init__(self, name):
            self.name = name

        def transform_module(self, mod, ctx):
            return tvm.IRModule({self.name: mod["main"]})

    out = tvm.transform.Sequential([count, Rename("kernel")])(_mod())
    assert len(seen) == 1 and "kernel" in out


def test_instruments_see_every_pass():
    class Recorder(tvm.transform.PassInstrument):
        def __init__(self):
            self.events = []

        def enter_pass_ctx(self):
            self.events.append("enter")

        def exit_pass_ctx(self):
            self.events.append("exit")

        def run_before_pass(self, mod, info):
            self.events.append("before " + info.name)

        def run_after_pass(self, mod, info):
            self.events.append("after " + info.name)

    rec = Recorder()
    with tvm.transform.PassContext(instruments=[rec]):
        tvm.tir.transform.Simplify()(_mod())
    assert rec.events == ["enter", "before tir.Simplify", "after tir.Simplify", "exit"]


def test_config_disable_vectorize_and_bad_config():
    A = te.placeholder((64,), name="A")
    B = te.compute((64,), lambda i: A[i] * 2.0, name="B")
    sch = tvm.tir.Schedule(te.create_prim_func([A, B]))
    (i,) = sch.get_loops(sch.get_block("B"))
    io, ii = sch.split(i, factors=[None, 8])
    sch.vectorize(ii)
    assert "T.Ramp" in str(tvm.lower(sch.mod))
    with tvm.transform.PassContext(config={"tir.disable_vectorize": True}):
        assert "T.Ramp" not in str(tvm.lower(sch.mod))
        lib = tvm.compile(sch.mod)
    a = np.arange(64, dtype="float32")
    b = np.zeros(64, "float32")
    lib["main"](a, b)
    np.testing.assert_allclose(b, a * 2)
    with pytest.raises(AttributeError, match="unknown config key"):
        tvm.transform.PassContext(config={"tir.no_such_option": 1})
    with pytest.raises(TypeError, match="expects bool"):
        tvm.transform.PassContext(config={"tir.disable_vectorize": "yes"})
    with pytest.raises(ValueError, match="opt_level"):
        tvm.transform.PassContext(opt_level=9)


def test_a_pass_rejects_a_non_module():
    with pytest.raises(TypeError, match="takes an IRModule"):
        tvm.tir.transform.Simplify()("not a module")


def test_hoist_if_then_else_moves_invariant_guards_out():
    # compute_at of a cache with a tail: the copy block's row predicate depends on ax0 only,
    # so it leaves the ax1 loop (which then has no guard).
    n, k = 37, 16
    A = te.placeholder((n, k), name="A")
    B = te.compute((n, k), lambda i, j: A[i, j] * 2.0, name="B")
    sch = tvm.tir.Schedule(te.create_prim_func([A, B]))
    blk = sch.get_block("B")
    a_local = sch.cache_read(blk, 0, "local")
    i, j = sch.get_loops(blk)
    io, ii = sch.split(i, factors=[None, 8])
    sch.compute_at(a_local, io)
    text = str(tvm.lower(sch.mod))
    guard = next(line for line in text.splitlines() if "if" in line and "ax0" in line)
    nxt = text.splitlines()[text.splitlines().index(guard) + 1]
    assert "for ax1" in nxt, text
    lib = tvm.compile(sch.mod)
    a = np.random.rand(n, k).astype("float32")
    b = np.zeros((n, k), "float32")
    lib["main"](a, b)
    np.testing.assert_allclose(b, a * 2)


@settings(max_examples=15, deadline=None)
@given(trips=st.integers(0, 12), limit=st.integers(0, 15), done=st.integers(0, 1))
def test_hoist_keeps_guards_that_read_what_the_loop_writes(trips, limit, done):
    """`for t: if done[0] == 0 and cnt[0] < lim[0]: cnt[0] += 1`: no conjunct uses t, but
    cnt is written in the loop, so its test is not invariant (hoisted, the body ran on every
    trip). done[0] is read-only: that conjunct may leave the loop."""
    from tvm import tir

    cnt = tir.decl_buffer((1,), "int32", "cnt")
    lim = tir.decl_buffer((1,), "int32", "lim")
    flag = tir.decl_buffer((1,), "int32", "flag")
    t = tir.Var("t", "int32")
    zero = tir.const(0, "int32")
    cond = tir.And(tir.EQ(flag[zero], zero), tir.LT(cnt[zero], lim[zero]))
    body = tir.IfThenElse(cond, tir.BufferStore(cnt, cnt[zero] + tir.const(1, "int32"), [zero]), None)
    f = tir.PrimFunc([cnt, lim, flag], tir.For(t, 0, trips, tir.ForKind.SERIAL, body))
    lib = tvm.compile(tvm.IRModule({"main": f.with_attr("global_symbol", "main")}))
    c = np.zeros(1, "int32")
    lib["main"](c, np.array([limit], "int32"), np.array([done], "int32"))
    assert int(c[0]) == (0 if done else min(trips, limit))
