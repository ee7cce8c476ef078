"""Shape values tracked symbolically at import (frontend/onnx/shape_values.py): small graphs
computing Reshape/Expand/ConstantOfShape/Tile/Slice arguments from Shape nodes of an input
whose first dimension is symbolic. Each must import with no shape tensor at run time (no
shape_to_tensor / tensor_to_shape: the shapes are symbolic dims) and match onnxruntime for
random sizes."""

import numpy as np
import onnxruntime as ort
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from onnx import TensorProto, helper

import tvm
from tvm import relax
from tvm.relax.frontend.onnx import from_onnx

I64 = TensorProto.INT64


def _out(rank):
    return helper.make_tensor_value_info("y", TensorProto.FLOAT, [None] * rank)


def _c(name, vals, scalar=False):
    arr = np.array(vals, "int64").reshape(() if scalar else (-1,))
    return helper.make_node("Constant", [], [name], value=helper.make_tensor(name, I64, arr.shape, arr.reshape(-1)))


def _model(kind, a, b, k):
    """x: [n, a, b] float32 (n symbolic); y: the op under test fed by shape arithmetic."""
    nodes = [helper.make_node("Shape", ["x"], ["s"]), _c("i0", 0, True),
             helper.make_node("Gather", ["s", "i0"], ["n"], axis=0),  # scalar n
             _c("ax", [0]), helper.make_node("Unsqueeze", ["n", "ax"], ["n1"])]
    extra = []
    if kind == "reshape_mul":        # [n * a, b]: Mul of a symbolic scalar by a constant
        nodes += [_c("ka", a, True), helper.make_node("Mul", ["n", "ka"], ["na"]),
                  helper.make_node("Unsqueeze", ["na", "ax"], ["na1"]),
                  _c("two", [2]), _c("big", [2 ** 62]),
                  helper.make_node("Slice", ["s", "two", "big"], ["tail"]),
                  helper.make_node("Concat", ["na1", "tail"], ["t"], axis=0),
                  helper.make_node("Reshape", ["x", "t"], ["y"])]
    elif kind == "reshape_where":    # [n, -1] through the Equal/Where guard exporters write
        nodes += [_c("m1", [-1]), helper.make_node("Concat", ["n1", "m1"], ["t0"], axis=0),
                  _c("neg", [-1, -1]), helper.make_node("Equal", ["t0", "neg"], ["eq"]),
                  _c("ones", [1, 1]), helper.make_node("Where", ["eq", "ones", "t0"], ["t1"]),
                  helper.make_node("Reshape", ["x", "t0"], ["y0"]),
                  helper.make_node("Expand", ["y0", "t1"], ["y"])]
    elif kind == "expand":           # a [1, a*b] parameter broadcast to [n, k, a*b]
        nodes += [_c("tail", [k, a * b]), helper.make_node("Concat", ["n1", "tail"], ["t"], axis=0),
                  helper.make_node("Expand", ["w", "t"], ["y"])]
        extra = [helper.make_tensor("w", TensorProto.FLOAT, [1, a * b], np.arange(a * b, dtype="float32"))]
    elif kind == "constant_of_shape":  # zeros of [n, a, b] plus x, n = Div(n * k, k)
        nodes += [_c("kk", k, True), helper.make_node("Mul", ["n", "kk"], ["nk"]),
                  helper.make_node("Div", ["nk", "kk"], ["nd"]),
                  helper.make_node("Unsqueeze", ["nd", "ax"], ["nd1"]), _c("ab", [a, b]),
                  helper.make_node("Concat", ["nd1", "ab"], ["t"], axis=0),
                  helper.make_node("ConstantOfShape", ["t"], ["z"],
                                   value=helper.make_tensor("v", TensorProto.FLOAT, [1], [2.5])),
                  helper.make_node("Add", ["x", "z"], ["y"])]
    elif kind == "tile":             # x tiled [1, 1, n] times: repeats from the shape
        nodes += [_c("r", [1, 1]), helper.make_node("Concat", ["r", "n1"], ["t"], axis=0),
                  helper.make_node("Tile", ["x", "t"], ["y"])]
    elif kind == "slice_end":        # x[:max(n - k, 1)]: a symbolic Slice end
        nodes += [_c("kk", [k]), helper.make_node("Sub", ["n1", "kk"], ["e0"]),
                  _c("o", [1]), helper.make_node("Max", ["e0", "o"], ["e"]), _c("z0", [0]),
                  helper.make_node("Slice", ["x", "z0", "e", "z0"], ["y"])]
    graph = helper.make_graph(
        nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", a, b])],
        [_out(2 if kind.startswith("reshape") else 3)], initializer=extra)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


KINDS = ["reshape_mul", "reshape_where", "expand", "constant_of_shape", "tile", "slice_end"]


@pytest.mark.parametrize("kind", KINDS)
@settings(max_examples=3, deadline=None)
@given(a=st.integers(1, 4), b=st.integers(1, 4), k=st.integers(1, 3),
       batches=st.lists(st.integers(1, 6), min_size=2, max_size=2, unique=True))
def test_shape_arithmetic_matches_onnxruntime(kind, a, b, k, batches):
    model = _model(kind, a, b, k)
    mod = from_onnx(model)
    text = mod.script()  # the shapes are symbolic dims: no shape tensors at run time
    assert "tensor_to_shape" not in text and "shape_to_tensor" not in text, text
    vm = relax.VirtualMachine(relax.build(mod, "llvm"), tvm.cpu())
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    for n in batches:
        x = np.random.default_rng(n).standard_normal((n, a, b)).astype("float32")
        want = sess.run(None, {"x": x})[0]
        got = vm["main"](tvm.runtime.tensor(x)).numpy()
        assert got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


def test_shape_value_feeding_a_tensor_op_is_materialized():
    """Shape(x)[:1] -> Cast(float) -> Mul with x: the shape value becomes a tensor
    (shape_to_tensor) only where a tensor is needed."""
    nodes = [helper.make_node("Shape", ["x"], ["s"], end=1),
             helper.make_node("Cast", ["s"], ["f"], to=TensorProto.FLOAT),
             helper.make_node("Mul", ["x", "f"], ["y"])]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 3])],
                              [_out(2)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    mod = from_onnx(model)
    assert "shape_to_tensor" in mod.script()
    vm = relax.VirtualMachine(relax.build(mod, "llvm"), tvm.cpu())
    x = np.ones((4, 3), "float32")
    np.testing.assert_allclose(vm["main"](tvm.runtime.tensor(x)).numpy(), x * 4)


def test_gather_out_of_range_on_a_shape_value_raises():
    nodes = [helper.make_node("Shape", ["x"], ["s"]), _c("i", 5, True),
             helper.make_node("Gather", ["s", "i"], ["g"]), _c("ax", [0]),
             helper.make_node("Unsqueeze", ["g", "ax"], ["t"]),
             helper.make_node("Reshape", ["x", "t"], ["y"])]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 3])],
                              [_out(1)])
    with pytest.raises(ValueError, match="Gather index 5 out of range"):
        from_onnx(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]))
