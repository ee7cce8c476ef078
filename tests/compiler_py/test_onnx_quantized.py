"""Quantized ONNX models computed in integer arithmetic (issue 20, acceptance 4).

An MLP and a CNN quantized by onnxruntime.quantization (static QDQ per tensor / per channel,
dynamic) run through from_onnx + tvm.compile and are compared with onnxruntime on the same
quantized model. Tolerance: every element within one quantization step of the output
(|ours - ort| <= the output's scale), and at most 1% of the elements off at all: the
integer products are exact on both sides, so a difference can only come from a rounding
tie met in a different order (our requantization multiplies by sx * sw then divides by
sy; onnxruntime's fused kernel multiplies by sx * sw / sy once), one step, in a few
elements. (On the models below the outputs are in fact identical.)

The compiled kernels are checked to be integer: every multiply-accumulate in the module's
PrimFuncs after the default pipeline reads int8 / uint8 buffers and accumulates in int32,
and LLVM vectorizes the integer product. Hypothesis checks the integer matmul / conv
(MatMulInteger, ConvInteger, QLinearMatMul, QLinearConv) against numpy / onnx's reference
on odd sizes, tails, batch 1, zero points and scales."""

import os
import re
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator

import tvm
from tvm import relax, tir
from tvm.relax.frontend.onnx import from_onnx

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # quant_models beside this file
import quant_models  # noqa: E402

_SLOW = settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _ours(model, x):
    ex = tvm.compile(from_onnx(model), target="llvm")
    return relax.VirtualMachine(ex, tvm.cpu())["main"](tvm.runtime.tensor(x)).numpy()


def _ort(model, x, optimize=True):
    opts = ort.SessionOptions()
    if not optimize:  # the graph's own meaning, node by node (no fused integer kernels)
        opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    sess = ort.InferenceSession(model.SerializeToString(), opts, providers=["CPUExecutionProvider"])
    return sess.run(None, {model.graph.input[0].name: x})[0]


def _output_step(model):
    """The scale of the last DequantizeLinear (the static model's output quantization)."""
    inits = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}
    last = [n for n in model.graph.node if n.op_type == "DequantizeLinear"
            and n.output[0] == model.graph.output[0].name][0]
    return float(inits[last.input[1]])


def _input(model, seed=5):
    return np.random.default_rng(seed).standard_normal(quant_models.input_shape(model)).astype("float32")


def _within_a_step(ours, want, step):
    diff = np.abs(ours.astype("float64") - want)
    assert diff.max() <= step * (1 + 1e-6), (diff.max(), step)
    assert np.count_nonzero(diff > step * 1e-3) <= 0.01 * diff.size, np.count_nonzero(diff > step * 1e-3)


@pytest.mark.parametrize("name,per_channel,activations", [
    ("mlp", False, "uint8"), ("mlp", True, "uint8"), ("mlp", False, "int8"),
    ("cnn", False, "uint8"), ("cnn", True, "uint8"), ("cnn", True, "int8")])
def test_static_qdq_matches_onnxruntime(name, per_channel, activations):
    model = quant_models.quantize(getattr(quant_models, name)(), "static", per_channel, activations)
    assert {"QuantizeLinear", "DequantizeLinear"} <= {n.op_type for n in model.graph.node}
    x = _input(model)
    _within_a_step(_ours(model, x), _ort(model, x), _output_step(model))


@pytest.mark.parametrize("name", ["mlp", "cnn"])
@pytest.mark.parametrize("per_channel", [False, True])
def test_dynamic_matches_onnxruntime(name, per_channel):
    model = quant_models.quantize(getattr(quant_models, name)(), "dynamic", per_channel)
    ops = {n.op_type for n in model.graph.node}
    assert "DynamicQuantizeLinear" in ops and "MatMulInteger" in ops
    assert name != "cnn" or "ConvInteger" in ops
    x = _input(model)
    # the output is float (int32 product * runtime scales + bias): an integer product off by
    # one step in any layer would show as >= one product scale; float rounding is 1e-6
    np.testing.assert_allclose(_ours(model, x), _ort(model, x), rtol=1e-5, atol=1e-5)


def test_full_range_per_channel_matches_the_graph():
    """Full-range int8 per-channel weights (no reduce_range): compared with onnxruntime
    running the QDQ graph node by node, the model's meaning (its fused u8 x s8 kernel
    saturates int16 pairs on CPUs without VNNI, see quant_models.quantize)."""
    from onnxruntime import quantization as q
    import tempfile

    f = quant_models.cnn(seed=3)
    with tempfile.TemporaryDirectory() as d:
        onnx.save(f, os.path.join(d, "f.onnx"))
        q.quantize_static(os.path.join(d, "f.onnx"), os.path.join(d, "q.onnx"),
                          quant_models._Calibration("x", quant_models.input_shape(f)),
                          quant_format=q.QuantFormat.QDQ, per_channel=True)
        model = onnx.load(os.path.join(d, "q.onnx"))
    x = _input(model, seed=9)
    _within_a_step(_ours(model, x), _ort(model, x, optimize=False), _output_step(model))


# ---------------------------------------------------------------- the kernels are integer

_MAC = re.compile(r"(\w+)\[[^\]]*\] = \(\1\[[^\]]*\] \+ \((.+)\)\)$")


def _multiply_accumulates(mod):
    """(function name, accumulator dtype, operand dtypes) for every `acc = acc + a * b`."""
    out = []
    for gv, f in mod.functions.items():
        if not isinstance(f, tir.PrimFunc):
            continue
        text = str(f)
        dtypes = {str(b.name): str(b.dtype) for b in f.buffer_map.values()}
        dtypes.update(dict(re.findall(r"(\w+) = T.alloc_buffer\([^\n]*?\"(\w+)\"", text)))
        for line in text.splitlines():
            m = _MAC.search(line.strip())
            if m is None or " * " not in m.group(2):
                continue
            operands = re.findall(r"(\w+)\[", m.group(2))
            out.append((str(gv), dtypes.get(m.group(1)), [dtypes.get(o) for o in operands], m.group(2)))
    return out


@pytest.mark.parametrize("name,how,count", [("mlp", "static", 3), ("cnn", "static", 3),
                                            ("mlp", "dynamic", 3), ("cnn", "dynamic", 3)])
def test_compiled_products_are_integer(name, how, count):
    model = quant_models.quantize(getattr(quant_models, name)(), how, per_channel=True)
    target = tvm.target.Target("llvm")
    with target:
        mod = relax.get_default_pipeline(target)(from_onnx(model))
    macs = _multiply_accumulates(mod)
    assert len(macs) == count, macs  # one per Gemm / Conv / MatMul: none left in float
    for fn, acc, operands, expr in macs:
        assert acc == "int32", (fn, acc, expr)
        assert operands and all(o in ("int8", "uint8") for o in operands), (fn, operands, expr)
        assert expr.count('T.Cast("int32"') == 2, (fn, expr)


def test_integer_product_is_vectorized():
    """LLVM's optimized IR of the int8 matmul multiplies int32 vectors (the register tile's
    columns): the widening loads are vector sign extensions, not scalar code."""
    rng = np.random.default_rng(0)
    a = rng.integers(0, 256, (8, 64)).astype("uint8")
    b = rng.integers(-128, 128, (64, 32)).astype("int8")
    model = _node_model("MatMulInteger", {"a": a}, {"b": b, "za": np.uint8(131), "zb": np.int8(0)}, [8, 32])
    ex = tvm.compile(from_onnx(model), target="llvm")
    ir = ex.inspect_source("ll")
    # the kernel's function, or its parallel body: matched on the define line (which may
    # carry attributes such as range(...) before the name)
    body = [f for f in ir.split("\ndefine") if re.match(r"[^\n]*@\w*matmul", f)]
    assert body, "no matmul kernel in the LLVM IR"
    assert re.search(r"mul (nsw )?<(8|16|32) x i32>", body[0]), "the int32 products are not vectorized"
    assert re.search(r"sext <(8|16|32) x i8>", body[0]), "the int8 loads are not vectorized"


# ---------------------------------------------------------------- the kernels vs numpy

def _node_model(op, inputs, inits, out_shape, out_type=TensorProto.INT32, opset=13, **attrs):
    names = list(inputs) + list(inits)
    graph = helper.make_graph(
        [helper.make_node(op, names, ["y"], **attrs)], "g",
        [helper.make_tensor_value_info(k, helper.np_dtype_to_tensor_dtype(v.dtype), list(v.shape))
         for k, v in inputs.items()],
        [helper.make_tensor_value_info("y", out_type, list(out_shape))],
        [numpy_helper.from_array(np.asarray(v), k) for k, v in inits.items()])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def _q(draw, dtype, shape):
    lo, hi = (0, 255) if dtype == "uint8" else (-128, 127)
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 31)))
    return rng.integers(lo, hi + 1, shape).astype(dtype)


@st.composite
def _matmul_case(draw):
    m, k, n = draw(st.integers(1, 13)), draw(st.integers(1, 41)), draw(st.integers(1, 37))
    batch = draw(st.sampled_from([[], [1], [2]]))
    da, db = draw(st.sampled_from(["uint8", "int8"])), draw(st.sampled_from(["uint8", "int8"]))
    a, b = _q(draw, da, batch + [m, k]), _q(draw, db, [k, n])
    za = _q(draw, da, [] if draw(st.booleans()) else [m]) if draw(st.booleans()) else None
    zb = _q(draw, db, [] if draw(st.booleans()) else [n]) if draw(st.booleans()) else None
    b_const = draw(st.booleans())
    return a, b, za, zb, b_const


@_SLOW
@given(_matmul_case())
def test_matmul_integer_vs_numpy(case):
    a, b, za, zb, b_const = case
    inputs, inits = {"a": a}, {}
    (inits if b_const else inputs)["b"] = b
    for key, z, dt in (("za", za, a.dtype), ("zb", zb, b.dtype)):
        inits[key] = z if z is not None else np.zeros([], dt)
    model = _node_model("MatMulInteger", inputs, inits, list(a.shape[:-1]) + [b.shape[1]])
    za64 = 0 if za is None else za.astype(np.int64).reshape(-1, 1)  # per tensor, or one per row
    zb64 = 0 if zb is None else zb.astype(np.int64)  # per tensor, or one per column
    want = (a.astype(np.int64) - za64) @ (b.astype(np.int64) - zb64)
    ex = tvm.compile(from_onnx(model), target="llvm")
    vm = relax.VirtualMachine(ex, tvm.cpu())
    got = vm["main"](*[tvm.runtime.tensor(v) for v in inputs.values()]).numpy()
    assert got.dtype == np.int32
    np.testing.assert_array_equal(got, want)


@st.composite
def _conv_case(draw):
    n, c, h, w = draw(st.integers(1, 2)), draw(st.integers(1, 5)), draw(st.integers(1, 9)), draw(st.integers(1, 9))
    kh, kw = draw(st.integers(1, min(3, h + 2))), draw(st.integers(1, min(3, w + 2)))
    groups = draw(st.sampled_from([1, c]))
    o = groups * draw(st.integers(1, 6 if groups > 1 else 20))
    pads = [draw(st.integers(0, 2)) for _ in range(4)]
    if h + pads[0] + pads[2] < kh or w + pads[1] + pads[3] < kw:
        pads = [kh, kw, kh, kw]
    strides = [draw(st.integers(1, 2)), draw(st.integers(1, 2))]
    dx, dw = draw(st.sampled_from(["uint8", "int8"])), draw(st.sampled_from(["uint8", "int8"]))
    x, wt = _q(draw, dx, [n, c, h, w]), _q(draw, dw, [o, c // groups, kh, kw])
    zx = _q(draw, dx, []) if draw(st.booleans()) else None
    zw = _q(draw, dw, [] if draw(st.booleans()) else [o]) if draw(st.booleans()) else None
    return x, wt, zx, zw, dict(pads=pads, strides=strides, group=groups)


def _conv_ref(x, w, zx, zw, pads, strides, group):
    xs = x.astype(np.int64) - (0 if zx is None else int(zx))
    ws = w.astype(np.int64) - (0 if zw is None else zw.astype(np.int64).reshape(-1, 1, 1, 1) if np.ndim(zw) else int(zw))
    xs = np.pad(xs, [(0, 0), (0, 0), (pads[0], pads[2]), (pads[1], pads[3])])
    n, c, h, wd = xs.shape
    o, ipg, kh, kw = ws.shape
    oh, ow = (h - kh) // strides[0] + 1, (wd - kw) // strides[1] + 1
    out = np.zeros((n, o, oh, ow), np.int64)
    opg = o // group
    for oc in range(o):
        g = oc // opg
        for i in range(kh):
            for j in range(kw):
                patch = xs[:, g * ipg:(g + 1) * ipg, i:i + strides[0] * oh:strides[0], j:j + strides[1] * ow:strides[1]]
                out[:, oc] += np.einsum("nchw,c->nhw", patch, ws[oc, :, i, j])
    return out


@_SLOW
@given(_conv_case())
def test_conv_integer_vs_numpy(case):
    x, w, zx, zw, attrs = case
    inits = {"w": w, "zx": zx if zx is not None else np.zeros([], x.dtype),
             "zw": zw if zw is not None else np.zeros([], w.dtype)}
    want = _conv_ref(x, w, zx, zw, **attrs)
    model = _node_model("ConvInteger", {"x": x}, inits, want.shape, **attrs)
    got = _ours(model, x)
    assert got.dtype == np.int32
    np.testing.assert_array_equal(got, want)


@_SLOW
@given(st.data())
def test_qlinear_matmul_and_conv_vs_reference(data):
    """Requantization: QLinearMatMul / QLinearConv with drawn scales and zero points against
    onnx's reference (exact: both round half to even from the same float64 values)."""
    draw = data.draw
    dt = draw(st.sampled_from(["uint8", "int8"]))
    scale = lambda: np.array(draw(st.floats(1e-3, 0.1)), "float32")  # noqa: E731
    zp = lambda shape=(): _q(draw, dt, list(shape))  # noqa: E731
    if draw(st.booleans()):
        m, k, n = draw(st.integers(1, 9)), draw(st.integers(1, 33)), draw(st.integers(1, 19))
        a, b = _q(draw, dt, [m, k]), _q(draw, dt, [k, n])
        inits = {"sa": scale(), "za": zp(), "b": b, "sb": scale(), "zb": zp(), "sy": scale(), "zy": zp()}
        model = _node_model("QLinearMatMul", {"a": a}, inits, [m, n], helper.np_dtype_to_tensor_dtype(np.dtype(dt)))
        x = a
    else:
        c, o, hw = draw(st.integers(1, 4)), draw(st.integers(1, 18)), draw(st.integers(3, 8))
        x, w = _q(draw, dt, [1, c, hw, hw]), _q(draw, dt, [o, c, 3, 3])
        bias = np.random.default_rng(draw(st.integers(0, 99))).integers(-500, 500, [o]).astype("int32")
        inits = {"sx": scale(), "zx": zp(), "w": w, "sw": scale(), "zw": zp(), "sy": scale(), "zy": zp(), "bias": bias}
        model = _node_model("QLinearConv", {"x": x}, inits, [1, o, hw, hw], helper.np_dtype_to_tensor_dtype(np.dtype(dt)),
                            opset=13, pads=[1, 1, 1, 1])
    want = ReferenceEvaluator(model).run(None, {model.graph.input[0].name: x})[0]
    got = _ours(model, x)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


# ---------------------------------------------------------------- what stays float

def test_blocked_weights_take_the_float_path():
    """A DequantizeLinear with block_size has no integer form here: the MatMul is a float
    product of the dequantized tensors, and still right."""
    rng = np.random.default_rng(2)
    x = rng.standard_normal((3, 8)).astype("float32")
    wq = rng.integers(-128, 128, (8, 5)).astype("int8")
    ws = (rng.random((2, 5)) * 0.05 + 0.01).astype("float32")
    nodes = [helper.make_node("QuantizeLinear", ["x", "sx", "zx"], ["xq"]),
             helper.make_node("DequantizeLinear", ["xq", "sx", "zx"], ["xd"]),
             helper.make_node("DequantizeLinear", ["wq", "ws"], ["wd"], axis=0, block_size=4),
             helper.make_node("MatMul", ["xd", "wd"], ["y"])]
    inits = [numpy_helper.from_array(np.array(0.02, "float32"), "sx"), numpy_helper.from_array(np.array(128, "uint8"), "zx"),
             numpy_helper.from_array(wq, "wq"), numpy_helper.from_array(ws, "ws")]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 8])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3, 5])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
    want = ReferenceEvaluator(model).run(None, {"x": x})[0]
    np.testing.assert_allclose(_ours(model, x), want, rtol=1e-5, atol=1e-6)
    target = tvm.target.Target("llvm")
    with target:
        mod = relax.get_default_pipeline(target)(from_onnx(model))
    assert [acc for _, acc, _, _ in _multiply_accumulates(mod)] == ["float32"]


def test_non_8bit_operands_are_a_typed_error():
    a = np.zeros((2, 3), "int8")
    model = _node_model("MatMulInteger", {"a": a}, {"b": np.zeros((3, 4), "int32")}, [2, 4])
    with pytest.raises((NotImplementedError, ValueError), match="int32|MatMulInteger|not valid"):
        from_onnx(model)
