"""Malformed ONNX models (issue 20, acceptance 5): hypothesis takes small valid models (an MLP,
a conv net, a model with integer shape inputs) and corrupts them the ways broken exporters and
truncated files do: a node input renamed to nothing or dropped, an attribute of the wrong
type or value, an initializer truncated or reshaped, an input's element type or rank changed,
another opset declared. from_onnx, tvm.compile and the VM either work or raise a clear, typed
error (ValueError / TypeError / NotImplementedError, which OnnxOpError is); any other exception
(an IndexError or AttributeError from inside a converter) or a crash fails the test."""

import copy

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from onnx import TensorProto, helper, numpy_helper

import tvm
from tvm import relax
from tvm.relax.frontend.onnx import from_onnx

TYPED = (ValueError, TypeError, NotImplementedError)


def _mlp():
    rng = np.random.default_rng(0)
    w = numpy_helper.from_array(rng.standard_normal((6, 4)).astype("float32"), "w")
    b = numpy_helper.from_array(rng.standard_normal(6).astype("float32"), "b")
    nodes = [helper.make_node("Gemm", ["x", "w", "b"], ["g"], transB=1, alpha=1.0),
             helper.make_node("Relu", ["g"], ["r"]),
             helper.make_node("Softmax", ["r"], ["y"], axis=-1)]
    graph = helper.make_graph(nodes, "mlp", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 4])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3, 6])], [w, b])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def _conv():
    rng = np.random.default_rng(1)
    w = numpy_helper.from_array(rng.standard_normal((4, 2, 3, 3)).astype("float32"), "w")
    nodes = [helper.make_node("Conv", ["x", "w"], ["c"], kernel_shape=[3, 3], pads=[1, 1, 1, 1], strides=[1, 1]),
             helper.make_node("MaxPool", ["c"], ["p"], kernel_shape=[2, 2], strides=[2, 2]),
             helper.make_node("Flatten", ["p"], ["y"], axis=1)]
    graph = helper.make_graph(nodes, "conv", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2, 6, 6])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 36])], [w])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def _shapes():
    """Reshape / Slice / Transpose with their integer parameters as graph inputs."""
    nodes = [helper.make_node("Reshape", ["x", "shape"], ["r"]),
             helper.make_node("Slice", ["r", "starts", "ends", "axes"], ["s"]),
             helper.make_node("Transpose", ["s"], ["y"], perm=[1, 0])]
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 6]),
              helper.make_tensor_value_info("shape", TensorProto.INT64, [2]),
              helper.make_tensor_value_info("starts", TensorProto.INT64, [1]),
              helper.make_tensor_value_info("ends", TensorProto.INT64, [1]),
              helper.make_tensor_value_info("axes", TensorProto.INT64, [1])]
    graph = helper.make_graph(nodes, "shapes", inputs, [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4, 2])])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])


MODELS = {"mlp": _mlp, "conv": _conv, "shapes": _shapes}
FEEDS = {"shapes": {"shape": np.array([3, 4], "int64"), "starts": np.array([1], "int64"),
                    "ends": np.array([3], "int64"), "axes": np.array([0], "int64")}}

_WRONG_ATTRS = [helper.make_attribute("x", 1.5), helper.make_attribute("x", "text"),
                helper.make_attribute("x", [1, 2, 3]), helper.make_attribute("x", -7),
                helper.make_attribute("x", [0.5]), helper.make_attribute("x", 0)]


def _corrupt(model, data):
    m = copy.deepcopy(model)
    g = m.graph
    kind = data.draw(st.sampled_from(["rename_input", "drop_input", "attr", "truncate", "reshape_init",
                                      "elem_type", "rank", "opset", "drop_node", "dup_output"]))
    node = data.draw(st.sampled_from(list(g.node)))
    if kind == "rename_input" and node.input:
        node.input[data.draw(st.integers(0, len(node.input) - 1))] = data.draw(st.sampled_from(["", "nowhere"]))
    elif kind == "drop_input" and node.input:
        del node.input[data.draw(st.integers(0, len(node.input) - 1))]
    elif kind == "attr":
        wrong = copy.deepcopy(data.draw(st.sampled_from(_WRONG_ATTRS)))
        if node.attribute and data.draw(st.booleans()):
            wrong.name = node.attribute[data.draw(st.integers(0, len(node.attribute) - 1))].name
            target = [a for a in node.attribute if a.name == wrong.name][0]
            node.attribute.remove(target)
        else:
            wrong.name = data.draw(st.sampled_from(["axis", "perm", "kernel_shape", "pads", "alpha", "bogus"]))
            for a in list(node.attribute):
                if a.name == wrong.name:
                    node.attribute.remove(a)
        node.attribute.append(wrong)
    elif kind == "truncate" and g.initializer:
        t = g.initializer[data.draw(st.integers(0, len(g.initializer) - 1))]
        raw = numpy_helper.to_array(t).tobytes()
        t.ClearField("float_data")
        t.raw_data = raw[:data.draw(st.integers(0, max(0, len(raw) - 1)))]
    elif kind == "reshape_init" and g.initializer:
        t = g.initializer[data.draw(st.integers(0, len(g.initializer) - 1))]
        dims = data.draw(st.lists(st.integers(0, 7), min_size=0, max_size=4))
        del t.dims[:]
        t.dims.extend(dims)
    elif kind == "elem_type":
        vi = g.input[data.draw(st.integers(0, len(g.input) - 1))]
        vi.type.tensor_type.elem_type = data.draw(st.sampled_from(
            [TensorProto.INT32, TensorProto.STRING, TensorProto.BOOL, TensorProto.FLOAT16, 0]))
    elif kind == "rank":
        vi = g.input[data.draw(st.integers(0, len(g.input) - 1))]
        shape = vi.type.tensor_type.shape
        if shape.dim and data.draw(st.booleans()):
            del shape.dim[-1]
        else:
            shape.dim.add().dim_value = data.draw(st.integers(0, 3))
    elif kind == "opset":
        m.opset_import[0].version = data.draw(st.integers(1, 30))
    elif kind == "drop_node" and len(g.node) > 1:
        g.node.remove(node)
    elif kind == "dup_output":
        node.output[0] = g.node[0].output[0]
    return m


def _feeds(name, model):
    """Inputs of the model's declared shapes and types (where it still declares them)."""
    rng = np.random.default_rng(5)
    feeds = {}
    for vi in model.graph.input:
        if name in FEEDS and vi.name in FEEDS[name]:
            feeds[vi.name] = FEEDS[name][vi.name]
            continue
        dims = [d.dim_value for d in vi.type.tensor_type.shape.dim]
        feeds[vi.name] = rng.standard_normal(dims).astype("float32")
    return feeds


@pytest.mark.parametrize("name", sorted(MODELS))
def test_the_valid_models_run(name):
    model = MODELS[name]()
    vm = relax.VirtualMachine(tvm.compile(from_onnx(model), "llvm"), tvm.cpu())
    feeds = _feeds(name, model)
    vm["main"](*[tvm.runtime.tensor(feeds[vi.name]) for vi in model.graph.input])


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(name=st.sampled_from(sorted(MODELS)), data=st.data())
def test_corrupted_models_work_or_raise_a_typed_error(name, data):
    model = _corrupt(MODELS[name](), data)
    try:
        mod = from_onnx(model)
        vm = relax.VirtualMachine(tvm.compile(mod, "llvm"), tvm.cpu())
        feeds = _feeds(name, model)
        vm["main"](*[tvm.runtime.tensor(feeds[vi.name]) for vi in model.graph.input])
    except TYPED:
        pass


def test_an_initializer_whose_data_does_not_fit_its_dims_is_named():
    model = _mlp()
    del model.graph.initializer[0].dims[:]  # 24 floats declared as a scalar: the checker lets it by
    with pytest.raises(ValueError, match="initializer 'w'"):
        from_onnx(model)
