"""ONNX ConvTranspose with symbolic batch and image extents (a model exported with dynamic
axes): one compiled module, run on drawn sizes, vs onnxruntime; output_shape with a symbolic
extent is refused at import with a clear error."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

import tvm  # noqa: E402
from tvm import relax  # noqa: E402
from tvm.relax.frontend.onnx import from_onnx  # noqa: E402


def _model(stride, pad, out_pad, dil, group, **extra):
    w = np.random.default_rng(0).standard_normal((4, 6 // group, 3, 2)).astype("float32")
    node = helper.make_node("ConvTranspose", ["x", "w"], ["y"], strides=[stride, stride], pads=[pad, 0, pad, 1],
                            output_padding=[out_pad, 0], dilations=[dil, dil], group=group, **extra)
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 4, "H", "W"])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", "C", "OH", "OW"])],
                              [numpy_helper.from_array(w, "w")])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


@settings(max_examples=6, deadline=None)
@given(stride=st.integers(1, 3), pad=st.integers(0, 1), dil=st.integers(1, 2), group=st.sampled_from([1, 2]),
       sizes=st.lists(st.tuples(st.integers(1, 3), st.integers(2, 6), st.integers(2, 6)), min_size=2, max_size=2))
def test_symbolic_extents_match_onnxruntime(stride, pad, dil, group, sizes):
    out_pad = min(1, stride - 1)
    model = _model(stride, pad, out_pad, dil, group)
    vm = relax.VirtualMachine(tvm.compile(from_onnx(model), "llvm"), tvm.cpu())
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    for n, h, w in sizes:
        x = np.random.default_rng(h * 10 + w).standard_normal((n, 4, h, w)).astype("float32")
        want = sess.run(None, {"x": x})[0]
        got = vm["main"](tvm.runtime.tensor(x)).numpy()
        assert got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


def test_output_shape_with_symbolic_extent_is_refused():
    node = helper.make_node("ConvTranspose", ["x", "w"], ["y"], strides=[2, 2], output_shape=[8, 8])
    w = np.ones((4, 2, 3, 3), "float32")
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, "H", "W"])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", "C", "OH", "OW"])],
                              [numpy_helper.from_array(w, "w")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    with pytest.raises(NotImplementedError, match="unknown at import"):
        from_onnx(model)
