"""The VM lowering as passes with TVM's names: each pass's output printed and checked (what it
made explicit is in the IR), a user pipeline listing TVM's passes in TVM's order builds the
same results as the default build (generated inputs), custom passes written the way TVM users
write them (@relax.expr_functor.mutator), relax.analysis, and clear errors for IR that is not
lowered."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tvm
from tvm import relax, tir
from tvm.relax import op as R
from tvm.relax.backend import vm_codegen

T = relax.transform


def mlp(seed=0):
    """A dynamic-batch MLP with a computed dimension (a pooled width): x (n, 16)."""
    rng = np.random.default_rng(seed)
    w1 = rng.standard_normal((16, 32)).astype("float32") * 0.2
    w2 = rng.standard_normal((32, 8)).astype("float32") * 0.2
    n = tir.Var("n", "int64")
    x = relax.Var("x", relax.TensorStructInfo([n, 16], "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        with bb.dataflow():
            h = bb.emit(R.nn.relu(R.add(R.matmul(x, relax.const(w1)), relax.const(np.float32(0.5)))))
            y = bb.emit(R.matmul(h, relax.const(w2)))
            gv = bb.emit_output(R.nn.softmax(y, axis=-1))
        bb.emit_func_output(gv)
    return bb.get(), (w1, w2)


def cnn(seed=0):
    """Symbolic H, W through a conv and a pool: the shapes after them are computed dims."""
    rng = np.random.default_rng(seed)
    wt = rng.standard_normal((4, 2, 3, 3)).astype("float32") * 0.3
    h, w = tir.Var("h", "int64"), tir.Var("w", "int64")
    x = relax.Var("x", relax.TensorStructInfo([1, 2, h, w], "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        with bb.dataflow():
            c = bb.emit(R.nn.relu(R.nn.conv2d(x, relax.const(wt))))
            gv = bb.emit_output(R.nn.max_pool2d(c, 2, 2))
        bb.emit_func_output(gv)
    return bb.get()


def tvm_order_pipeline():
    """What a TVM user writes: TVM's pass names, in the order of TVM's default pipelines."""
    return tvm.transform.Sequential([
        T.LegalizeOps(), T.AnnotateTIROpPattern(), T.FoldConstant(), T.FuseOps(), T.FuseTIR(),
        T.ToNonDataflow(), T.RemovePurityChecking(), T.CallTIRRewrite(),
        T.StaticPlanBlockMemory(), T.LowerAllocTensor(), T.KillAfterLastUse(),
        T.LowerRuntimeBuiltin(), T.VMShapeLower(), T.AttachGlobalSymbol(),
    ])


def run(ex, *arrays):
    vm = relax.VirtualMachine(ex, tvm.cpu())
    return vm["main"](*[tvm.runtime.tensor(a) for a in arrays]).numpy()


def test_each_lowering_pass_shows_its_work_in_the_printed_ir():
    mod, _ = mlp()
    mod = T.LegalizeOps()(mod)
    steps = {}
    for p in [T.ToNonDataflow(), T.RemovePurityChecking(), T.CallTIRRewrite(),
              T.StaticPlanBlockMemory(), T.LowerAllocTensor(), T.KillAfterLastUse(),
              T.LowerRuntimeBuiltin(), T.VMShapeLower()]:
        mod = p(mod)
        assert relax.analysis.well_formed(mod), relax.analysis.well_formed_errors(mod)
        steps[p.info.name.split(".")[-1]] = str(mod["main"])
    assert "R.dataflow" not in steps["ToNonDataflow"]
    text = steps["CallTIRRewrite"]
    assert "call_tir" not in text and text.count("R.builtin.alloc_tensor(") == 5
    text = steps["StaticPlanBlockMemory"]      # n is unbounded: nothing static to plan
    assert "R.memory.alloc_storage" not in text and "R.builtin.alloc_tensor(" in text
    text = steps["LowerAllocTensor"]
    assert "R.builtin.alloc_tensor(" not in text
    assert text.count("R.memory.alloc_storage(") == 5 and text.count("R.memory.alloc_tensor(") == 5
    text = steps["KillAfterLastUse"]
    assert "R.memory.kill_tensor(" in text and "R.memory.kill_storage(" in text
    assert "R.vm.kill_object(" in text
    text = steps["LowerRuntimeBuiltin"]
    assert "R.memory." not in text and "R.vm.alloc_storage(" in text and "R.vm.alloc_tensor(" in text
    text = steps["VMShapeLower"]
    assert "vm.builtin.alloc_shape_heap" in text and "vm.builtin.match_shape" in text
    assert "vm.builtin.make_shape" in text and "vm.builtin.check_tensor_info" in text
    assert "R.match_cast" not in text
    # the storage sizes n * 16 etc. are computed dims: a TIR shape function in the module
    assert any(str(k).startswith("__vm_shape_func_main") for k in mod.functions.keys())


@settings(max_examples=6, deadline=None)
@given(dims=st.lists(st.integers(1, 6), min_size=1, max_size=4), symbolic=st.booleans(),
       seed=st.integers(0, 50))
def test_a_returned_tensor_of_static_size_needs_no_shape_function(dims, symbolic, seed):
    """LowerAllocTensor folds the static dimensions of a storage's size into one constant: a
    returned tensor of static shape is allocated with an immediate size (no shape heap, no
    TIR shape function called at every run); with a symbolic batch the size is n times one
    constant. Either way the result is exact."""
    n = tir.Var("n", "int64") if symbolic else dims[0]
    x = relax.Var("x", relax.TensorStructInfo([n] + dims[1:], "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        with bb.dataflow():
            gv = bb.emit_output(R.exp(x))
        bb.emit_func_output(gv)
    mod = bb.get()
    lowered = tvm.transform.Sequential([T.LegalizeOps(), T.ToNonDataflow(), T.CallTIRRewrite(),
                                        T.StaticPlanBlockMemory(), T.LowerAllocTensor()])(mod)
    text = str(lowered["main"])
    static = int(np.prod(dims[1:])) * (1 if symbolic else dims[0])
    size = ("(n * T.int64(%d))" % static if static != 1 else "n") if symbolic else "T.int64(%d)" % static
    assert "R.memory.alloc_storage(R.shape([%s])" % size in text, text
    ex = relax.build(mod, "llvm")
    assert ("alloc_shape_heap" in ex.as_text()) == symbolic
    a = np.random.default_rng(seed).standard_normal(dims).astype("float32")
    np.testing.assert_allclose(run(ex, a), np.exp(a), rtol=1e-6)


def test_static_plan_shows_storages_when_bounded():
    mod, _ = mlp()
    mod = tvm.IRModule({"main": mod["main"].with_attr("tir_var_upper_bound", {"n": 8})})
    mod = tvm.transform.Sequential([T.LegalizeOps(), T.ToNonDataflow(), T.CallTIRRewrite(),
                                    T.StaticPlanBlockMemory()])(mod)
    text = str(mod["main"])
    # 5 outputs: the returned one keeps its own allocation, 4 intermediates share 2 storages
    assert text.count("R.memory.alloc_storage(") == 2
    assert text.count("R.memory.alloc_tensor(") == 4 and text.count("R.builtin.alloc_tensor(") == 1


@settings(max_examples=8, deadline=None)
@given(n=st.integers(1, 9), seed=st.integers(0, 50))
def test_user_pipeline_in_tvm_order_matches_the_default_build(n, seed):
    mod, (w1, w2) = mlp(seed % 3)
    x = np.random.default_rng(seed).standard_normal((n, 16)).astype("float32")
    ours = run(tvm.compile(mod, "llvm", relax_pipeline=tvm_order_pipeline()), x)
    default = run(tvm.compile(mod, "llvm"), x)
    y = np.maximum(x @ w1 + 0.5, 0) @ w2
    want = np.exp(y - y.max(-1, keepdims=True))
    want /= want.sum(-1, keepdims=True)
    np.testing.assert_allclose(ours, default, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ours, want, rtol=1e-4, atol=1e-6)


@settings(max_examples=6, deadline=None)
@given(h=st.integers(4, 12), w=st.integers(4, 12))
def test_user_pipeline_computed_dims_match_the_default_build(h, w):
    mod = cnn()
    x = np.random.default_rng(h * 31 + w).standard_normal((1, 2, h, w)).astype("float32")
    a = run(relax.build(mod, target="llvm", relax_pipeline=tvm_order_pipeline()), x)
    b = run(relax.build(mod, target="llvm"), x)
    assert a.shape == (1, 4, (h - 2) // 2, (w - 2) // 2)
    np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_pipeline_stages_are_tvms_pieces():
    from tvm.relax.backend import cpu_generic, cuda

    target = tvm.target.Target("llvm")
    stages = [cpu_generic.library_dispatch_passes(target), cpu_generic.legalize_passes(target),
              cpu_generic.dataflow_lower_passes(target), cpu_generic.finalize_passes(target)]
    names = [[p.info.name for p in s] for s in stages]
    assert names[2] == ["relax.ToNonDataflow", "relax.RemovePurityChecking", "relax.CallTIRRewrite"]
    assert names[3] == ["relax.StaticPlanBlockMemory", "relax.LowerAllocTensor",
                        "relax.KillAfterLastUse", "relax.LowerRuntimeBuiltin", "relax.VMShapeLower",
                        "relax.AttachGlobalSymbol"]
    assert [p.info.name for p in cuda.finalize_passes(tvm.target.Target("cuda -arch=sm_80"))] == names[3]
    # a pipeline assembled from the pieces builds like the default one
    mod, _ = mlp()
    seq = tvm.transform.Sequential([p for s in stages for p in s])
    x = np.ones((3, 16), "float32")
    np.testing.assert_allclose(run(relax.build(mod, "llvm", relax_pipeline=seq), x),
                               run(relax.build(mod, "llvm"), x), rtol=1e-6)
    assert [p.info.name for p in relax.pipeline.default_build_pipeline().passes] == \
        [p.info.name for p in seq.passes]


def test_vm_codegen_names_the_missing_pass():
    mod, _ = mlp()
    with pytest.raises(ValueError, match="CallTIRRewrite"):
        vm_codegen(T.ToNonDataflow()(T.LegalizeOps()(mod)))
    lowered = tvm.transform.Sequential([T.LegalizeOps(), T.ToNonDataflow(), T.CallTIRRewrite()])(mod)
    with pytest.raises(ValueError, match="LowerAllocTensor or LowerRuntimeBuiltin"):
        vm_codegen(lowered)
    with pytest.raises(ValueError, match="not legalized"):
        T.LowerRuntimeBuiltin()(T.ToNonDataflow()(mod))


def test_build_keywords_are_tvms_and_unknown_ones_fail():
    mod, _ = mlp()
    with pytest.raises(TypeError):
        relax.build(mod, "llvm", pipeline="zero")      # TVM's keyword is relax_pipeline
    with pytest.raises(TypeError):
        tvm.compile(mod, "llvm", memory_plan=False)
    with pytest.raises(ValueError, match="exec_mode"):
        relax.build(mod, "llvm", exec_mode="compiled")
    x = np.ones((2, 16), "float32")
    a = run(relax.build(mod, target="llvm", relax_pipeline="zero", tir_pipeline="default"), x)
    np.testing.assert_allclose(a, run(relax.build(mod, "llvm"), x), rtol=1e-5)


@relax.expr_functor.mutator
class AddToMultiply(relax.PyExprMutator):
    """A custom pass as TVM's tutorials write one."""

    def visit_call_(self, call):
        call = self.visit_expr_post_order(call)
        if call.op == tvm.ir.Op.get("relax.add"):
            return R.multiply(call.args[0], call.args[1])
        return call


@tvm.transform.module_pass(opt_level=0, name="AddToMultiply")
def add_to_multiply(mod, ctx):
    m = AddToMultiply(mod)
    for gv, func in mod.functions.items():
        if isinstance(func, relax.Function):
            m.builder_.update_func(gv, m.visit_expr(func))
    return m.builder_.get()


@settings(max_examples=6, deadline=None)
@given(a=st.floats(-4, 4, width=32), b=st.floats(-4, 4, width=32))
def test_custom_mutator_pass_in_a_pipeline(a, b):
    x = relax.Var("x", relax.TensorStructInfo([3], "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        with bb.dataflow():
            gv = bb.emit_output(R.add(R.add(x, relax.const(np.float32(b))), x))
        bb.emit_func_output(gv)
    mod = bb.get()
    new = add_to_multiply(mod)
    assert "relax.add" not in str(new) and "R.multiply" in str(new)
    xs = np.full(3, a, "float32")
    seq = tvm.transform.Sequential([add_to_multiply, relax.get_pipeline("default")])
    np.testing.assert_allclose(run(tvm.compile(mod, "llvm", relax_pipeline=seq), xs),
                               xs * np.float32(b) * xs, rtol=1e-6)
    with pytest.raises(TypeError, match="PyExprMutator"):
        relax.expr_functor.mutator(int)


def test_analysis_on_a_function():
    mod, _ = mlp()
    f = mod["main"]
    x = f.params[0]
    bindings = relax.analysis.function_bindings(f)
    chain = relax.analysis.udchain(f)
    assert chain[bindings[0].var] == [bindings[1].var]          # matmul -> add
    assert relax.analysis.free_vars(bindings[0].value) == [x]
    assert set(relax.analysis.all_vars(f)) == {x} | {b.var for b in bindings}
    assert relax.analysis.get_var2val(f)[bindings[0].var].same_as(bindings[0].value)
    assert relax.analysis.well_formed(mod)
    # a variable used outside its dataflow block is reported
    y = relax.DataflowVar("y", relax.TensorStructInfo([2], "float32"))
    p = relax.Var("p", relax.TensorStructInfo([2], "float32"))
    bad = relax.Function([p], relax.SeqExpr([relax.DataflowBlock([relax.VarBinding(y, p)])], y))
    assert not relax.analysis.well_formed(bad)
    assert "outside its dataflow block" in relax.analysis.well_formed_errors(bad)[0]


def test_mutator_and_analysis_walk_a_nested_seq_expr():
    """A binding whose value is a SeqExpr of its own: the walkers visit and rebuild it."""
    sinfo = relax.TensorStructInfo([4], "float32")
    x = relax.Var("x", sinfo)
    t = relax.Var("t", sinfo)
    y = relax.Var("y", sinfo)
    inner = relax.SeqExpr([relax.BindingBlock([relax.VarBinding(t, R.add(x, x))])], t)
    f = relax.Function([x], relax.SeqExpr([relax.BindingBlock([relax.VarBinding(y, inner)])], y))
    f = f.with_attr("global_symbol", "main")
    mod = tvm.IRModule({"main": f})
    assert relax.analysis.free_vars(inner) == [x]
    assert relax.analysis.bound_vars(inner) == [t]
    assert relax.analysis.well_formed(mod)
    new = add_to_multiply(mod)
    nested = relax.analysis.function_bindings(new["main"])[0].value
    assert isinstance(nested, relax.SeqExpr) and len(nested.blocks) == 1
    inner_value = nested.blocks[0].bindings[0].value
    assert inner_value.op == tvm.ir.Op.get("relax.multiply")
    assert [a.same_as(new["main"].params[0]) for a in inner_value.args] == [True, True]
    assert relax.analysis.well_formed(new)
