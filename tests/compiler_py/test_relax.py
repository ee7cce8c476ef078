"""Relax, written the way TVM users write it: BlockBuilder programs with symbolic batch
dimensions, compiled with relax.build / tvm.compile, run by relax.VirtualMachine, exported to
one .so that a runtime-only process runs; operator inference errors at emit time; every
legalized operator against numpy on generated shapes."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tvm
from tvm import relax, tir
from tvm.relax import op as R


def mlp_module(w1, b1, w2):
    n = tir.Var("n", "int64")
    x = relax.Var("x", relax.TensorStructInfo([n, w1.shape[0]], "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        with bb.dataflow():
            h = bb.emit(R.matmul(x, relax.const(w1)))
            h = bb.emit(R.add(h, relax.const(b1)))
            h = bb.emit(R.nn.relu(h))
            o = bb.emit(R.matmul(h, relax.const(w2)))
            gv = bb.emit_output(R.nn.softmax(o, axis=-1))
        bb.emit_func_output(gv)
    return bb.get()


def mlp_ref(x, w1, b1, w2):
    h = np.maximum(x @ w1 + b1, 0)
    o = h @ w2
    e = np.exp(o - o.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


@pytest.fixture(scope="module")
def mlp():
    rng = np.random.default_rng(0)
    w1 = (rng.standard_normal((64, 32)) * 0.1).astype("float32")
    b1 = rng.standard_normal(32).astype("float32")
    w2 = (rng.standard_normal((32, 10)) * 0.1).astype("float32")
    return (w1, b1, w2), relax.build(mlp_module(w1, b1, w2), target="llvm")


@settings(max_examples=10, deadline=None)
@given(batch=st.integers(1, 40), seed=st.integers(0, 2**31 - 1))
def test_mlp_symbolic_batch_matches_numpy(mlp, batch, seed):
    (w1, b1, w2), ex = mlp
    vm = relax.VirtualMachine(ex, tvm.cpu())
    x = np.random.default_rng(seed).standard_normal((batch, 64)).astype("float32")
    out = vm["main"](tvm.runtime.tensor(x)).numpy()
    np.testing.assert_allclose(out, mlp_ref(x, w1, b1, w2), rtol=1e-5, atol=1e-6)


def test_wrong_inputs_raise_and_the_vm_goes_on(mlp):
    (w1, b1, w2), ex = mlp
    vm = relax.VirtualMachine(ex, tvm.cpu())
    with pytest.raises(ValueError, match="expected shape"):
        vm["main"](tvm.runtime.tensor(np.zeros((3, 63), "float32")))
    with pytest.raises(ValueError, match="dtype"):
        vm["main"](tvm.runtime.tensor(np.zeros((3, 64), "float64")))
    with pytest.raises(ValueError, match="dimensions"):
        vm["main"](tvm.runtime.tensor(np.zeros((64,), "float32")))
    x = np.ones((2, 64), "float32")
    np.testing.assert_allclose(vm["main"](tvm.runtime.tensor(x)).numpy(), mlp_ref(x, w1, b1, w2), rtol=1e-5)


def test_export_runs_in_a_runtime_only_process(mlp, tmp_path):
    (w1, b1, w2), ex = mlp
    path = str(tmp_path / "mlp.so")
    ex.export_library(path)
    x = np.random.default_rng(3).standard_normal((5, 64)).astype("float32")
    np.save(str(tmp_path / "x.npy"), x)
    script = textwrap.dedent("""
        import sys, numpy as np, tvm, tvm_ffi
        from tvm.runtime.vm import VirtualMachine
        assert tvm.base.RUNTIME_ONLY
        vm = VirtualMachine(tvm_ffi.load_module(sys.argv[1]), tvm.cpu())
        out = vm["main"](tvm.runtime.tensor(np.load(sys.argv[2]))).numpy()
        np.save(sys.argv[3], out)
    """)
    env = dict(os.environ, TVM_USE_RUNTIME_LIB="1")
    proc = subprocess.run([sys.executable, "-c", script, path, str(tmp_path / "x.npy"),
                           str(tmp_path / "y.npy")], env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    np.testing.assert_allclose(np.load(str(tmp_path / "y.npy")), mlp_ref(x, w1, b1, w2), rtol=1e-5)


def test_tvm_compile_accepts_relax_modules():
    w = np.eye(4, dtype="float32")
    ex = tvm.compile(mlp_module(w, np.zeros(4, "float32"), np.eye(4, dtype="float32")), target="llvm")
    assert isinstance(ex, relax.VMExecutable)


def test_struct_info_inference():
    n, m = tir.Var("n", "int64"), tir.Var("m", "int64")
    a = relax.Var("a", relax.TensorStructInfo([n, 1, 4], "float32"))
    b = relax.Var("b", relax.TensorStructInfo([m, 4], "float32"))
    bb = relax.BlockBuilder()
    with bb.function("f", [a, b]):
        s = bb.emit(R.add(a, b))
        assert [str(d) for d in s.struct_info.shape] == ["n", "m", "T.int64(4)"]
        mm = bb.emit(R.matmul(a, R.permute_dims(b)))
        assert [str(d) for d in mm.struct_info.shape] == ["n", "T.int64(1)", "m"]
        r = bb.emit(R.sum(a, axis=[-1], keepdims=True))
        assert [str(d) for d in r.struct_info.shape] == ["n", "T.int64(1)", "T.int64(1)"]
        c = bb.emit(R.less(a, a))
        assert str(c.struct_info.dtype) == "bool"
        rs = bb.emit(R.reshape(a, [n, -1]))
        assert [str(d) for d in rs.struct_info.shape] == ["n", "T.int64(4)"]
        with pytest.raises(ValueError, match="broadcast"):
            bb.emit(R.add(a, relax.const(np.zeros((3,), "float32"))))
        with pytest.raises(TypeError, match="dtypes differ"):
            bb.emit(R.add(a, relax.const(np.zeros((4,), "int32"))))
        with pytest.raises(ValueError, match="axis"):
            bb.emit(R.nn.softmax(a, axis=3))
        with pytest.raises(ValueError, match="reduction dimensions"):
            bb.emit(R.matmul(b, relax.const(np.zeros((5, 2), "float32"))))
        with pytest.raises(ValueError, match="different number of elements"):
            bb.emit(R.reshape(b, [m, 5]))
        bb.emit_func_output(s)
    text = str(bb.get())
    assert "@R.function" in text and "R.add(a, b)" in text


def test_structural_equality_of_independently_built_functions():
    def build():
        x = relax.Var("x", relax.TensorStructInfo([2, 3], "float32"))
        bb = relax.BlockBuilder()
        with bb.function("main", [x]):
            with bb.dataflow():
                y = bb.emit(R.exp(x))
                gv = bb.emit_output(R.multiply(y, x))
            bb.emit_func_output(gv)
        return bb.get()["main"]
    tvm.ir.assert_structural_equal(build(), build(), map_free_vars=True)


# ---------------------------------------------------------------- every operator vs numpy

def _run(build_body, inputs):
    params = [relax.Var("p%d" % i, relax.TensorStructInfo(list(a.shape), str(a.dtype)))
              for i, a in enumerate(inputs)]
    bb = relax.BlockBuilder()
    with bb.function("main", params):
        with bb.dataflow():
            gv = bb.emit_output(build_body(*params))
        bb.emit_func_output(gv)
    ex = relax.build(bb.get(), "llvm")
    vm = relax.VirtualMachine(ex, tvm.cpu())
    return vm["main"](*[tvm.runtime.tensor(a) for a in inputs]).numpy()


UNARY = {
    "exp": np.exp, "log": lambda x: np.log(np.abs(x) + 1), "sqrt": lambda x: np.sqrt(np.abs(x)),
    "tanh": np.tanh, "sigmoid": lambda x: 1 / (1 + np.exp(-x)), "negative": np.negative,
    "abs": np.abs, "floor": np.floor, "ceil": np.ceil, "square": np.square,
}


@settings(max_examples=25, deadline=None)
@given(name=st.sampled_from(sorted(UNARY)), shape=st.lists(st.integers(1, 5), min_size=1, max_size=3),
       seed=st.integers(0, 1000))
def test_property_unary(name, shape, seed):
    x = np.random.default_rng(seed).standard_normal(shape).astype("float32")
    if name == "log":
        x = np.log(np.abs(x) + 1).astype("float32") * 0 + np.abs(x) + 1
        got = _run(lambda a: R.log(a), [x])
        np.testing.assert_allclose(got, np.log(x), rtol=1e-5, atol=1e-6)
        return
    if name == "sqrt":
        x = np.abs(x)
    got = _run(lambda a: getattr(R, name)(a), [x])
    want = {"sqrt": np.sqrt}.get(name, UNARY[name])(x)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


BINARY = {"add": np.add, "subtract": np.subtract, "multiply": np.multiply, "divide": np.divide,
          "maximum": np.maximum, "minimum": np.minimum, "less": np.less, "greater_equal": np.greater_equal,
          "equal": np.equal}


@st.composite
def broadcast_pair(draw):
    out = draw(st.lists(st.integers(1, 4), min_size=1, max_size=3))
    def side():
        nd = draw(st.integers(0, len(out)))
        return [d if draw(st.booleans()) else 1 for d in out[len(out) - nd:]]
    return side(), side()


@settings(max_examples=25, deadline=None)
@given(name=st.sampled_from(sorted(BINARY)), shapes=broadcast_pair(), seed=st.integers(0, 1000))
def test_property_binary_broadcast(name, shapes, seed):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shapes[0]).astype("float32")
    b = (rng.standard_normal(shapes[1]).astype("float32") + (3.0 if name == "divide" else 0))
    got = _run(lambda x, y: getattr(R, name)(x, y), [a, b])
    np.testing.assert_allclose(got, BINARY[name](a, b), rtol=1e-5, atol=1e-6)


@settings(max_examples=20, deadline=None)
@given(m=st.integers(1, 6), k=st.integers(1, 6), n=st.integers(1, 6), batch=st.sampled_from([[], [2], [1, 3]]),
       seed=st.integers(0, 1000))
def test_property_matmul(m, k, n, batch, seed):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(batch + [m, k]).astype("float32")
    b = rng.standard_normal([k, n]).astype("float32")
    np.testing.assert_allclose(_run(R.matmul, [a, b]), a @ b, rtol=1e-4, atol=1e-5)


@settings(max_examples=20, deadline=None)
@given(shape=st.lists(st.integers(1, 5), min_size=1, max_size=4), data=st.data())
def test_property_reductions_and_softmax(shape, data):
    x = np.random.default_rng(len(shape)).standard_normal(shape).astype("float32")
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    keep = data.draw(st.booleans())
    for name, ref in (("sum", np.sum), ("mean", np.mean), ("max", np.max), ("min", np.min)):
        got = _run(lambda a: getattr(R, name)(a, axis=[axis], keepdims=keep), [x])
        np.testing.assert_allclose(got, ref(x, axis=axis, keepdims=keep), rtol=1e-5, atol=1e-5)
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    np.testing.assert_allclose(_run(lambda a: R.nn.softmax(a, axis=axis), [x]),
                               e / e.sum(axis=axis, keepdims=True), rtol=1e-5, atol=1e-6)


@settings(max_examples=15, deadline=None)
@given(shape=st.lists(st.integers(1, 4), min_size=2, max_size=4), data=st.data())
def test_property_shape_ops(shape, data):
    x = np.random.default_rng(1).standard_normal(shape).astype("float32")
    perm = data.draw(st.permutations(range(len(shape))))
    np.testing.assert_array_equal(_run(lambda a: R.permute_dims(a, perm), [x]), np.transpose(x, perm))
    np.testing.assert_array_equal(_run(lambda a: R.reshape(a, [-1, shape[-1]]), [x]), x.reshape(-1, shape[-1]))
    axis = data.draw(st.integers(0, len(shape) - 1))
    np.testing.assert_array_equal(_run(lambda a, b: R.concat([a, b], axis=axis), [x, x + 1]),
                                  np.concatenate([x, x + 1], axis=axis))
    np.testing.assert_array_equal(_run(lambda a: R.expand_dims(a, axis), [x]), np.expand_dims(x, axis))
    np.testing.assert_array_equal(_run(R.flatten, [x]), x.reshape(-1))


def test_layer_norm_and_gelu():
    rng = np.random.default_rng(5)
    x = rng.standard_normal((3, 8)).astype("float32")
    g = rng.standard_normal(8).astype("float32")
    b = rng.standard_normal(8).astype("float32")
    mu, var = x.mean(-1, keepdims=True), x.var(-1, keepdims=True)
    np.testing.assert_allclose(_run(lambda a, gg, bb: R.nn.layer_norm(a, gg, bb, axes=[-1]), [x, g, b]),
                               (x - mu) / np.sqrt(var + 1e-5) * g + b, rtol=1e-4, atol=1e-5)
    import math
    erf = np.vectorize(math.erf)
    np.testing.assert_allclose(_run(R.nn.gelu, [x]), x * 0.5 * (1 + erf(x / math.sqrt(2))), rtol=1e-5, atol=1e-6)


@settings(max_examples=8, deadline=None)
@given(rows=st.integers(1, 6), width=st.integers(0, 9), seed=st.integers(0, 1000))
def test_reductions_over_a_symbolic_axis_of_any_length(rows, width, seed):
    """The reduced extent is only known at run time and may be 0: the result is then the
    reduction's identity (sum 0, max -inf, min +inf, prod 1), never what the memory held
    before (a call with large values runs first, so stale pooled memory would show)."""
    n = tir.Var("n", "int64")
    x = relax.Var("x", relax.TensorStructInfo([rows, n], "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        with bb.dataflow():
            outs = [bb.emit(f(x, axis=[1])) for f in (R.sum, R.max, R.min, R.prod)]
            gv = bb.emit_output(relax.Tuple(outs))
        bb.emit_func_output(gv)
    vm = relax.VirtualMachine(relax.build(bb.get(), "llvm"), tvm.cpu())
    vm["main"](tvm.runtime.tensor(np.full((rows, 5), 1e30, "float32")))
    data = np.random.default_rng(seed).uniform(-2, 2, (rows, width)).astype("float32")
    got = [o.numpy() for o in vm["main"](tvm.runtime.tensor(data))]
    want = [data.sum(1), data.max(1, initial=-np.inf), data.min(1, initial=np.inf), data.prod(1)]
    for g, w in zip(got, want):
        # Sums in another order than numpy's pairwise one: an absolute slack of float32
        # rounding at the inputs' magnitude (a sum that cancels to ~0 has no relative bound).
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5)
