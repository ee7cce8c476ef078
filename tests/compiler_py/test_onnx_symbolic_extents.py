"""ONNX converters on symbolic extents (a model exported with dynamic axes): ConvTranspose with
symbolic batch and image extents, LSTM/GRU with a symbolic batch; one compiled module, run on
drawn sizes, vs onnxruntime. What needs a static extent (ConvTranspose's output_shape, an RNN's
sequence length, which is unrolled) is refused at import with a clear error."""

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


def _rnn_model(op, layout, direction, seq):
    rng = np.random.default_rng(1)
    g, hid, inp = {"LSTM": 4, "GRU": 3}[op], 5, 3
    dirs = 2 if direction == "bidirectional" else 1
    w = (rng.standard_normal((dirs, g * hid, inp)) * 0.5).astype("float32")
    r = (rng.standard_normal((dirs, g * hid, hid)) * 0.5).astype("float32")
    b = (rng.standard_normal((dirs, 2 * g * hid)) * 0.1).astype("float32")
    node = helper.make_node(op, ["x", "w", "r", "b"], ["y", "yh"], hidden_size=hid, direction=direction,
                            layout=layout)
    xshape = ["N", seq, inp] if layout else [seq, "N", inp]
    yshape = ["N", seq, dirs, hid] if layout else [seq, dirs, "N", hid]
    hshape = ["N", dirs, hid] if layout else [dirs, "N", hid]
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, xshape)],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, yshape),
                               helper.make_tensor_value_info("yh", TensorProto.FLOAT, hshape)],
                              [numpy_helper.from_array(w, "w"), numpy_helper.from_array(r, "r"),
                               numpy_helper.from_array(b, "b")])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)])


# layout 0 only: onnxruntime refuses batch-first (layout 1) recurrent nodes. Few examples:
# every one compiles an unrolled graph.
@settings(max_examples=3, deadline=None)
@given(op=st.sampled_from(["LSTM", "GRU"]), layout=st.just(0),
       direction=st.sampled_from(["forward", "reverse", "bidirectional"]),
       batches=st.lists(st.integers(1, 4), min_size=2, max_size=2, unique=True))
def test_rnn_with_symbolic_batch_matches_onnxruntime(op, layout, direction, batches):
    model = _rnn_model(op, layout, direction, 2)
    vm = relax.VirtualMachine(tvm.compile(from_onnx(model), "llvm"), tvm.cpu())
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    for n in batches:
        x = np.random.default_rng(n).standard_normal((n, 2, 3) if layout else (2, n, 3)).astype("float32")
        got = vm["main"](tvm.runtime.tensor(x))
        for g, w in zip(got, sess.run(None, {"x": x})):
            assert g.numpy().shape == w.shape
            np.testing.assert_allclose(g.numpy(), w, rtol=1e-4, atol=1e-5)


def test_rnn_with_symbolic_sequence_is_refused():
    with pytest.raises(NotImplementedError, match="sequence length unknown at import"):
        from_onnx(_rnn_model("GRU", 0, "forward", "T"))
