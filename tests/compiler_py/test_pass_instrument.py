"""tvm.ir.instrument.PassTimingInstrument as TVM documents it (render() inside the context;
one line per pass, children tab-indented under their parent: "name: <total>us [<self>us]
(<% of the top-level total>%; <% of the parent>%)"; leaving or entering the context clears
the profiles), and the stack's extensions: timed_phase, pass_profiles, relax.build's phases."""

import re
import time

from hypothesis import given, settings
from hypothesis import strategies as st
import numpy as np

import tvm
from tvm import relax, te
from tvm.ir.instrument import PassTimingInstrument, pass_profiles, timed_phase

_LINE = re.compile(r"^(\t*)(.+): (\d+)us \[(-?\d+)us\] \((\d+\.\d\d)%; (\d+\.\d\d)%\)$")


def _mod():
    A = te.placeholder((16,), name="A")
    B = te.compute((16,), lambda i: A[i] + 1.0, name="B")
    return tvm.IRModule({"main": te.create_prim_func([A, B])})


def _sleeper(name, seconds):
    @tvm.transform.module_pass(opt_level=0, name=name)
    def run(mod, ctx):
        time.sleep(seconds)
        return mod
    return run


def _parse(text):
    rows = []
    for line in text.splitlines():
        m = _LINE.match(line)
        assert m, "bad line %r in\n%s" % (line, text)
        tabs, name, total, own, pct_all, pct_parent = m.groups()
        rows.append((len(tabs), name, int(total), int(own), float(pct_all), float(pct_parent)))
    return rows


def test_nested_passes_render_as_a_tree_with_self_time():
    timing = PassTimingInstrument()
    inner = tvm.transform.Sequential([_sleeper("B", 0.02), _sleeper("C", 0.01)], name="inner")
    outer = tvm.transform.Sequential([_sleeper("A", 0.01), inner], name="outer")
    with tvm.transform.PassContext(instruments=[timing]):
        outer(_mod())
        _sleeper("D", 0.01)(_mod())
        text = timing.render()
    assert text.endswith("\n")
    rows = _parse(text)
    assert [(d, n) for d, n, *_ in rows] == [(0, "outer"), (1, "A"), (1, "inner"), (2, "B"), (2, "C"),
                                            (0, "D")]
    by = {n: r for _, n, *r in rows}
    assert by["B"][0] >= 20000 and by["A"][0] >= 10000 and by["D"][0] >= 10000
    # self = total - children's totals (rounding to whole microseconds aside)
    assert abs(by["inner"][1] - (by["inner"][0] - by["B"][0] - by["C"][0])) <= 2
    assert abs(by["outer"][1] - (by["outer"][0] - by["A"][0] - by["inner"][0])) <= 2
    assert 0 <= by["outer"][1] <= by["outer"][0]
    # shares: of all top-level passes, and of the parent
    grand = by["outer"][0] + by["D"][0]
    assert abs(by["outer"][2] - 100.0 * by["outer"][0] / grand) < 0.05
    assert abs(by["B"][3] - 100.0 * by["B"][0] / by["inner"][0]) < 0.05
    assert abs(by["outer"][2] + by["D"][2] - 100.0) < 0.05
    assert by["outer"][2] == by["outer"][3]  # a top-level pass's parent is the total


def test_profiles_cleared_on_entering_and_leaving_a_context():
    timing = PassTimingInstrument()
    with tvm.transform.PassContext(instruments=[timing]):
        assert PassTimingInstrument.render() == ""  # nothing profiled yet
        _sleeper("A", 0.0)(_mod())
        assert [r[1] for r in _parse(PassTimingInstrument.render())] == ["A"]  # static, as in TVM
    assert timing.render() == "" and pass_profiles() == []
    with tvm.transform.PassContext(instruments=[timing]):
        _sleeper("B", 0.0)(_mod())
        assert [r[1] for r in _parse(timing.render())] == ["B"]  # A's profile is gone


def test_passes_that_do_not_run_are_not_timed_and_no_instrument_no_profile():
    class Veto(tvm.transform.PassInstrument):
        def should_run(self, mod, info):
            return info.name != "Vetoed"

    timing = PassTimingInstrument()
    with tvm.transform.PassContext(instruments=[timing, Veto()], disabled_pass=["Off"]):
        _sleeper("Off", 0.0)(_mod())
        _sleeper("Vetoed", 0.0)(_mod())
        _sleeper("Runs", 0.0)(_mod())
        assert [r[1] for r in _parse(timing.render())] == ["Runs"]
    with tvm.transform.PassContext():  # no timing instrument: passes and phases leave nothing
        _sleeper("A", 0.0)(_mod())
        with timed_phase("phase"):
            pass
        assert pass_profiles() == [] and PassTimingInstrument.render() == ""


def test_timed_phase_nests_under_the_running_pass():
    @tvm.transform.module_pass(opt_level=0, name="WithPhase")
    def with_phase(mod, ctx):
        with timed_phase("step"):
            time.sleep(0.01)
        return mod

    with tvm.transform.PassContext(instruments=[PassTimingInstrument()]):
        with timed_phase("outside"):
            with_phase(_mod())
        profiles = pass_profiles()
    assert [(n, [(c, [g[0] for g in gc]) for c, _, gc in ch]) for n, _, ch in profiles] == \
        [("outside", [("WithPhase", ["step"])])]
    (_, outside_s, [(_, pass_s, [(_, step_s, _)])]) = profiles[0]
    assert outside_s >= pass_s >= step_s >= 0.01


_TREE = st.recursive(st.just(None), lambda kids: st.lists(kids, min_size=0, max_size=3), max_leaves=12)


@settings(max_examples=40, deadline=None)
@given(_TREE)
def test_any_nesting_of_sequentials_renders_every_pass_once_in_pre_order(tree):
    """A random tree of Sequentials (lists) and passes (None): render has one line per pass
    run, in pre-order at its depth; totals cover their children; shares are consistent."""
    counter = [0]
    expected = []

    def build(node, depth):
        name = "P%d" % counter[0]
        counter[0] += 1
        expected.append((depth, name))
        if node is None:
            return _sleeper(name, 0.0)
        return tvm.transform.Sequential([build(k, depth + 1) for k in node], name=name)

    root = build(tree, 0)
    with tvm.transform.PassContext(instruments=[PassTimingInstrument()]):
        root(_mod())
        rows = _parse(PassTimingInstrument.render())
        profiles = pass_profiles()
    assert [(d, n) for d, n, *_ in rows] == expected
    assert rows[0][4] == 100.0 and rows[0][5] == 100.0

    def check(name, seconds, children):
        assert seconds >= sum(c[1] for c in children) >= 0
        for c in children:
            check(*c)
    for p in profiles:
        check(*p)


def test_relax_build_profile_covers_passes_and_codegen():
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo((4, 8), "float32"))
    with bb.function("main", [x]):
        with bb.dataflow():
            y = bb.emit(relax.op.nn.relu(relax.op.add(x, x)))
            out = bb.emit_output(y)
        bb.emit_func_output(out)
    with tvm.transform.PassContext(instruments=[PassTimingInstrument()]):
        ex = relax.build(bb.get(), "llvm")
        names = [r[1] for r in _parse(PassTimingInstrument.render())]
    for phase in ("relax.LegalizeOps", "relax.FuseOps", "relax.DefaultSchedule", "relax.VMCodeGen",
                  "tir.build", "tir.Simplify", "tir.MakePackedAPI", "codegen.LLVMText", "llvm.optimize",
                  "llvm.emit_object", "link.shared_library"):
        assert phase in names, (phase, names)
    vm = relax.VirtualMachine(ex, tvm.cpu())
    a = np.linspace(-1, 1, 32, dtype="float32").reshape(4, 8)
    np.testing.assert_allclose(vm["main"](tvm.runtime.tensor(a)).numpy(), np.maximum(a + a, 0))
