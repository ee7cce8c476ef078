"""Shared by the ONNX tests against onnxruntime: for the op tests (test_onnx_ops_run_time,
test_onnx_ops_detection, test_onnx_ops_kernels) a one-graph model from nodes and named numpy
inputs and the comparison of our outputs with onnxruntime's; for the model tests
(test_real_models, test_vision_models) a whole model compared on several feed sets, then run
from its exported .so in a runtime-only process."""

import numpy as np

import onnxruntime as ort
from onnx import helper

import tvm
from tvm import relax
from tvm.relax.frontend.onnx import backend, from_onnx

from model_checks import assert_runtime_only_matches, flatten


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


def check_model(model, feed_sets, tmp_path, rtol, atol, n_outputs=None, check_output=None):
    """from_onnx + compile vs onnxruntime on every feed set (a list of numpy inputs in the
    graph's input order); then the .so in a runtime-only process on the first set, which
    must give this process's first outputs. atol: a number, or a function of onnxruntime's
    output (a tolerance relative to its magnitude). n_outputs: how many outputs both must
    give. check_output(feeds, got, want): the caller's own asserts on each pair of outputs,
    made before the values are compared."""
    ex = tvm.compile(from_onnx(model), "llvm")
    vm = relax.VirtualMachine(ex, tvm.cpu())
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    names = [i.name for i in sess.get_inputs()]
    first = None
    for feeds in feed_sets:
        got = flatten(vm["main"](*[tvm.runtime.tensor(f) for f in feeds]))
        want = sess.run(None, dict(zip(names, feeds)))
        assert len(got) == len(want)
        assert n_outputs is None or len(got) == n_outputs, (len(got), n_outputs)
        for g, w in zip(got, want):
            assert g.shape == w.shape and g.dtype == w.dtype, (g.shape, g.dtype, w.shape, w.dtype)
            if check_output is not None:
                check_output(feeds, g, w)
            np.testing.assert_allclose(g, w, rtol=rtol, atol=atol(w) if callable(atol) else atol)
        first = got if first is None else first
    assert_runtime_only_matches(ex, feed_sets[0], first, tmp_path)
