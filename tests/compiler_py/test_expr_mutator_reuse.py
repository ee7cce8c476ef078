"""relax.expr_functor.ExprMutator keeps a binding whose value it left unchanged (TVM's
ExprMutator re-emits it as it is): same variable, no re-normalization; a binding given a
new value of the same struct info keeps its variable too (TVM's ReEmitBinding), one of
other struct info gets a new variable, which later uses read. The module it builds
must be the one a mutator that re-emitted every binding builds: structurally equal, for any
program and any set of rewritten bindings (hypothesis), including the variable kinds that
change scope (dataflow -> not) and match_casts."""

from hypothesis import given, settings
from hypothesis import strategies as st
import numpy as np

import tvm
from tvm import relax
from tvm.relax import expr_functor as EF
from tvm.relax.expr_functor import ExprMutator

_OPS = [relax.op.add, relax.op.multiply, relax.op.subtract]


def _program(steps, n=4):
    """main(x) with a dataflow block: each step (op index, left, right) binds an op of two
    earlier values; the last two are outputs; a match_cast of the result after the block."""
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo((n,), "float32"))
    with bb.function("main", [x]):
        with bb.dataflow():
            values = [x]
            for k, (op, a, b) in enumerate(steps):
                left, right = values[a % len(values)], values[b % len(values)]
                emit = bb.emit_output if k >= len(steps) - 2 else bb.emit
                values.append(emit(_OPS[op](left, right)))
        cast = bb.match_cast(values[-1], relax.TensorStructInfo((n,), "float32"))
        bb.emit_func_output(relax.Tuple([cast, values[-2]]) if len(steps) > 1 else cast)
    return bb.get()


class _Swap(ExprMutator):
    """Turns the calls numbered in `which` (order of visit) into subtractions."""

    def __init__(self, mod, which):
        super().__init__(mod)
        self.which, self.seen = which, 0

    def visit_call_(self, call):
        call = super().visit_call_(call)
        k, self.seen = self.seen, self.seen + 1
        if k in self.which:
            return relax.op.subtract(call.args[0], call.args[1])
        return call


def _both(fn):
    """(result with the reuse, result with every binding re-emitted)."""
    with_reuse = fn()
    saved = EF.ExprMutator._reusable
    EF.ExprMutator._reusable = lambda self, *binding: False  # (b, and its var and value when read)
    try:
        without = fn()
    finally:
        EF.ExprMutator._reusable = saved
    return with_reuse, without


_STEPS = st.lists(st.tuples(st.integers(0, 2), st.integers(0, 9), st.integers(0, 9)), min_size=1, max_size=8)


@settings(max_examples=60, deadline=None)
@given(_STEPS, st.sets(st.integers(0, 8)))
def test_rewrites_of_any_bindings_build_the_same_module(steps, which):
    mod = _program(steps)
    a, b = _both(lambda: _Swap(mod, which).transform_module())
    tvm.ir.assert_structural_equal(a, b)


@settings(max_examples=30, deadline=None)
@given(_STEPS)
def test_scope_changing_passes_build_the_same_module(steps):
    mod = _program(steps)
    a, b = _both(lambda: relax.transform.ToNonDataflow()(mod))
    tvm.ir.assert_structural_equal(a, b)
    for block in a["main"].body.blocks:  # the kept bindings are of the kind the scope needs
        dataflow = isinstance(block, relax.DataflowBlock)
        for bind in block.bindings:
            assert dataflow or not isinstance(bind.var, relax.DataflowVar)


def test_unchanged_bindings_keep_their_variables_changed_ones_do_not():
    mod = _program([(0, 0, 0), (1, 1, 0), (0, 2, 1)])
    old = [b.var for b in mod["main"].body.blocks[0].bindings]
    new_mod = _Swap(mod, {1}).transform_module()
    new = [b.var for b in new_mod["main"].body.blocks[0].bindings]
    assert new[0].same_as(old[0])            # untouched
    # rewritten with the same struct info: the variable is kept (TVM's ReEmitBinding), so the
    # binding reading it is unchanged and kept as it is
    assert new[1].same_as(old[1]) and "subtract" in str(new_mod["main"].body.blocks[0].bindings[1].value)
    assert new[2].same_as(old[2]) and new_mod["main"].body.blocks[0].bindings[2].same_as(
        mod["main"].body.blocks[0].bindings[2])
    same = ExprMutator(mod).transform_module()
    assert all(u.same_as(v) for u, v in zip(old, [b.var for b in same["main"].body.blocks[0].bindings]))
    lowered = relax.transform.ToNonDataflow()(mod)
    for b in lowered["main"].body.blocks[0].bindings:
        assert not isinstance(b.var, relax.DataflowVar)
    x = np.linspace(-1, 1, 4, dtype="float32")
    vm = relax.VirtualMachine(relax.build(new_mod, "llvm"), tvm.cpu())
    out = vm["main"](tvm.runtime.tensor(x))
    t1 = x + x
    t2 = t1 - x          # binding 1 rewritten from multiply to subtract
    t3 = t2 + t1
    np.testing.assert_allclose(out[0].numpy(), t3, rtol=1e-6)
    np.testing.assert_allclose(out[1].numpy(), t2, rtol=1e-6)


class _Concat(ExprMutator):
    """x + x becomes concat([x, x]): a value of another shape."""

    def visit_call_(self, call):
        call = super().visit_call_(call)
        if "add" in str(call.op.name):
            return relax.op.concat([call.args[0], call.args[1]], axis=0)
        return call


def test_a_value_of_other_struct_info_gets_a_new_variable_and_its_readers_follow():
    """lv = x + x; gv = sum(lv): lv rewritten to a (2n,) concat needs a new variable (its
    struct info changed); sum reads the new one, and keeps its own variable (a scalar
    either way). The build computes the rewritten program."""
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo((4,), "float32"))
    with bb.function("main", [x]):
        with bb.dataflow():
            lv = bb.emit(relax.op.add(x, x))
            gv = bb.emit_output(relax.op.sum(lv))
        bb.emit_func_output(gv)
    mod = bb.get()
    old = mod["main"].body.blocks[0].bindings
    new_mod = _Concat(mod).transform_module()
    new = new_mod["main"].body.blocks[0].bindings
    assert not new[0].var.same_as(old[0].var)
    assert [int(d) for d in new[0].var.struct_info.shape] == [8]
    assert new[1].var.same_as(old[1].var) and new[1].value.args[0].same_as(new[0].var)
    xv = np.linspace(-1, 1, 4, dtype="float32")
    vm = relax.VirtualMachine(relax.build(new_mod, "llvm"), tvm.cpu())
    np.testing.assert_allclose(vm["main"](tvm.runtime.tensor(xv)).numpy(), 2 * xv.sum(), rtol=1e-6)
