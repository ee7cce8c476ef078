"""Writes a small ResNet-style classifier as an ONNX file (what an exporter would give: Conv,
BatchNormalization, Relu, MaxPool, a residual Add, GlobalAveragePool, Flatten, Gemm, Softmax;
a dynamic batch), plus an input batch and onnxruntime's output for it, for the main job's
model part (tools/run_demo.sh): python3 make_model.py OUT_DIR."""

import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper


def model(seed=0, channels=32, size=32, classes=10):
    rng = np.random.default_rng(seed)
    nodes, inits = [], []

    def const(name, arr):
        inits.append(numpy_helper.from_array(np.asarray(arr, "float32"), name))
        return name

    def conv_bn(x, cin, cout, name, relu=True):
        w = const(name + "_w", rng.standard_normal((cout, cin, 3, 3)) / np.sqrt(9 * cin))
        stats = [const(name + s, v) for s, v in (("_g", rng.uniform(0.5, 1.5, cout)),
                                                  ("_b", rng.standard_normal(cout) * 0.1),
                                                  ("_m", rng.standard_normal(cout) * 0.1),
                                                  ("_v", rng.uniform(0.5, 1.5, cout)))]
        nodes.append(helper.make_node("Conv", [x, w], [name + "_c"], pads=[1, 1, 1, 1]))
        nodes.append(helper.make_node("BatchNormalization", [name + "_c"] + stats, [name + "_n"]))
        if not relu:
            return name + "_n"
        nodes.append(helper.make_node("Relu", [name + "_n"], [name]))
        return name

    y = conv_bn("x", 3, channels, "stem")
    nodes.append(helper.make_node("MaxPool", [y], ["pool"], kernel_shape=[2, 2], strides=[2, 2]))
    h = conv_bn(conv_bn("pool", channels, channels, "b1"), channels, channels, "b2", relu=False)
    nodes.append(helper.make_node("Add", [h, "pool"], ["res"]))
    nodes.append(helper.make_node("Relu", ["res"], ["res_r"]))
    nodes.append(helper.make_node("GlobalAveragePool", ["res_r"], ["gap"]))
    nodes.append(helper.make_node("Flatten", ["gap"], ["flat"]))
    fc_w = const("fc_w", rng.standard_normal((classes, channels)) / np.sqrt(channels))
    nodes.append(helper.make_node("Gemm", ["flat", fc_w, const("fc_b", np.zeros(classes))], ["logits"],
                                  transB=1))
    nodes.append(helper.make_node("Softmax", ["logits"], ["y"], axis=-1))
    graph = helper.make_graph(
        nodes, "resnet_block",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 3, size, size])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", classes])], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    m = model()
    with open(os.path.join(out, "model.onnx"), "wb") as f:
        f.write(m.SerializeToString())
    x = np.random.default_rng(1).standard_normal((4, 3, 32, 32)).astype("float32")
    np.save(os.path.join(out, "x.npy"), x)
    import onnxruntime as ort

    sess = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])
    np.save(os.path.join(out, "expected.npy"), sess.run(None, {"x": x})[0])
    print("make_model: wrote model.onnx, x.npy and onnxruntime's expected.npy to %s" % out)


if __name__ == "__main__":
    main()
