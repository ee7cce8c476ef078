"""Float ONNX models (an MLP of Gemms, a small CNN of Convs + a MatMul head) with seeded
weights, and their quantization by onnxruntime.quantization: static (QDQ format, uint8
activations, int8 weights, calibrated on seeded random data) or dynamic (DynamicQuantizeLinear
+ MatMulInteger / ConvInteger). Used by test_onnx_quantized.py and benchmarks/quant_bench.py."""

import os
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def _weight(rng, name, shape, scale):
    return numpy_helper.from_array((rng.standard_normal(shape) * scale).astype("float32"), name)


def mlp(batch=8, sizes=(64, 128, 96, 10), seed=0):
    """Gemm + Relu layers (no Relu after the last)."""
    rng = np.random.default_rng(seed)
    nodes, inits, prev = [], [], "x"
    for i in range(len(sizes) - 1):
        inits += [_weight(rng, "w%d" % i, (sizes[i], sizes[i + 1]), 1 / np.sqrt(sizes[i])),
                  _weight(rng, "b%d" % i, (sizes[i + 1],), 0.1)]
        nodes.append(helper.make_node("Gemm", [prev, "w%d" % i, "b%d" % i], ["g%d" % i]))
        prev = "g%d" % i
        if i < len(sizes) - 2:
            nodes.append(helper.make_node("Relu", [prev], ["r%d" % i]))
            prev = "r%d" % i
    graph = helper.make_graph(
        nodes, "mlp", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [batch, sizes[0]])],
        [helper.make_tensor_value_info(prev, TensorProto.FLOAT, [batch, sizes[-1]])], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def cnn(batch=2, hw=16, c1=16, c2=32, seed=0):
    """conv3x3(c1)-relu-maxpool2 -> conv3x3/2(c2)-relu -> flatten -> MatMul + Add (10)."""
    rng = np.random.default_rng(seed)
    flat = c2 * (hw // 4) * (hw // 4)
    inits = [_weight(rng, "w1", (c1, 3, 3, 3), 0.3), _weight(rng, "b1", (c1,), 0.1),
             _weight(rng, "w2", (c2, c1, 3, 3), 1 / np.sqrt(9 * c1)), _weight(rng, "b2", (c2,), 0.1),
             _weight(rng, "wf", (flat, 10), 1 / np.sqrt(flat)), _weight(rng, "bf", (10,), 0.1),
             numpy_helper.from_array(np.array([batch, flat], "int64"), "shape")]
    nodes = [helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["c1"], ["r1"]),
             helper.make_node("MaxPool", ["r1"], ["p1"], kernel_shape=[2, 2], strides=[2, 2]),
             helper.make_node("Conv", ["p1", "w2", "b2"], ["c2"], pads=[1, 1, 1, 1], strides=[2, 2]),
             helper.make_node("Relu", ["c2"], ["r2"]),
             helper.make_node("Reshape", ["r2", "shape"], ["f"]),
             helper.make_node("MatMul", ["f", "wf"], ["m"]),
             helper.make_node("Add", ["m", "bf"], ["y"])]
    graph = helper.make_graph(
        nodes, "cnn", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [batch, 3, hw, hw])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [batch, 10])], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


class _Calibration:
    """onnxruntime's CalibrationDataReader protocol: seeded standard-normal batches."""

    def __init__(self, name, shape, count=8, seed=1):
        rng = np.random.default_rng(seed)
        self._feeds = iter([{name: rng.standard_normal(shape).astype("float32")} for _ in range(count)])

    def get_next(self):
        return next(self._feeds, None)


def input_shape(model):
    return [d.dim_value for d in model.graph.input[0].type.tensor_type.shape.dim]


def quantize(model, how, per_channel=False, activations="uint8"):
    """The model quantized by onnxruntime: how = "static" (QDQ) or "dynamic". Per-channel
    weights use reduce_range (7-bit weights), onnxruntime's advice for CPUs without VNNI:
    there its u8 x s8 kernel adds pairs of products in int16 (vpmaddubsw), which saturates
    for full-range weights and then differs from the graph's meaning by many steps.
    activations: "uint8" (onnxruntime's default) or "int8" (static only; asymmetric)."""
    from onnxruntime import quantization as q

    with tempfile.TemporaryDirectory() as d:
        src, dst = os.path.join(d, "float.onnx"), os.path.join(d, "quant.onnx")
        onnx.save(model, src)
        if how == "static":
            q.quantize_static(src, dst, _Calibration(model.graph.input[0].name, input_shape(model)),
                              quant_format=q.QuantFormat.QDQ, per_channel=per_channel,
                              reduce_range=per_channel, weight_type=q.QuantType.QInt8,
                              activation_type={"uint8": q.QuantType.QUInt8, "int8": q.QuantType.QInt8}[activations],
                              extra_options={"ActivationSymmetric": False})
        elif how == "dynamic":
            q.quantize_dynamic(src, dst, per_channel=per_channel, reduce_range=per_channel,
                               weight_type=q.QuantType.QInt8)
        else:
            raise ValueError("how must be 'static' or 'dynamic', got %r" % (how,))
        return onnx.load(dst)
