"""Fusion the way TVM users run it: LegalizeOps, AnnotateTIROpPattern, FuseOps, FuseTIR as
separate passes in a tvm.transform.Sequential. Op patterns read from PrimFuncs, groups made
into primitive functions and then into one PrimFunc each, and on generated graphs: the fused
build computes what the unfused one does, with fewer kernels."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tvm
from tvm import relax, te, tir
from tvm.ir import _api
from tvm.relax import op as R
from tvm.relax.transform import AnnotateTIROpPattern, FuseOps, FuseTIR, LegalizeOps

FUSION = [LegalizeOps(), AnnotateTIROpPattern(), FuseOps(), FuseTIR()]


def prim_funcs(mod):
    return {str(k): f for k, f in mod.functions.items() if not isinstance(f, relax.Function)}


def relax_funcs(mod):
    return {str(k): f for k, f in mod.functions.items() if isinstance(f, relax.Function)}


def pattern_of(fn, *shapes):
    ts = [te.placeholder(s, "float32", "a%d" % i) for i, s in enumerate(shapes)]
    out = fn(*ts)
    return int(_api("relax.analysis.PrimFuncOpPattern")(te.create_prim_func(ts + [out])))


def test_op_patterns_read_from_prim_funcs():
    k = te.reduce_axis((0, 8), "k")
    assert pattern_of(lambda a: te.compute((4, 8), lambda i, j: tir.exp(a[i, j])), (4, 8)) == 0
    assert pattern_of(lambda a, b: te.compute((4, 8), lambda i, j: a[i, j] + b[j]), (4, 8), (8,)) == 1
    assert pattern_of(lambda a, b: te.compute((4, 8), lambda i, j: a[i, j] * b[0, j]), (4, 8), (1, 8)) == 1
    assert pattern_of(lambda a: te.compute((8, 4), lambda i, j: a[j, i]), (4, 8)) == 2
    assert pattern_of(lambda a: te.compute((32,), lambda i: a[i // 8, i % 8]), (4, 8)) == 2
    assert pattern_of(lambda a: te.compute((4,), lambda i: te.sum(a[i, k], axis=k)), (4, 8)) == 3
    assert pattern_of(lambda a, b: te.compute((4, 4), lambda i, j: te.sum(a[i, k] * b[j, k], axis=k)),
                      (4, 8), (4, 8)) == 4
    x = relax.Var("x", relax.TensorStructInfo([4, 8], "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        with bb.dataflow():
            gv = bb.emit_output(R.nn.softmax(x))
        bb.emit_func_output(gv)
    mod = AnnotateTIROpPattern()(LegalizeOps()(bb.get()))
    (softmax,) = prim_funcs(mod).values()
    assert int(softmax.attrs["op_pattern"]) == 8  # several reductions: fusion leaves it alone


def mlp_module(w1, b1, w2):
    n = tir.Var("n", "int64")
    x = relax.Var("x", relax.TensorStructInfo([n, w1.shape[0]], "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        with bb.dataflow():
            h = bb.emit(R.nn.relu(R.add(R.matmul(x, relax.const(w1)), relax.const(b1))))
            gv = bb.emit_output(R.multiply(R.matmul(h, relax.const(w2)), relax.const(np.float32(2.0))))
        bb.emit_func_output(gv)
    return bb.get()


def test_tvm_style_fusion_sequence():
    rng = np.random.default_rng(0)
    w1, b1, w2 = (rng.standard_normal(s).astype("float32") for s in ((16, 8), (8,), (8, 4)))
    mod = mlp_module(w1, b1, w2)
    fused_groups = tvm.transform.Sequential(FUSION[:3])(mod)
    prims = [f for f in relax_funcs(fused_groups).values() if "Primitive" in f.attrs]
    assert len(prims) == 2  # matmul+add+relu, matmul+multiply
    fused = tvm.transform.Sequential(FUSION)(mod)
    assert sorted(prim_funcs(fused)) == ["fused_matmul1_multiply", "fused_matmul_add_relu"]
    assert list(relax_funcs(fused)) == ["main"]  # the primitive functions are gone
    for batch in (1, 5):
        x = rng.standard_normal((batch, 16)).astype("float32")
        vm = relax.VirtualMachine(relax.build(fused, "llvm", relax_pipeline=None), tvm.cpu())
        got = vm["main"](tvm.runtime.tensor(x)).numpy()
        np.testing.assert_allclose(got, (np.maximum(x @ w1 + b1, 0) @ w2) * 2, rtol=1e-5, atol=1e-5)


def test_fuse_opt_level_zero_fuses_nothing():
    mod = LegalizeOps()(mlp_module(*(np.ones(s, "float32") for s in ((16, 8), (8,), (8, 4)))))
    mod = AnnotateTIROpPattern()(mod)
    assert tvm.ir.structural_equal(FuseOps(fuse_opt_level=0)(mod), mod)
    with tvm.transform.PassContext(opt_level=0):
        assert tvm.ir.structural_equal(FuseOps()(mod), mod)


def test_one_prim_func_called_twice_in_a_group():
    """The same PrimFunc twice in one group: its loops are copied with fresh variables, so the
    fused function can still be scheduled (schedules name loops by their variable)."""
    a = te.placeholder((6, 10), "float32", "a")
    f = te.create_prim_func([a, te.compute((6, 10), lambda i, j: a[i, j] * 0.5 + 1.0, name="affine")])
    x = relax.Var("x", relax.TensorStructInfo([6, 10], "float32"))
    bb = relax.BlockBuilder()
    gv = bb.add_func(f.with_attr("global_symbol", "affine"), "affine")
    sinfo = relax.TensorStructInfo([6, 10], "float32")
    with bb.function("main", [x]):
        with bb.dataflow():
            y = bb.emit(R.call_tir(gv, [x], sinfo))
            y = bb.emit(R.call_tir(gv, [y], sinfo))
            out = bb.emit_output(R.call_tir(gv, [y], sinfo))
        bb.emit_func_output(out)
    fused = tvm.transform.Sequential(FUSION[1:])(bb.get())
    (name,) = prim_funcs(fused)
    assert name == "fused_affine_affine_affine"
    ex = relax.build(fused, "llvm")  # the default pipeline schedules the fused function
    xn = np.random.default_rng(1).standard_normal((6, 10)).astype("float32")
    got = relax.VirtualMachine(ex, tvm.cpu())["main"](tvm.runtime.tensor(xn)).numpy()
    ref = xn
    for _ in range(3):
        ref = ref * 0.5 + 1.0
    np.testing.assert_allclose(got, ref, rtol=1e-6)


def test_fuse_prim_funcs_rejects_bad_descriptions():
    a = te.placeholder((4,), "float32", "a")
    f = te.create_prim_func([a, te.compute((4,), lambda i: a[i] + 1.0, name="inc")])
    fuse = _api("relax.transform.FusePrimFuncs")
    shape = [tir.IntImm("int64", 4)]
    with pytest.raises(IndexError, match="out of range"):
        fuse([f], [[0, 7]], [shape, shape], ["float32", "float32"], 1, [1], "bad")
    with pytest.raises(ValueError, match="takes 2 arguments"):
        fuse([f], [[0]], [shape, shape], ["float32", "float32"], 1, [1], "bad")
    with pytest.raises(ValueError, match="rank or dtype"):
        fuse([f], [[0, 1]], [shape, shape], ["float32", "int32"], 1, [1], "bad")


# ---- generated graphs: fused == unfused ----

_UNARY = {"relu": (R.nn.relu, lambda v: np.maximum(v, 0)), "exp": (R.exp, np.exp),
          "neg": (R.negative, np.negative), "sigmoid": (R.sigmoid, lambda v: 1 / (1 + np.exp(-v)))}


@st.composite
def graphs(draw):
    """A chain over a [rows, cols] input: matmuls, row-broadcast adds, unary ops, sums, a
    transpose pair, softmax; each step's numpy twin alongside."""
    rows, cols = draw(st.integers(1, 6)), draw(st.integers(1, 12))
    steps = draw(st.lists(st.sampled_from(["matmul", "bias", "unary", "mul_self", "transpose2",
                                           "softmax", "sum_keep"]), min_size=1, max_size=8))
    consts = draw(st.integers(0, 2**31 - 1))
    unary = draw(st.lists(st.sampled_from(sorted(_UNARY)), min_size=len(steps), max_size=len(steps)))
    return rows, cols, steps, unary, consts


def build_graph(rows, cols, steps, unary, seed):
    rng = np.random.default_rng(seed)
    x = relax.Var("x", relax.TensorStructInfo([rows, cols], "float32"))
    bb = relax.BlockBuilder()
    ref = [lambda v: v]
    with bb.function("main", [x]):
        with bb.dataflow():
            h, c = x, cols
            for step, u in zip(steps, unary):
                f = ref[-1]
                if step == "matmul":
                    w = (rng.standard_normal((c, 5)) * 0.3).astype("float32")
                    h, c = bb.emit(R.matmul(h, relax.const(w))), 5
                    ref.append(lambda v, f=f, w=w: f(v) @ w)
                elif step == "bias":
                    b = rng.standard_normal(c).astype("float32")
                    h = bb.emit(R.add(h, relax.const(b)))
                    ref.append(lambda v, f=f, b=b: f(v) + b)
                elif step == "unary":
                    h = bb.emit(_UNARY[u][0](h))
                    ref.append(lambda v, f=f, g=_UNARY[u][1]: g(f(v)))
                elif step == "mul_self":
                    h = bb.emit(R.multiply(h, h))
                    ref.append(lambda v, f=f: f(v) * f(v))
                elif step == "transpose2":
                    h = bb.emit(R.permute_dims(R.permute_dims(h, [1, 0]), [1, 0]))
                    ref.append(f)
                elif step == "softmax":
                    h = bb.emit(R.nn.softmax(h))
                    ref.append(lambda v, f=f: np.exp(f(v) - f(v).max(-1, keepdims=True))
                               / np.exp(f(v) - f(v).max(-1, keepdims=True)).sum(-1, keepdims=True))
                else:
                    h, c = bb.emit(R.sum(h, axis=[1], keepdims=True)), 1
                    ref.append(lambda v, f=f: f(v).sum(1, keepdims=True))
            gv = bb.emit_output(R.tanh(h))
        bb.emit_func_output(gv)
    return bb.get(), (lambda v: np.tanh(ref[-1](v)))


@settings(max_examples=8, deadline=None)
@given(rows=st.integers(1, 20), k=st.integers(1, 40), n=st.sampled_from([5, 16, 48]), seed=st.integers(0, 2**16))
def test_add_of_two_groups_joins_the_matmul(rows, k, n, seed):
    """scores = x @ w, mask = (1 - m) * -1e4 (an elementwise group of its own), scores + mask:
    the add could join either producer; it joins the matmul's group (its write-back), as in
    an attention block, leaving two kernels, and computes what numpy does."""
    rng = np.random.default_rng(seed)
    w = rng.standard_normal((k, n)).astype("float32")
    x = relax.Var("x", relax.TensorStructInfo([rows, k], "float32"))
    m = relax.Var("m", relax.TensorStructInfo([n], "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x, m]):
        with bb.dataflow():
            scores = bb.emit(R.matmul(x, relax.const(w)))
            mask = bb.emit(R.multiply(R.subtract(relax.const(np.float32(1)), m), relax.const(np.float32(-1e4))))
            out = bb.emit_output(R.add(scores, mask))
        bb.emit_func_output(out)
    mod = bb.get()
    fused = tvm.transform.Sequential(FUSION)(mod)
    names = sorted(prim_funcs(fused))
    assert len(names) == 2 and any("matmul" in name and "add" in name for name in names), names
    xv = rng.standard_normal((rows, k)).astype("float32")
    mv = (rng.uniform(0, 1, n) > 0.5).astype("float32")
    zero, default = _run_both(mod, xv, mv)
    np.testing.assert_allclose(default, zero, rtol=1e-4, atol=1e-3)
    np.testing.assert_allclose(default, xv.astype("float64") @ w + (1 - mv) * -1e4, rtol=1e-4, atol=1e-2)


@settings(max_examples=20, deadline=None)
@given(graphs())
def test_fused_build_equals_unfused(g):
    rows, cols, steps, unary, seed = g
    mod, ref = build_graph(rows, cols, steps, unary, seed)
    x = np.random.default_rng(seed).uniform(-1, 1, (rows, cols)).astype("float32")
    outs = {}
    for pipeline in ("zero", "default"):
        vm = relax.VirtualMachine(relax.build(mod, "llvm", relax_pipeline=pipeline), tvm.cpu())
        outs[pipeline] = vm["main"](tvm.runtime.tensor(x)).numpy()
    np.testing.assert_allclose(outs["default"], outs["zero"], rtol=1e-4, atol=1e-5)
    with np.errstate(over="ignore"):
        np.testing.assert_allclose(outs["default"], ref(x.astype("float64")), rtol=1e-3, atol=1e-4)
    unfused = prim_funcs(LegalizeOps()(mod))
    fused = prim_funcs(tvm.transform.Sequential(FUSION)(mod))
    assert len(fused) <= len(unfused)
    # each fused kernel is one call: no primitive Relax function survives FuseTIR
    assert list(relax_funcs(tvm.transform.Sequential(FUSION)(mod))) == ["main"]


# ---- DefaultSchedule's register tile ----

@settings(max_examples=60, deadline=None)
@given(lanes=st.sampled_from([4, 8, 16]), ext_i=st.one_of(st.none(), st.integers(0, 300)),
       ext_j=st.one_of(st.none(), st.integers(0, 300)), product=st.booleans())
def test_tile_shape_fits_the_registers_and_divides_rows_when_it_can(lanes, ext_i, ext_j,
                                                                    product):
    from tvm.relax.transform.default_schedule import tile_shape

    rows, cols = tile_shape(lanes, ext_i, ext_j, product=product)
    accumulators = rows * max(1, cols // lanes)
    assert accumulators <= (12 if lanes == 8 else 16)
    if lanes == 16 and cols == 8:
        # AVX-512's half-width tile: only where 8 columns divide the extent and 16 do not
        assert ext_j is not None and ext_j % 16 == 8 and (ext_j <= 24 or not product)
    else:
        assert cols % lanes == 0
    if ext_i is not None and any(ext_i % r == 0 for r in (4, 2) if r <= rows):
        assert ext_i % rows == 0  # no predicated tail when a divisor is available
    if lanes in (8, 16) and ext_i is not None and ext_i > 2 and ext_j in (8, 24):
        assert cols == 8  # 24 channels: three 8-wide columns, no padded half panel
    if lanes == 16 and ext_i is not None and ext_i > 2 and ext_j is not None and ext_j % 32 == 0:
        assert cols == 32  # AVX-512: two vectors a row, not a broadcast per FMA


@pytest.mark.parametrize("mattr,channels,padded", [
    ("+avx512f", 16, 16), ("+avx512f", 24, 32), ("+avx512f", 64, 64), ("+avx512f", 80, 80),
    ("+avx2", 16, 16), ("+avx2", 24, 24), ("+avx2", 40, 48)])
def test_conv_output_channels_pad_only_to_the_tile_columns(mattr, channels, padded):
    """A conv's output channels are padded to the register tile's columns, no further: on an
    AVX-512 CPU a 16-channel conv (SqueezeNet's squeeze layers) is not padded to the 32
    columns of the two-vector tile, and the packed weights' panels match the tile."""
    from tvm.relax.transform.default_schedule import tile_shape
    from tvm.relax.transform.legalize_nn import _pixel_tile, _tile_cols

    target = tvm.target.Target("llvm -mcpu=x86-64 -mattr=" + mattr)
    with target:
        pixels, o_pad = _pixel_tile((14, 14), channels)
        assert o_pad == padded and pixels >= 196
        cols = _tile_cols(pixels, o_pad)
        assert o_pad % cols == 0
        assert tile_shape(target.fp32_lanes, pixels, o_pad)[1] == cols


@settings(max_examples=60, deadline=None)
@given(lanes=st.sampled_from([4, 8, 16]), ext_i=st.integers(1, 5000))
def test_row_padding_pads_little_and_makes_the_best_tile_divide(lanes, ext_i):
    from tvm.relax.transform.default_schedule import row_padding, tile_shape

    r = row_padding(lanes, ext_i)
    if r is None:
        return
    padded = -(-ext_i // r) * r
    assert (padded - ext_i) * 8 <= ext_i and ext_i % r != 0
    assert tile_shape(lanes, padded, 64)[0] == r
    unpadded = tile_shape(lanes, ext_i, 64)[0]
    assert unpadded < r or ext_i % unpadded != 0  # a bigger tile, or no predicated one


def test_target_scope_and_lanes():
    from tvm.target import Target

    assert Target.current() is None
    with Target("llvm -mtriple=aarch64-linux-gnu") as t:
        assert Target.current() is t and t.fp32_lanes == 4
        with Target("llvm -mcpu=haswell -mattr=+avx2,+fma") as inner:
            assert Target.current() is inner and inner.fp32_lanes == 8
        assert Target.current() is t
    assert Target.current() is None
    with pytest.raises(ValueError, match="no target"):
        Target.current(allow_none=False)
    assert Target("llvm -mattr=+avx512f").fp32_lanes == 16


def test_host_lanes_without_llvm_agree_with_llvm():
    """The host's lanes come from /proc/cpuinfo's flags on x86-64 Linux (no wait for
    llvmlite's library); they must be what LLVM's own host features say."""
    import llvmlite.binding as llvm
    from tvm import target as target_mod

    features = llvm.get_host_cpu_features().flatten()
    from_llvm = target_mod._lanes_of(features, llvm.get_process_triple())
    assert target_mod.Target("llvm").fp32_lanes == from_llvm
    # the same triple named explicitly goes through LLVM's features
    assert target_mod.Target("llvm -mtriple=%s" % llvm.get_process_triple()).fp32_lanes == from_llvm
    flags = target_mod._x86_vector_flags()
    if flags is not None:
        assert ("avx512f" in flags) == ("+avx512f" in features)
        assert ("avx" in flags) == ("+avx" in features)


# ---- DefaultSchedule: elementwise chains and matmul epilogues in one pass ----

def _scheduled(mod):
    with tvm.target.Target("llvm"):
        return prim_funcs(relax.get_pipeline("default")(mod))


def _run_both(mod, *args):
    outs = []
    for pipeline in ("zero", "default"):
        vm = relax.VirtualMachine(relax.build(mod, "llvm", relax_pipeline=pipeline), tvm.cpu())
        outs.append(vm["main"](*[tvm.runtime.tensor(a) for a in args]).numpy())
    return outs


@settings(max_examples=8, deadline=None)
@given(rows=st.integers(1, 40), cols=st.sampled_from([1, 7, 8, 24, 100]), seed=st.integers(0, 2**16))
def test_elementwise_chain_runs_as_one_nest(rows, cols, seed):
    """GELU as exporters write it (divide, erf, add, multiply, multiply): one fused kernel
    whose stages are all inlined (no intermediate tensor), equal to the unscheduled build."""
    x = relax.Var("x", relax.TensorStructInfo([1, rows, cols], "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        with bb.dataflow():
            h = bb.emit(R.divide(x, relax.const(np.float32(np.sqrt(2)))))
            h = bb.emit(R.add(R.erf(h), relax.const(np.float32(1))))
            h = bb.emit(R.multiply(R.multiply(x, h), relax.const(np.float32(0.5))))
            out = bb.emit_output(h)
        bb.emit_func_output(out)
    mod = bb.get()
    (kernel,) = [f for name, f in _scheduled(mod).items() if name.startswith("fused")]
    assert "alloc_buffer" not in str(kernel)
    data = np.random.default_rng(seed).uniform(-4, 4, (1, rows, cols)).astype("float32")
    zero, default = _run_both(mod, data)
    np.testing.assert_allclose(default, zero, rtol=1e-5, atol=1e-6)


@settings(max_examples=8, deadline=None)
@given(m=st.integers(1, 70), k=st.integers(1, 90), n=st.sampled_from([16, 32, 48, 80]),
       seed=st.integers(0, 2**16))
def test_batch1_matmul_bias_joins_the_write_back(m, k, n, seed):
    """(1, m, k) @ W + b: the bias add (reading the size-1 batch of the product) is folded into
    the register tile's write-back, which stores vectors; equal to the unscheduled build."""
    rng = np.random.default_rng(seed)
    x = relax.Var("x", relax.TensorStructInfo([1, m, k], "float32"))
    w, b = rng.standard_normal((k, n)).astype("float32"), rng.standard_normal(n).astype("float32")
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        with bb.dataflow():
            out = bb.emit_output(R.add(R.matmul(x, relax.const(w)), relax.const(b)))
        bb.emit_func_output(out)
    mod = bb.get()
    (kernel,) = [f for name, f in _scheduled(mod).items() if "matmul" in name]
    text = str(kernel)
    assert "alloc_buffer((T.int64(1), T.int64(%d), T.int64(%d)), \"float32\")" % (m, n) not in text
    import re

    (write_back,) = re.findall(r'T\.block\("(\w+_local)"\)', text)
    sch = tir.Schedule(kernel)
    inner = sch.get(sch.get_loops(sch.get_block(write_back))[-1])
    assert int(inner.kind) == tir.expr.ForKind.VECTORIZED
    data = rng.standard_normal((1, m, k)).astype("float32")
    zero, default = _run_both(mod, data)
    np.testing.assert_allclose(default, zero, rtol=1e-4, atol=1e-4)


_ROW_OPS = {
    "sum": (lambda x: R.sum(x, axis=[-1]), lambda a: a.sum(-1)),
    "max": (lambda x: R.max(x, axis=[-1]), lambda a: a.max(-1)),
    "mean": (lambda x: R.mean(x, axis=[-1], keepdims=True), lambda a: a.mean(-1, keepdims=True)),
    "softmax": (lambda x: R.nn.softmax(x, axis=-1),
                lambda a: np.exp(a - a.max(-1, keepdims=True)) / np.exp(a - a.max(-1, keepdims=True)).sum(-1, keepdims=True)),
}


@settings(max_examples=16, deadline=None)
@given(op=st.sampled_from(sorted(_ROW_OPS)), rows=st.integers(1, 50), k=st.sampled_from([3, 8, 16, 24, 40, 128]),
       seed=st.integers(0, 2**16))
def test_row_reductions_read_whole_vectors(op, rows, k, seed):
    """A reduction over the contiguous last axis runs as vector-width partial results
    (rfactor) when the axis is whole vectors (at least two), and computes what the
    unscheduled kernel does in every case."""
    x = relax.Var("x", relax.TensorStructInfo([2, rows, k], "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        with bb.dataflow():
            out = bb.emit_output(_ROW_OPS[op][0](x))
        bb.emit_func_output(out)
    mod = bb.get()
    text = "\n".join(str(f) for f in _scheduled(mod).values())
    lanes = tvm.target.Target("llvm").fp32_lanes
    assert ("_rf = T.alloc_buffer" in text) == (k % lanes == 0 and k >= 2 * lanes)
    data = np.random.default_rng(seed).uniform(-3, 3, (2, rows, k)).astype("float32")
    zero, default = _run_both(mod, data)
    np.testing.assert_allclose(default, zero, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(default, _ROW_OPS[op][1](data.astype("float64")), rtol=1e-4, atol=1e-5)


_ROW_WISE = {
    "softmax": lambda x, d: R.nn.softmax(x, axis=-1),
    "layer_norm": lambda x, d: R.nn.layer_norm(x, relax.const(np.linspace(0.5, 2, d, dtype="float32")),
                                               relax.const(np.linspace(-1, 1, d, dtype="float32")), axes=[-1]),
    "mean": lambda x, d: R.mean(x, axis=[-1], keepdims=True),
}


def _row_wise_reference(op, a):
    if op == "softmax":
        e = np.exp(a - a.max(-1, keepdims=True))
        return e / e.sum(-1, keepdims=True)
    if op == "mean":
        return a.mean(-1, keepdims=True)
    d = a.shape[-1]
    norm = (a - a.mean(-1, keepdims=True)) / np.sqrt(a.var(-1, keepdims=True) + 1e-5)
    return norm * np.linspace(0.5, 2, d) + np.linspace(-1, 1, d)


@settings(max_examples=16, deadline=None)
@given(op=st.sampled_from(sorted(_ROW_WISE)), rows=st.integers(1, 40), k=st.sampled_from([1, 3, 10, 16, 24, 40, 128]),
       symbolic=st.booleans(), seed=st.integers(0, 2**16))
def test_row_wise_kernels_run_as_one_loop_over_the_rows(op, rows, k, symbolic, seed):
    """Softmax, layer norm and a mean over the last axis: every stage (the reductions and
    the output) is computed at one loop over the rows (one parallel launch, the row in cache),
    with static or symbolic rows, and equals numpy and the unscheduled build."""
    x = relax.Var("x", relax.TensorStructInfo([tir.Var("n", "int64") if symbolic else 3, rows, k], "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        with bb.dataflow():
            out = bb.emit_output(_ROW_WISE[op](x, k))
        bb.emit_func_output(out)
    mod = bb.get()
    (kernel,) = [f for name, f in _scheduled(mod).items() if not name.startswith("__vm")]
    sch = tir.Schedule(kernel)
    outer = [sch.get(sch.get_loops(b)[0]) for b in sch.get_child_blocks(sch.get_block("root"))]
    assert len(outer) > 1 and all(loop.same_as(outer[0]) for loop in outer), kernel
    data = np.random.default_rng(seed).uniform(-3, 3, (3, rows, k)).astype("float32")
    zero, default = _run_both(mod, data)
    np.testing.assert_allclose(default, zero, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(default, _row_wise_reference(op, data.astype("float64")), rtol=1e-4, atol=1e-4)


def _matmul_of_inputs(m, k, n):
    """main(x: (m, k), y: (k, n)) = x @ y, both operands run-time inputs."""
    x = relax.Var("x", relax.TensorStructInfo([m, k], "float32"))
    y = relax.Var("y", relax.TensorStructInfo([k, n], "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x, y]):
        with bb.dataflow():
            out = bb.emit_output(R.matmul(x, y))
        bb.emit_func_output(out)
    return bb.get()


@settings(max_examples=10, deadline=None)
@given(m=st.integers(1, 70), k=st.integers(1, 50), n=st.sampled_from([8, 16, 48, 64]), seed=st.integers(0, 2**16))
def test_matmul_of_two_inputs_packs_its_right_operand(m, k, n, seed):
    """x @ y with y known only at run time: from 16 rows on (N whole column panels) the kernel
    packs each panel of y just before the row tiles that read it (inside the loop over
    panels, not as a nest of its own); a matrix-vector product reads y as it is. Rows the
    best tile does not divide are padded (row_padding) and the copy of the real rows is the
    tile's guarded write-back. All compute what numpy does; a matmul's reduction is never
    taken for a row reduction."""
    mod = _matmul_of_inputs(m, k, n)
    text = "\n".join(str(f) for f in _scheduled(mod).values())
    from tvm.relax.transform.default_schedule import tile_shape

    cols = tile_shape(tvm.target.Target("llvm").fp32_lanes, m, n)[1]  # 8 for a narrow AVX2 product
    packed = m >= 16 and n % cols == 0
    assert ("matmul_pack" in text) == packed
    assert "_rf = T.alloc_buffer" not in text
    from tvm.relax.transform.default_schedule import row_padding

    (kernel,) = [f for name, f in _scheduled(mod).items() if "matmul" in name]
    sch = tir.Schedule(kernel)
    if packed:  # packed at use: under the product's loop over column panels
        product = "matmul_rows" if "matmul_rows" in text else "matmul"
        pack_loop = sch.get(sch.get_loops(sch.get_block("matmul_pack"))[0])
        assert pack_loop.same_as(sch.get(sch.get_loops(sch.get_block(product))[0]))
    padded = packed and row_padding(tvm.target.Target("llvm").fp32_lanes, m) is not None
    assert ("matmul_rows" in text) == padded
    if padded:
        assert 'T.block("matmul")' not in text and "T.where" in text  # the copy is the write-back
    rng = np.random.default_rng(seed)
    a, b = rng.standard_normal((m, k)).astype("float32"), rng.standard_normal((k, n)).astype("float32")
    zero, default = _run_both(mod, a, b)
    np.testing.assert_allclose(default, zero, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(default, a.astype("float64") @ b, rtol=1e-4, atol=1e-4)


def _sum_of(n):
    x = relax.Var("x", relax.TensorStructInfo([n], "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        with bb.dataflow():
            out = bb.emit_output(R.sum(x))
        bb.emit_func_output(out)
    return bb.get()


def test_a_kernel_left_serial_and_scalar_is_named_in_a_warning(caplog):
    """A reduction of a whole 1-d tensor has no spatial loop to parallelize or vectorize: no
    rule applies and the pipeline says so, naming the kernel, above a few microseconds of
    work; a small one and a vectorized one are not named."""
    with caplog.at_level("WARNING", logger="tvm.relax.transform"):
        _scheduled(_sum_of(100000))
    (record,) = [r for r in caplog.records if "serial scalar nest" in r.getMessage()]
    assert "kernel sum" in record.getMessage()
    caplog.clear()
    x = relax.Var("x", relax.TensorStructInfo([64, 1024], "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        with bb.dataflow():
            out = bb.emit_output(R.exp(x))
        bb.emit_func_output(out)
    with caplog.at_level("WARNING", logger="tvm.relax.transform"):
        _scheduled(_sum_of(100))
        _scheduled(bb.get())
    assert not [r for r in caplog.records if "serial scalar nest" in r.getMessage()]


@settings(max_examples=8, deadline=None)
@given(m=st.sampled_from([1, 2, 3]), k=st.sampled_from([4, 36, 64, 66]), n=st.sampled_from([256, 512, 272, 4096, 20, 16384]),
       seed=st.integers(0, 2**16))
def test_row_vector_product_streams_the_rows_of_its_run_time_matrix(m, k, n, seed):
    """x @ y for one or two rows of x, y a run-time input: the reduction runs outside the
    columns (the output row accumulated in cache, y read row by row in address order)
    when N is whole vectors; otherwise the register tile. Both compute what numpy does."""
    from tvm.relax.transform import default_schedule as ds

    lanes = tvm.target.Target("llvm").fp32_lanes
    mod = _matmul_of_inputs(m, k, n)
    (kernel,) = [f for name, f in _scheduled(mod).items() if "matmul" in name]
    sch = tir.Schedule(kernel)
    block = sch.get_block("matmul")
    kinds = [int(sch.get(l).kind) for l in sch.get_loops(block)]
    streams = m <= 2 and n % lanes == 0
    split = (streams and n <= ds._ROW_VECTOR_CHUNK and m * k * n >= ds._ROW_VECTOR_SPLIT_MIN_WORK
             and k % ds._ROW_VECTOR_K_PARTS == 0)
    if split:  # one chunk of whole rows, its rows of y split in parallel blocks (next test)
        assert "_rf = T.alloc_buffer" in str(kernel)
    else:
        # the reduction loop runs outside the column loops: it is 2nd (after the chunk loop),
        # then the rows, the column vectors and the lanes; the register tile unrolls its rows
        assert (kinds.count(tir.expr.ForKind.UNROLLED) == 0 and len(kinds) == 5) == streams, str(kernel)
    rng = np.random.default_rng(seed)
    a, b = rng.standard_normal((m, k)).astype("float32"), rng.standard_normal((k, n)).astype("float32")
    zero, default = _run_both(mod, a, b)
    np.testing.assert_allclose(default, zero, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(default, a.astype("float64") @ b, rtol=1e-4, atol=1e-4)


@settings(max_examples=8, deadline=None)
@given(m=st.integers(1, 40), k=st.integers(1, 40), n=st.integers(1, 40), seed=st.integers(0, 2**16))
def test_constant_weight_of_any_width_is_packed_in_whole_panels(m, k, n, seed):
    """x @ W + b with a constant W of any N: W is packed with zero columns up to whole
    16-column panels, the product's tile carries no column predicate and its write-back
    keeps the first N columns; equal to the unscheduled build and to numpy."""
    rng = np.random.default_rng(seed)
    w, b = rng.standard_normal((k, n)).astype("float32"), rng.standard_normal(n).astype("float32")
    x = relax.Var("x", relax.TensorStructInfo([m, k], "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        with bb.dataflow():
            out = bb.emit_output(R.nn.relu(R.add(R.matmul(x, relax.const(w)), relax.const(b))))
        bb.emit_func_output(out)
    mod = bb.get()
    (kernel,) = [f for name, f in _scheduled(mod).items() if "matmul" in name]
    packed = [p for p in kernel.params if len(kernel.buffer_map[p].shape) == 3]
    assert packed and int(kernel.buffer_map[packed[0]].shape[0]) * int(kernel.buffer_map[packed[0]].shape[2]) % 16 == 0
    data = rng.standard_normal((m, k)).astype("float32")
    zero, default = _run_both(mod, data)
    np.testing.assert_allclose(default, zero, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(default, np.maximum(data.astype("float64") @ w + b, 0), rtol=1e-4, atol=1e-4)


@settings(max_examples=8, deadline=None)
@given(m=st.integers(1, 2), k_blocks=st.integers(1, 160), n_vectors=st.integers(1, 64),
       seed=st.integers(0, 2**16))
def test_matrix_vector_product_of_inputs_splits_its_rows_when_its_columns_are_one_task(m, k_blocks, n_vectors, seed):
    """x @ y with one or two rows and y a run-time input: when y's columns make a single task
    (at most 2048) and the product is large, y's rows are split into four blocks computed in
    parallel (rfactor) and summed; small products and several column tasks keep the plain
    form; a split whose parts have whole groups of four rows takes four rows of y a pass.
    Either way the result is the unscheduled build's and numpy's, relu epilogue included."""
    from tvm.relax.transform import default_schedule as ds

    lanes = tvm.target.Target("llvm").fp32_lanes
    k, n = 4 * k_blocks, lanes * n_vectors
    x = relax.Var("x", relax.TensorStructInfo([m, k], "float32"))
    y = relax.Var("y", relax.TensorStructInfo([k, n], "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x, y]):
        with bb.dataflow():
            out = bb.emit_output(R.nn.relu(R.matmul(x, y)))
        bb.emit_func_output(out)
    mod = bb.get()
    text = "\n".join(str(f) for f in _scheduled(mod).values())
    split = m * k * n >= ds._ROW_VECTOR_SPLIT_MIN_WORK and n <= ds._ROW_VECTOR_CHUNK
    assert ("_rf = T.alloc_buffer" in text) == split
    four_a_pass = split and (k // ds._ROW_VECTOR_K_PARTS) % ds._ROW_VECTOR_ROWS_A_PASS == 0
    assert ("T.unroll(T.int64(%d))" % ds._ROW_VECTOR_ROWS_A_PASS in text) == four_a_pass, text
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((m, k)).astype("float32")
    b = rng.standard_normal((k, n)).astype("float32")
    zero, default = _run_both(mod, a, b)
    np.testing.assert_allclose(default, zero, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(default, np.maximum(a.astype("float64") @ b, 0), rtol=1e-4, atol=1e-3)


def test_matrix_vector_product_reads_four_far_apart_runs_of_rows_a_pass():
    """1 x 1024 x 1024 with y an input: each of the four parts of y's rows is read four rows
    a pass, the four a quarter of the part apart (row part + q * quarter + r), so each of the
    four streams runs on through its quarter in address order."""
    import re

    from tvm.relax.transform import default_schedule as ds

    part = 1024 // ds._ROW_VECTOR_K_PARTS
    quarter = part // ds._ROW_VECTOR_ROWS_A_PASS
    (kernel,) = [f for name, f in _scheduled(_matmul_of_inputs(1, 1024, 1024)).items() if "matmul" in name]
    text = str(kernel)
    binding = re.search(r"T\.axis\.reduce\(T\.int64\(%d\), \(\((\w+) \* T\.int64\(%d\)\) \+ (\w+)\)\)"
                        % (part, quarter), text)
    assert binding, text
    q, r = binding.groups()
    assert "for %s in T.unroll(T.int64(%d))" % (q, ds._ROW_VECTOR_ROWS_A_PASS) in text, text
    assert "for %s in T.serial(T.int64(%d))" % (r, quarter) in text, text


def test_matrix_vector_product_stores_its_partial_row_once_per_four_rows():
    """1 x 1024 x 1024 with y an input: in the optimised code of the parallel body each
    partial-row vector is stored once a pass of four rows of y (five vector loads: the
    partial row and four rows of y), which LLVM may do only because the code generator says
    the partial row (a workspace) is none of the arguments (alias scopes)."""
    import re

    ex = relax.build(_matmul_of_inputs(1, 1024, 1024), "llvm")
    ir = ex.inspect_source("ll")
    body = ir[ir.index("@__tvm_parallel_lambda_matmul_0("):]
    body = body[:body.index("\n}\n")]
    # (the partial row's zeroing, a store of zeroinitializer, may stay a loop or become memset)
    assert len(re.findall(r"store <\d+ x float> %", body)) == 1, body
    assert len(re.findall(r"load <\d+ x float>", body)) == 5, body


@settings(max_examples=10, deadline=None)
@given(channels=st.sampled_from([8, 24, 40]), size=st.integers(3, 17), pool=st.sampled_from(["max", "avg"]),
       stride=st.integers(1, 2), seed=st.integers(0, 2**16))
def test_pooling_over_narrow_channel_counts_matches_the_unscheduled_build(channels, size, pool, stride, seed):
    """Pooling whose channels are 8 or 24 takes the 8-column tile (on AVX2 and AVX-512: no
    padded, guarded half vector); 3x3 windows with padding 1, odd sizes, strides 1 and 2:
    the default pipeline computes what the unscheduled build does."""
    x = relax.Var("x", relax.TensorStructInfo([1, channels, size, size], "float32"))
    op = R.nn.max_pool2d if pool == "max" else R.nn.avg_pool2d
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        with bb.dataflow():
            out = bb.emit_output(op(x, pool_size=(3, 3), strides=(stride, stride), padding=(1, 1, 1, 1)))
        bb.emit_func_output(out)
    data = np.random.default_rng(seed).standard_normal((1, channels, size, size)).astype("float32")
    zero, default = _run_both(bb.get(), data)
    np.testing.assert_allclose(default, zero, rtol=1e-5, atol=1e-6)


@settings(max_examples=8, deadline=None)
@given(layers=st.integers(1, 4), width=st.sampled_from([8, 16]), other=st.sampled_from([8, 24]),
       symbolic=st.booleans(), seed=st.integers(0, 2**16))
def test_repeated_layers_share_one_primitive_function(layers, width, other, symbolic, seed):
    """FuseOps gives groups of the same callees, wired alike, on parameters of the same static
    types one primitive function (a network's repeated layers: one FuseTIR merge, not one per
    layer); a layer of another width, or symbolic rows, gets its own; all compute what numpy
    does."""
    rng = np.random.default_rng(seed)
    rows = tir.Var("n", "int64") if symbolic else 3
    x = relax.Var("x", relax.TensorStructInfo([rows, width], "float32"))
    ws = [rng.standard_normal((width, width)).astype("float32") / width for _ in range(layers)]
    bs = [rng.standard_normal(width).astype("float32") for _ in range(layers)]
    w_last = rng.standard_normal((width, other)).astype("float32") / width
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        with bb.dataflow():
            h = x
            for w, b in zip(ws, bs):  # the same layer type each time, its own weights
                h = bb.emit(R.nn.relu(R.add(R.matmul(h, relax.const(w)), relax.const(b))))
            out = bb.emit_output(R.nn.relu(R.add(R.matmul(h, relax.const(w_last)),
                                                 relax.const(np.ones(other, "float32")))))
        bb.emit_func_output(out)
    mod = bb.get()
    grouped = tvm.transform.Sequential(FUSION[:3])(mod)
    prims = [f for f in relax_funcs(grouped).values() if "Primitive" in f.attrs]
    distinct_layer_types = 1 + (other != width)
    assert len(prims) == (layers + 1 if symbolic else distinct_layer_types)
    fused = tvm.transform.Sequential(FUSION)(mod)
    assert list(relax_funcs(fused)) == ["main"]
    xs = rng.standard_normal((3, width)).astype("float32")
    want = xs
    for w, b in zip(ws, bs):
        want = np.maximum(want @ w + b, 0)
    want = np.maximum(want @ w_last + 1, 0)
    vm = relax.VirtualMachine(relax.build(fused, "llvm", relax_pipeline=None), tvm.cpu())
    np.testing.assert_allclose(vm["main"](tvm.runtime.tensor(xs)).numpy(), want, rtol=1e-4, atol=1e-5)
