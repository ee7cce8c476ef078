"""The Relax simplification passes (relax.transform: FoldConstant, CanonicalizeBindings,
DeadCodeElimination, EliminateCommonSubexpr, FoldBatchnormToConv2D) and the expression
functor they share: examples with structural checks of the rewritten IR, and generated
BlockBuilder programs compiled with and without each pass (same outputs, and the property the
pass promises holds in its result)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tvm
from tvm import relax, te, tir, topi
from tvm.relax import op as R
from tvm.relax import transform as T
from tvm.relax.expr_functor import ExprMutator, ExprVisitor, module_pass


def run(mod, *inputs):
    """Outputs of `mod["main"]` built with LegalizeOps only (so the pass under test is the
    only difference between two runs)."""
    vm = relax.VirtualMachine(relax.build(mod, relax_pipeline="zero"), tvm.cpu())
    def flat(o):
        if isinstance(o, (list, tuple)) or type(o).__name__ == "Array":
            return [a for f in o for a in flat(f)]
        return [o.numpy()]
    return flat(vm["main"](*[tvm.runtime.tensor(a) for a in inputs]))


def bindings(mod, name="main"):
    return [b for block in mod[name].body.blocks for b in block.bindings]


def op_names(mod, name="main"):
    return [str(b.value.op.name) for b in bindings(mod, name)
            if isinstance(b.value, relax.Call) and isinstance(b.value.op, relax.Op)]


def assert_same_outputs(before, after, *inputs, rtol=1e-5):
    for a, b in zip(run(before, *inputs), run(after, *inputs)):
        np.testing.assert_allclose(b, a, rtol=rtol, atol=1e-5)


# ---------------------------------------------------------------- generated programs

UNARY = ["nn.relu", "tanh", "sigmoid", "negative", "abs"]
BINARY = ["add", "multiply", "subtract", "maximum"]


def _op(name):
    f = R
    for part in name.split("."):
        f = getattr(f, part)
    return f


@st.composite
def programs(draw):
    """A dataflow block over x: (n, 3) and two (3,) constants: steps are unary/binary ops on
    earlier values, exact repeats of earlier steps, and aliases (y = earlier value)."""
    steps = []
    for i in range(draw(st.integers(1, 7))):
        pool = 3 + i
        kind = draw(st.sampled_from(["u", "b", "b", "dup", "alias"]))
        if kind == "u":
            steps.append(("u", draw(st.sampled_from(UNARY)), draw(st.integers(0, pool - 1))))
        elif kind == "b":
            steps.append(("b", draw(st.sampled_from(BINARY)), draw(st.integers(0, pool - 1)),
                          draw(st.integers(0, pool - 1))))
        elif kind == "dup" and any(s[0] in "ub" for s in steps):
            steps.append(("dup", draw(st.sampled_from([j for j, s in enumerate(steps) if s[0] in "ub"]))))
        else:
            steps.append(("alias", draw(st.integers(0, pool - 1))))
    outs = draw(st.lists(st.integers(0, len(steps) - 1), min_size=1, max_size=3, unique=True))
    return steps, outs, draw(st.integers(0, 2**16))


def build_program(prog):
    steps, outs, seed = prog
    rng = np.random.default_rng(seed)
    n = tir.Var("n", "int64")
    x = relax.Var("x", relax.TensorStructInfo([n, 3], "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        with bb.dataflow():
            pool = [x, relax.const(rng.standard_normal(3).astype("float32")),
                    relax.const(rng.standard_normal(3).astype("float32"))]
            exprs = []
            for s in steps:
                if s[0] == "u":
                    e = _op(s[1])(pool[s[2]])
                elif s[0] == "b":
                    e = _op(s[1])(pool[s[2]], pool[s[3]])
                elif s[0] == "dup":
                    e = exprs[s[1]]
                else:
                    e = pool[s[1]]
                exprs.append(e)
                pool.append(bb.emit(e))
            res = [bb.emit_output(pool[3 + i]) for i in outs]
        bb.emit_func_output(res[0] if len(res) == 1 else res)
    return bb.get()


X = np.random.default_rng(1).standard_normal((4, 3)).astype("float32")


# ---------------------------------------------------------------- the functor

class _CountCalls(ExprVisitor):
    def __init__(self):
        self.ops = []

    def visit_call_(self, e):
        self.ops.append(str(e.op.name))
        super().visit_call_(e)


class _ExpToLog(ExprMutator):
    def visit_call_(self, e):
        e = super().visit_call_(e)
        if str(e.op.name) == "relax.exp":
            return R.log(e.args[0])
        return e


def _kinds_module():
    n = tir.Var("n", "int64")
    x = relax.Var("x", relax.TensorStructInfo(None, "float32", ndim=2))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        with bb.dataflow():
            y = bb.match_cast(x, relax.TensorStructInfo([n, 3], "float32"))
            a = bb.emit(R.exp(y))
            gv = bb.emit_output(R.add(a, y))
        z = bb.emit(R.multiply(gv, gv))
        bb.emit_func_output(z)
    return bb.get()


def test_functor_visits_and_rebuilds_keeping_kinds():
    mod = _kinds_module()
    v = _CountCalls()
    v.visit_expr(mod["main"])
    assert v.ops == ["relax.exp", "relax.add", "relax.multiply"]
    same = module_pass(ExprMutator, "identity")(mod)
    assert tvm.ir.structural_equal(same["main"], mod["main"])
    new = module_pass(_ExpToLog, "exp_to_log")(mod)
    bs = bindings(new)
    assert [type(b).__name__ for b in bs] == ["MatchCast", "VarBinding", "VarBinding", "VarBinding"]
    assert [type(b.var).__name__ for b in bs] == ["DataflowVar", "DataflowVar", "Var", "Var"]
    assert isinstance(new["main"].body.blocks[0], relax.DataflowBlock)
    assert op_names(new) == ["relax.log", "relax.add", "relax.multiply"]
    xs = np.random.default_rng(0).random((2, 3)).astype("float32") + 0.5
    y = np.log(xs) + xs
    np.testing.assert_allclose(run(new, xs)[0], y * y, rtol=1e-5)


# ---------------------------------------------------------------- FoldConstant

def test_fold_constant_example():
    a = np.random.default_rng(0).standard_normal((3, 3)).astype("float32")
    x = relax.Var("x", relax.TensorStructInfo([2, 3], "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        with bb.dataflow():
            t = bb.emit(R.permute_dims(relax.const(a)))
            w = bb.emit(R.add(t, relax.const(np.float32(1))))
            parts = bb.emit(R.split(w, 3, axis=0))
            row = bb.emit(relax.TupleGetItem(parts, 1))
            k = bb.emit(bb.call_te(topi.multiply, relax.const(a[0]), relax.const(a[1])))  # call_tir
            m = bb.emit(R.matmul(x, w))
            gv = bb.emit_output(R.add(R.add(m, row), k))
        bb.emit_func_output(gv)
    mod = bb.get()
    folded = T.FoldConstant()(mod)
    assert op_names(folded) == ["relax.matmul", "relax.add", "relax.add"]
    vals = {str(b.var.name_hint): b.value for b in bindings(folded)}
    np.testing.assert_allclose(vals[str(row.name_hint)].data.numpy(), (a.T + 1)[1:2], rtol=1e-6)
    np.testing.assert_allclose(vals[str(k.name_hint)].data.numpy(), a[0] * a[1], rtol=1e-6)
    xs = np.random.default_rng(1).standard_normal((2, 3)).astype("float32")
    np.testing.assert_allclose(run(folded, xs)[0], xs @ (a.T + 1) + (a.T + 1)[1] + a[0] * a[1], rtol=1e-5)


def test_fold_constant_leaves_symbolic_and_huge_outputs():
    n = tir.Var("n", "int64")
    x = relax.Var("x", relax.TensorStructInfo([n, 3], "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        with bb.dataflow():
            sym = bb.emit(R.broadcast_to(relax.const(np.ones(3, "float32")), (n, 3)))
            small = bb.emit(R.broadcast_to(relax.const(np.ones(3, "float32")), (4, 3)))
            huge = bb.emit(R.zeros((512, 512), "float32"))  # 1 MiB from nothing: stays a call
            same = bb.emit(R.negative(relax.const(np.ones((512, 512), "float32"))))  # no growth
            gv = bb.emit_output([R.add(x, sym), small, huge, same])
        bb.emit_func_output(gv)
    folded = T.FoldConstant()(bb.get())
    kinds = {str(b.var.name_hint): type(b.value).__name__ for b in bindings(folded)}
    assert kinds[str(sym.name_hint)] == "Call"
    assert kinds[str(small.name_hint)] == "Constant"
    assert kinds[str(huge.name_hint)] == "Call"
    assert kinds[str(same.name_hint)] == "Constant"


def _all_constant_args(mod):
    consts = {b.var._h for b in bindings(mod) if isinstance(b.value, (relax.Constant, relax.Tuple))}
    bad = []
    for b in bindings(mod):
        v = b.value
        if isinstance(v, relax.Call) and isinstance(v.op, relax.Op) and len(v.args) > 0 and all(
                isinstance(a, relax.Constant) or (isinstance(a, relax.Var) and a._h in consts)
                for a in v.args):
            bad.append(str(v.op.name))
    return bad


@settings(max_examples=12, deadline=None)
@given(programs())
def test_fold_constant_generated(prog):
    mod = build_program(prog)
    folded = T.FoldConstant()(mod)
    assert _all_constant_args(folded) == []
    assert_same_outputs(mod, folded, X)


# ---------------------------------------------------------------- CanonicalizeBindings

def test_canonicalize_bindings_example():
    n = tir.Var("n", "int64")
    x = relax.Var("x", relax.TensorStructInfo([n, 3], "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        with bb.dataflow():
            a = bb.emit(R.exp(x))
            b = bb.emit(a)                                                  # alias
            c = bb.match_cast(b, relax.TensorStructInfo([n, 3], "float32"))  # trivial cast
            t = bb.emit(relax.Tuple([c, x]))
            d = bb.emit(relax.TupleGetItem(t, 0))                           # known tuple field
            gv = bb.emit_output(R.add(d, c))
            lv = bb.emit(R.nn.relu(gv))
            gv2 = bb.emit_output(lv)                                        # output of a dataflow var
        bb.emit_func_output([gv, gv2])
    mod = bb.get()
    new = T.CanonicalizeBindings()(mod)
    bs = bindings(new)
    assert not any(isinstance(b.value, relax.Var) or isinstance(b, relax.MatchCast) for b in bs)
    relu = [b for b in bs if isinstance(b.value, relax.Call) and str(b.value.op.name) == "relax.nn.relu"][0]
    assert type(relu.var).__name__ == "Var" and str(relu.var.name_hint) == str(gv2.name_hint)
    add = [b for b in bs if isinstance(b.value, relax.Call) and str(b.value.op.name) == "relax.add"][0]
    assert add.value.args[0].same_as(add.value.args[1])  # both read exp(x)
    assert_same_outputs(mod, new, X)


def test_canonicalize_keeps_real_match_cast():
    x = relax.Var("x", relax.TensorStructInfo(None, "float32", ndim=2))
    n = tir.Var("n", "int64")
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        with bb.dataflow():
            y = bb.match_cast(x, relax.TensorStructInfo([n, 3], "float32"))
            gv = bb.emit_output(R.exp(y))
        bb.emit_func_output(gv)
    new = T.CanonicalizeBindings()(bb.get())
    assert isinstance(bindings(new)[0], relax.MatchCast)


@settings(max_examples=12, deadline=None)
@given(programs())
def test_canonicalize_bindings_generated(prog):
    mod = build_program(prog)
    new = T.CanonicalizeBindings()(mod)
    assert not any(isinstance(b.value, relax.Var) for b in bindings(new))  # no alias survives
    assert_same_outputs(mod, new, X)


# ---------------------------------------------------------------- DeadCodeElimination

def _module_with_dead_code():
    x = relax.Var("x", relax.TensorStructInfo([2, 3], "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        with bb.dataflow():
            a = bb.emit(R.exp(x))
            dead1 = bb.emit(bb.call_te(topi.sigmoid, x, primfunc_name_hint="only_dead"))
            bb.emit(R.add(dead1, a))                       # dead chain
            gv = bb.emit_output(R.nn.relu(a))
        bb.emit_func_output(gv)
    mod = bb.get()
    p = relax.Var("p", relax.TensorStructInfo([2, 3], "float32"))
    helper = relax.Function([p], relax.SeqExpr([], p))      # private: no global_symbol
    A = te.placeholder((4,), "float32", "A")
    lonely = te.create_prim_func([A, te.compute((4,), lambda i: A[i] * 2, name="B")])
    fns = dict(mod.functions.items())
    fns["helper"] = helper
    fns["lonely"] = lonely.with_attr("global_symbol", "lonely")
    return tvm.ir.IRModule(fns)


def test_dead_code_elimination_example():
    mod = _module_with_dead_code()
    new = T.DeadCodeElimination()(mod)
    assert op_names(new) == ["relax.exp", "relax.nn.relu"]
    assert sorted(str(k) for k in new.functions.keys()) == ["main"]
    kept = T.DeadCodeElimination(entry_functions=["main", "helper"])(mod)
    assert sorted(str(k) for k in kept.functions.keys()) == ["helper", "main"]
    assert_same_outputs(mod, new, X[:2])


def test_dead_code_elimination_errors():
    with pytest.raises(ValueError, match="nope"):
        T.DeadCodeElimination(entry_functions=["nope"])(_module_with_dead_code())
    with pytest.raises(TypeError):
        T.DeadCodeElimination(entry_functions="main")


@settings(max_examples=12, deadline=None)
@given(programs())
def test_dead_code_elimination_generated(prog):
    mod = build_program(prog)
    new = T.DeadCodeElimination()(mod)
    used = set()

    class Uses(ExprVisitor):
        def visit_var_(self, v):
            used.add(v._h)
        visit_dataflow_var_ = visit_var_
    Uses().visit_expr(new["main"])
    for b in bindings(new):
        assert b.var._h in used  # every binding left is read by something
    assert_same_outputs(mod, new, X)


# ---------------------------------------------------------------- EliminateCommonSubexpr

def test_cse_example():
    x = relax.Var("x", relax.TensorStructInfo([2, 3], "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        with bb.dataflow():
            a = bb.emit(R.sum(x, axis=[0]))
            b = bb.emit(R.sum(x, axis=[0]))
            c = bb.emit(R.sum(x, axis=[1]))             # other attrs: kept
            t1 = bb.emit(relax.Tuple([a, b]))
            t2 = bb.emit(relax.Tuple([a, b]))
            gv = bb.emit_output(R.sum(x, axis=[0]))     # output repeating a DataflowVar's value
            gv2 = bb.emit_output([t1, t2, c, gv])
        bb.emit_func_output(gv2)
    mod = bb.get()
    new = T.EliminateCommonSubexpr()(mod)
    names = [str(b.var.name_hint) for b in bindings(new)]
    assert str(b.name_hint) not in names and str(t2.name_hint) not in names
    assert op_names(new).count("relax.sum") == 2
    out_binding = [bb_ for bb_ in bindings(new) if str(bb_.var.name_hint) == str(gv.name_hint)][0]
    assert isinstance(out_binding.value, relax.DataflowVar)  # gv = a, visible after the block
    only_calls = T.EliminateCommonSubexpr(call_only=True)(mod)
    assert str(t2.name_hint) in [str(b_.var.name_hint) for b_ in bindings(only_calls)]
    assert_same_outputs(mod, new, X[:2])
    with pytest.raises(TypeError):
        T.EliminateCommonSubexpr(call_only="yes")


@settings(max_examples=12, deadline=None)
@given(programs())
def test_cse_generated(prog):
    mod = build_program(prog)
    new = T.EliminateCommonSubexpr()(mod)
    seen = set()
    for b in bindings(new):
        v = b.value
        if isinstance(v, relax.Call):
            k = (str(v.op.name), tuple(a._h if isinstance(a, (relax.Var, relax.Constant)) else str(a)
                                       for a in v.args))
            assert k not in seen
            seen.add(k)
    assert_same_outputs(mod, new, X)


# ---------------------------------------------------------------- FoldBatchnormToConv2D

def conv_bn_module(rng, cin, cout, groups=1, eps=1e-5, center=True, scale=True, training=False,
                   layout="NCHW", const_gamma=True):
    n = tir.Var("n", "int64")
    shape = [n, cin, 6, 6] if layout == "NCHW" else [n, 6, 6, cin]
    x = relax.Var("x", relax.TensorStructInfo(shape, "float32"))
    params = [x]
    w = rng.standard_normal((cout, cin // groups, 3, 3)).astype("float32")
    if layout != "NCHW":
        w = w.transpose(2, 3, 1, 0).copy()  # HWIO
    stats = [rng.random(cout).astype("float32") + 0.5 for _ in range(4)]
    gamma = relax.const(stats[0])
    if not const_gamma:
        gamma = relax.Var("g", relax.TensorStructInfo([cout], "float32"))
        params.append(gamma)
    bb = relax.BlockBuilder()
    with bb.function("main", params):
        with bb.dataflow():
            kw = {} if layout == "NCHW" else {"data_layout": "NHWC", "kernel_layout": "HWIO"}
            c = bb.emit(R.nn.conv2d(x, relax.const(w), padding=1, groups=groups, **kw))
            bn = bb.emit(R.nn.batch_norm(c, gamma, *[relax.const(s) for s in stats[1:]],
                                         axis=1 if layout == "NCHW" else 3, epsilon=eps,
                                         center=center, scale=scale, training=training))
            gv = bb.emit_output(R.nn.relu(relax.TupleGetItem(bn, 0)))
        bb.emit_func_output(gv)
    return bb.get(), stats[0]


def test_fold_batchnorm_example():
    rng = np.random.default_rng(0)
    mod, _ = conv_bn_module(rng, 3, 4)
    new = T.FoldBatchnormToConv2D()(mod)
    assert op_names(new) == ["relax.nn.conv2d", "relax.add", "relax.nn.relu"]
    xs = rng.standard_normal((2, 3, 6, 6)).astype("float32")
    assert_same_outputs(mod, new, xs, rtol=1e-4)


@pytest.mark.parametrize("case", ["training", "nhwc", "param_gamma", "conv_used_twice"])
def test_fold_batchnorm_refuses(case):
    rng = np.random.default_rng(0)
    if case == "conv_used_twice":
        x = relax.Var("x", relax.TensorStructInfo([1, 2, 4, 4], "float32"))
        bb = relax.BlockBuilder()
        with bb.function("main", [x]):
            with bb.dataflow():
                c = bb.emit(R.nn.conv2d(x, relax.const(np.ones((2, 2, 1, 1), "float32"))))
                bn = bb.emit(R.nn.batch_norm(c, *[relax.const(np.ones(2, "float32"))] * 4, training=False))
                gv = bb.emit_output(R.add(relax.TupleGetItem(bn, 0), c))
            bb.emit_func_output(gv)
        mod = bb.get()
    else:
        mod, _ = conv_bn_module(rng, 2, 2, training=case == "training",
                                layout="NHWC" if case == "nhwc" else "NCHW",
                                const_gamma=case != "param_gamma")
    new = T.FoldBatchnormToConv2D()(mod)
    assert "relax.nn.batch_norm" in op_names(new)
    assert tvm.ir.structural_equal(new["main"], mod["main"])


@settings(max_examples=10, deadline=None)
@given(st.integers(1, 3), st.integers(1, 3), st.booleans(), st.booleans(),
       st.sampled_from([1e-5, 1e-3, 0.1]), st.booleans(), st.integers(0, 2**16))
def test_fold_batchnorm_generated(cin, cmul, center, scale, eps, grouped, seed):
    rng = np.random.default_rng(seed)
    groups = cin if grouped else 1
    mod, _ = conv_bn_module(rng, cin, cin * cmul, groups=groups, eps=eps, center=center, scale=scale)
    new = T.FoldBatchnormToConv2D()(mod)
    assert "relax.nn.batch_norm" not in op_names(new)
    xs = rng.standard_normal((2, cin, 6, 6)).astype("float32")
    assert_same_outputs(mod, new, xs, rtol=1e-4)


# ---------------------------------------------------------------- the default pipeline

def test_default_pipeline_runs_the_simplifications():
    names = [p.info.name for p in relax.get_pipeline("default").passes]
    # RunCodegen first: functions partitioned for a library (partition_for_cublas) lower to
    # its calls before anything else sees them; it changes nothing in a module without them.
    assert names == ["relax.RunCodegen", "relax.CanonicalizeBindings", "relax.FoldBatchnormToConv2D",
                     "relax.ConvertLayout", "relax.FoldConstant", "relax.EliminateCommonSubexpr",
                     "relax.DeadCodeElimination", "relax.LegalizeOps", "relax.AnnotateTIROpPattern",
                     "relax.FuseOps", "relax.FuseTIR", "relax.DefaultSchedule", "relax.StartKernelBuild",
                     "relax.ToNonDataflow", "relax.RemovePurityChecking", "relax.CallTIRRewrite",
                     "relax.StaticPlanBlockMemory", "relax.LowerAllocTensor",
                     "relax.KillAfterLastUse", "relax.LowerRuntimeBuiltin", "relax.VMShapeLower",
                     "relax.AttachGlobalSymbol"]
    rng = np.random.default_rng(3)
    mod, _ = conv_bn_module(rng, 3, 4)
    xs = rng.standard_normal((2, 3, 6, 6)).astype("float32")
    ex = relax.build(mod)  # default pipeline
    got = relax.VirtualMachine(ex, tvm.cpu())["main"](tvm.runtime.tensor(xs)).numpy()
    np.testing.assert_allclose(got, run(mod, xs)[0], rtol=1e-4, atol=1e-5)


@settings(max_examples=15, deadline=None)
@given(rows=st.integers(1, 6), cols=st.integers(1, 6), scale=st.sampled_from([0.5, 2.0]))
def test_call_te_reuses_the_kernel_of_an_identical_call(rows, cols, scale):
    """BlockBuilder.call_te makes one PrimFunc per (te_func, static argument types, keyword
    values): a repeated layer calls its first kernel; another shape, dtype or keyword value,
    or a symbolic shape, gets a kernel of its own; every call computes what numpy does."""
    def scaled(t, factor):
        return te.compute(t.shape, lambda *i: t[i] * factor, name="scaled")

    x = relax.Var("x", relax.TensorStructInfo([rows, cols], "float32"))
    n = tir.Var("n", "int64")
    y = relax.Var("y", relax.TensorStructInfo([n, cols], "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x, y]):
        with bb.dataflow():
            c1 = bb.call_te(scaled, x, factor=scale)
            a = bb.emit(c1)
            c2 = bb.call_te(scaled, a, factor=scale)        # same types, same factor
            b = bb.emit(c2)
            c3 = bb.call_te(scaled, b, factor=scale + 1.0)  # another factor
            c = bb.emit(c3)
            t = bb.emit(R.permute_dims(c))
            c4 = bb.call_te(scaled, t, factor=scale)        # another shape (unless square)
            d = bb.emit(c4)
            c5 = bb.call_te(scaled, y, factor=scale)        # symbolic rows: never shared
            c6 = bb.call_te(scaled, y, factor=scale)
            e = bb.emit(c5)
            f = bb.emit(c6)
            out = bb.emit_output(relax.Tuple([d, e, f]))
        bb.emit_func_output(out)
    gvar = lambda call: str(call.args[0].name_hint)  # noqa: E731
    assert gvar(c1) == gvar(c2) and gvar(c3) != gvar(c1)
    assert (gvar(c4) == gvar(c1)) == (rows == cols)
    assert gvar(c5) != gvar(c6)
    mod = bb.get()
    ex = relax.build(mod, "llvm")
    vm = relax.VirtualMachine(ex, tvm.cpu())
    xs = np.random.default_rng(rows * 7 + cols).standard_normal((rows, cols)).astype("float32")
    ys = np.random.default_rng(cols).standard_normal((3, cols)).astype("float32")
    got = vm["main"](tvm.runtime.tensor(xs), tvm.runtime.tensor(ys))
    want = (xs * scale * scale * (scale + 1.0)).T * scale
    np.testing.assert_allclose(got[0].numpy(), want, rtol=1e-5)
    np.testing.assert_allclose(got[1].numpy(), ys * scale, rtol=1e-6)
    np.testing.assert_allclose(got[2].numpy(), ys * scale, rtol=1e-6)


@settings(max_examples=10, deadline=None)
@given(rows=st.integers(1, 6), cols=st.integers(1, 6))
def test_call_te_keys_integer_constants_by_dtype_and_value(rows, cols):
    """A keyword holding tir.IntImm values (a static shape as the struct info gives it: a
    reshape's newshape) keys call_te's kernel cache by dtype and value: two reshapes of one
    layer share a kernel (BERT's 24 made 24 before); another shape or dtype gets its own."""
    from tvm import topi

    imm = tir.IntImm
    x = relax.Var("x", relax.TensorStructInfo([rows, cols], "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        with bb.dataflow():
            c1 = bb.call_te(topi.reshape, x, newshape=[imm("int64", rows * cols)])
            c2 = bb.call_te(topi.reshape, x, newshape=[imm("int64", rows * cols)])
            c3 = bb.call_te(topi.reshape, x, newshape=[imm("int64", cols), imm("int64", rows)])
            c4 = bb.call_te(topi.reshape, x, newshape=[imm("int32", rows * cols)])
            outs = [bb.emit(c) for c in (c1, c2, c3, c4)]
            out = bb.emit_output(relax.Tuple(outs))
        bb.emit_func_output(out)
    gvar = lambda call: str(call.args[0].name_hint)  # noqa: E731
    assert gvar(c1) == gvar(c2)
    assert len({gvar(c1), gvar(c3), gvar(c4)}) == 3
    ex = relax.build(bb.get(), "llvm")
    xs = np.random.default_rng(rows * 7 + cols).standard_normal((rows, cols)).astype("float32")
    got = relax.VirtualMachine(ex, tvm.cpu())["main"](tvm.runtime.tensor(xs))
    for g, shape in zip(got, [(rows * cols,), (rows * cols,), (cols, rows), (rows * cols,)]):
        np.testing.assert_array_equal(g.numpy(), xs.reshape(shape))
