"""Shared by the ONNX op tests against onnxruntime (test_onnx_ops_run_time,
test_onnx_ops_detection): a one-graph model from nodes and named numpy inputs, and the
comparison of our outputs with onnxruntime's."""

import numpy as np

import onnxruntime as ort
from onnx import helper

from tvm.relax.frontend.onnx import backend


def model(nodes, inputs, outputs, opset):
    """A model of `nodes` whose graph inputs are `inputs` (name -> numpy array: dtype and
    static shape) and whose outputs `outputs` are declared without a type."""
    graph = helper.make_graph(
        nodes, "g",
        [helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(v.dtype), list(v.shape))
         for n, v in inputs.items()],
        [helper.make_empty_tensor_value_info(o) for o in outputs])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def check(nodes, inputs, outputs, opset, rtol=1e-5, atol=1e-5, symbolic_outputs=False):
    """Our outputs against onnxruntime's: shapes, dtypes and values. The outputs are declared
    with onnxruntime's dtypes (shape inference cannot know them when a parameter is an
    input) and its shapes, or with a symbolic name per axis (symbolic_outputs: for outputs
    whose extents depend on the data). Returns our outputs."""
    m = model(nodes if isinstance(nodes, list) else [nodes], inputs, outputs, opset)
    want = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, inputs)
    del m.graph.output[:]
    m.graph.output.extend([helper.make_tensor_value_info(
        o, helper.np_dtype_to_tensor_dtype(w.dtype),
        ["d%d_%d" % (i, k) for k in range(w.ndim)] if symbolic_outputs else list(w.shape))
        for i, (o, w) in enumerate(zip(outputs, want))])
    got = backend.prepare(m, "CPU").run(inputs)
    for g, w in zip(got, want):
        assert g.shape == w.shape and g.dtype == w.dtype, (g.shape, w.shape, g.dtype, w.dtype)
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol)
    return got
