"""Half precision end to end: numpy float16 in and out of the VM, half-precision kernels (LLVM
`half`) against numpy, float32 accumulation in reductions/matmul/softmax, an ONNX model with
float16 inputs, initializers and Casts against onnxruntime; bfloat16 conversions (at the end).

Tolerances: one float16 ulp is 2**-10 relative (~1e-3); elementwise results are rounded once
from a float computation, so they agree with numpy's float16 to about one ulp."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

import tvm
from tvm import relax
from tvm.relax import op as R
from tvm.relax.frontend.onnx import from_onnx

HALF_ULP = 2.0 ** -10


def run(build_body, inputs, dtypes=None):
    params = [relax.Var("p%d" % i, relax.TensorStructInfo(list(a.shape), str(a.dtype)))
              for i, a in enumerate(inputs)]
    bb = relax.BlockBuilder()
    with bb.function("main", params):
        with bb.dataflow():
            gv = bb.emit_output(build_body(*params))
        bb.emit_func_output(gv)
    vm = relax.VirtualMachine(relax.build(bb.get(), "llvm"), tvm.cpu())
    return vm["main"](*[tvm.runtime.tensor(a) for a in inputs]).numpy()


UNARY = {"exp": (R.exp, np.exp), "tanh": (R.tanh, np.tanh), "sqrt": (R.sqrt, lambda a: np.sqrt(np.abs(a))),
         "sigmoid": (R.sigmoid, lambda a: 1 / (1 + np.exp(-a))), "negative": (R.negative, np.negative),
         "abs": (R.abs, np.abs), "erf": (R.erf, np.vectorize(math.erf)), "log": (R.log, lambda a: np.log(np.abs(a))),
         "floor": (R.floor, np.floor)}
BINARY = {"add": (R.add, np.add), "subtract": (R.subtract, np.subtract),
          "multiply": (R.multiply, np.multiply), "divide": (R.divide, np.divide),
          "maximum": (R.maximum, np.maximum)}


@settings(max_examples=8, deadline=None)
@given(name=st.sampled_from(sorted(UNARY)), shape=st.lists(st.integers(1, 17), min_size=1, max_size=3),
       seed=st.integers(0, 1000))
def test_property_unary_float16(name, shape, seed):
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(shape) * 2).astype("float16")
    if name in ("sqrt", "log"):
        x = np.abs(x)
    rfn, nfn = UNARY[name]
    got = run(rfn, [x])
    assert got.dtype == np.float16
    want = nfn(x.astype("float64")).astype("float16")
    np.testing.assert_allclose(got.astype("float64"), want.astype("float64"), rtol=2 * HALF_ULP, atol=1e-6)


@settings(max_examples=8, deadline=None)
@given(name=st.sampled_from(sorted(BINARY)), m=st.integers(1, 9), n=st.integers(1, 33), seed=st.integers(0, 1000))
def test_property_binary_float16_broadcast(name, m, n, seed):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((m, n)).astype("float16")
    b = (rng.standard_normal((1, n)) + 3).astype("float16")  # away from 0: division stays finite
    rfn, nfn = BINARY[name]
    got = run(rfn, [a, b])
    assert got.dtype == np.float16
    # a single op on two halves, rounded once: exactly numpy's float16 result
    np.testing.assert_array_equal(got, nfn(a, b))


@settings(max_examples=6, deadline=None)
@given(m=st.integers(1, 8), k=st.integers(1, 600), n=st.integers(1, 24), seed=st.integers(0, 1000))
def test_property_matmul_float16_accumulates_in_float32(m, k, n, seed):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((m, k)).astype("float16")
    b = rng.standard_normal((k, n)).astype("float16")
    got = run(R.matmul, [a, b])
    assert got.dtype == np.float16
    exact = a.astype("float64") @ b.astype("float64")
    # The products of two halves are exact in float32; summing k of them in float32 (any
    # order) errs by at most gamma = (k - 1) u / (1 - (k - 1) u) times the sum of their
    # magnitudes (u = 2^-24), then one rounding to half: one ulp of the result. The first
    # term matters under cancellation (a sum of ~200 in magnitude that ends near 0.003: a
    # float32 sum is then off by more than a half ulp of the result, whatever its order).
    # atol: float16 subnormals below 6e-5 are spaced 6e-8 apart.
    u = 2.0 ** -24
    gamma = (k - 1) * u / (1 - (k - 1) * u)
    magnitudes = np.abs(a.astype("float64")) @ np.abs(b.astype("float64"))
    bound = gamma * magnitudes + HALF_ULP * np.abs(exact) + 1e-7
    assert np.all(np.abs(got.astype("float64") - exact) <= bound), (got, exact)


@settings(max_examples=10, deadline=None)
@given(c=st.one_of(st.floats(-70000, 70000, allow_nan=False), st.floats(-1e-6, 1e-6),
                   st.sampled_from([0.7071067811865476, 1 / 3, 6.1e-5, 65519.0, 65520.0])),
       seed=st.integers(0, 1000))
def test_property_float16_constants_round_once_like_numpy(c, seed):
    # A constant that is not exact in half (gelu's 1/sqrt(2)) must still compile: LLVM takes
    # half constants only in its 0xH form, which the codegen rounds to from double.
    x = np.random.default_rng(seed).standard_normal((3, 5)).astype("float16")
    got = run(lambda p: R.multiply(p, relax.const(np.float16(c), "float16")), [x])
    want = (x * np.float16(c)).astype("float16")
    np.testing.assert_allclose(got.astype("float32"), want.astype("float32"), rtol=HALF_ULP * 2,
                               atol=1e-7)
    got = run(lambda p: R.nn.gelu(p), [x])  # its constants are float16 after legalization
    want = (0.5 * x.astype("float64") * (1 + np.vectorize(math.erf)(x / math.sqrt(2)))).astype("float16")
    np.testing.assert_allclose(got.astype("float32"), want.astype("float32"), rtol=4 * HALF_ULP,
                               atol=4 * HALF_ULP)


def test_sum_of_many_halves_is_not_stuck():
    # in half precision 2048 + 1 == 2048: a float16 accumulator would return 2048
    x = np.ones((2, 4096), "float16")
    got = run(lambda a: R.sum(a, axis=[1]), [x])
    assert got.dtype == np.float16 and got.tolist() == [4096.0, 4096.0]
    got = run(lambda a: R.mean(a, axis=[1]), [x * np.float16(3)])
    assert got.tolist() == [3.0, 3.0]


def test_softmax_and_layer_norm_float16():
    rng = np.random.default_rng(1)
    x = (rng.standard_normal((4, 300)) * 4).astype("float16")
    got = run(lambda a: R.nn.softmax(a, axis=-1), [x])
    xd = x.astype("float64")
    e = np.exp(xd - xd.max(-1, keepdims=True))
    np.testing.assert_allclose(got.astype("float64"), e / e.sum(-1, keepdims=True), rtol=HALF_ULP, atol=1e-7)
    g, b = np.ones(300, "float16"), np.zeros(300, "float16")
    got = run(lambda a, gg, bb: R.nn.layer_norm(a, gg, bb, axes=-1), [x, g, b])
    want = (xd - xd.mean(-1, keepdims=True)) / np.sqrt(xd.var(-1, keepdims=True) + 1e-5)
    np.testing.assert_allclose(got.astype("float64"), want, rtol=2 * HALF_ULP, atol=2e-3)


def test_astype_to_and_from_float16_rounds_like_numpy():
    x = np.array([0.1, 1 / 3, 65504.0, 70000.0, -2.5e-8, np.inf, np.nan, 2049.0], "float32")
    got = run(lambda a: R.astype(a, "float16"), [x])
    np.testing.assert_array_equal(got, x.astype("float16"))
    h = np.arange(-2048, 2048, 7).astype("float16")
    np.testing.assert_array_equal(run(lambda a: R.astype(a, "float64"), [h]), h.astype("float64"))
    np.testing.assert_array_equal(run(lambda a: R.astype(a, "int32"), [h]), h.astype("int32"))


def _f16_model():
    rng = np.random.default_rng(0)
    w = (rng.standard_normal((64, 32)) / 8).astype("float16")
    b = rng.standard_normal(32).astype("float16")
    nodes = [helper.make_node("MatMul", ["x", "w"], ["m"]), helper.make_node("Add", ["m", "b"], ["a"]),
             helper.make_node("Relu", ["a"], ["r"]), helper.make_node("Softmax", ["r"], ["s"], axis=-1),
             helper.make_node("ReduceMean", ["r"], ["rm"], keepdims=1, axes=[-1]),
             helper.make_node("Cast", ["s"], ["y"], to=TensorProto.FLOAT)]
    graph = helper.make_graph(
        nodes, "f16", [helper.make_tensor_value_info("x", TensorProto.FLOAT16, ["n", 64])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n", 32]),
         helper.make_tensor_value_info("rm", TensorProto.FLOAT16, ["n", 1])],
        [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b")])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


@pytest.mark.parametrize("batch", [1, 7])
def test_float16_onnx_model_matches_onnxruntime(batch):
    model = _f16_model()
    x = np.random.default_rng(batch).standard_normal((batch, 64)).astype("float16")
    vm = relax.VirtualMachine(relax.build(from_onnx(model), "llvm"), tvm.cpu())
    y, rm = vm["main"](tvm.runtime.tensor(x))
    want_y, want_rm = ort.InferenceSession(model.SerializeToString(),
                                           providers=["CPUExecutionProvider"]).run(None, {"x": x})
    assert y.numpy().dtype == np.float32 and rm.numpy().dtype == np.float16
    np.testing.assert_allclose(y.numpy(), want_y, rtol=4 * HALF_ULP, atol=1e-4)
    np.testing.assert_allclose(rm.numpy().astype("float32"), want_rm.astype("float32"), rtol=4 * HALF_ULP, atol=1e-3)


def test_unsupported_element_type_is_a_clear_error():
    node = helper.make_node("Cast", ["x"], ["y"], to=TensorProto.FLOAT8E5M2)
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT16, [3])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT8E5M2, [3])])
    with pytest.raises(NotImplementedError, match="float8_e5m2 is not supported"):
        from_onnx(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 19)]))


# ---------------------------------------------------------------- bfloat16 (conversions only)

def _bf16():
    import ml_dtypes
    return ml_dtypes.bfloat16


@settings(max_examples=10, deadline=None)
@given(values=st.lists(st.floats(width=32, allow_nan=True, allow_infinity=True), min_size=1, max_size=40))
def test_property_float32_to_bfloat16_rounds_to_nearest_even(values):
    x = np.array(values, "float32")
    got = run(lambda a: R.astype(a, "bfloat16"), [x])
    want = x.astype(_bf16())
    assert got.dtype == want.dtype
    # bit for bit, except that any NaN is fine as long as it stays a NaN
    nan = np.isnan(want.astype("float32"))
    assert np.array_equal(np.isnan(got.astype("float32")), nan)
    np.testing.assert_array_equal(got.view("uint16")[~nan], want.view("uint16")[~nan])


@settings(max_examples=6, deadline=None)
@given(bits=st.lists(st.integers(0, 0xFFFF), min_size=1, max_size=40))
def test_property_bfloat16_widens_exactly(bits):
    x = np.array(bits, "uint16").view(_bf16())
    for dt in ("float32", "float64"):
        got = run(lambda a: R.astype(a, dt), [x])
        np.testing.assert_array_equal(got, x.astype(dt))
    finite = np.isfinite(x.astype("float32")) & (np.abs(x.astype("float32")) < 2 ** 30)
    got = run(lambda a: R.astype(a, "int32"), [x[finite]]) if finite.any() else None
    if got is not None:
        np.testing.assert_array_equal(got, x[finite].astype("float32").astype("int32"))


def test_bfloat16_onnx_cast_round_trip():
    nodes = [helper.make_node("Cast", ["x"], ["b"], to=TensorProto.BFLOAT16),
             helper.make_node("Cast", ["b"], ["y"], to=TensorProto.FLOAT)]
    graph = helper.make_graph(nodes, "bf16", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n"])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n"]),
                               helper.make_tensor_value_info("b", TensorProto.BFLOAT16, ["n"])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 19)])
    vm = relax.VirtualMachine(relax.build(from_onnx(model), "llvm"), tvm.cpu())
    x = np.array([1.0, 1 / 3, 3.0e38, -0.0, 1.00390625, 1.01171875, 65504.0], "float32")
    y, b = vm["main"](tvm.runtime.tensor(x))
    assert b.numpy().dtype == _bf16()
    np.testing.assert_array_equal(b.numpy().view("uint16"), x.astype(_bf16()).view("uint16"))
    np.testing.assert_array_equal(y.numpy(), x.astype(_bf16()).astype("float32"))


def test_bfloat16_arithmetic_is_a_clear_error():
    x = np.ones(4, "float32").astype(_bf16())
    with pytest.raises(TypeError, match="arithmetic on bfloat16 is not supported"):
        run(lambda a: R.add(a, a), [x])


def test_float16_matmul_and_conv_with_out_dtype_float32_stay_float32():
    rng = np.random.default_rng(4)
    a, b = rng.standard_normal((3, 300)).astype("float16"), rng.standard_normal((300, 5)).astype("float16")
    got = run(lambda x, y: R.matmul(x, y, out_dtype="float32"), [a, b])
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, a.astype("float64") @ b.astype("float64"), rtol=1e-5, atol=1e-4)
    x, w = rng.standard_normal((1, 2, 5, 5)).astype("float16"), rng.standard_normal((3, 2, 3, 3)).astype("float16")
    got = run(lambda p, q: R.nn.conv2d(p, q, out_dtype="float16"), [x, w])
    assert got.dtype == np.float16
