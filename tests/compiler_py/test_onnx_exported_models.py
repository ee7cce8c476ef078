"""ONNX files as a real exporter writes them: the four architectures of test_torch_frontend
(MLP; ResNet-style CNN with batch norm and pooling; DenseNet/Inception-style CNN with concat;
BERT-style encoder with token/position/segment embeddings, masked attention, layer norm,
GELU) exported by torch.onnx.export (the TorchScript exporter) with a dynamic batch, imported
with from_onnx, built by the default pipeline and run on the Relax VM; outputs compared with
onnxruntime on the same file for two batch sizes. The CNNs also at opset 9, the opset model-zoo
CNNs still ship at.

Tolerance: float32, rtol = atol = 1e-4 (as for the torch frontend; measured differences are
~1e-6, the kernels only sum in another order).
"""

import io
import warnings

import numpy as np
import onnx
import onnxruntime as ort
import pytest
import torch

import tvm
from tvm import relax
from tvm.relax.frontend.onnx import from_onnx
from test_torch_frontend import _inputs, _model

RTOL = ATOL = 1e-4


def export(name, opset, dynamic=True):
    model, inputs = _model(name), _inputs(name, 2)
    names = ["x"] if len(inputs) == 1 else ["ids", "mask"]
    buf = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the TorchScript exporter's deprecation notice
        torch.onnx.export(model, tuple(inputs), buf, opset_version=opset, dynamo=False,
                          input_names=names, output_names=["y"],
                          dynamic_axes={n: {0: "batch"} for n in names + ["y"]} if dynamic else None)
    return onnx.load_from_string(buf.getvalue()), names


@pytest.mark.parametrize("name,opset", [
    ("mlp", 17), ("resnet", 17), ("dense", 17), ("resnet", 9), ("dense", 9), ("bert", 17)])
def test_exported_model_matches_onnxruntime(name, opset):
    """(The encoder computes its reshapes' and Expand's shapes from Shape nodes of the
    dynamic batch; from_onnx keeps them symbolic: frontend/onnx/shape_values.py.)"""
    model, names = export(name, opset)
    assert model.opset_import[0].version == opset
    vm = relax.VirtualMachine(relax.build(from_onnx(model), "llvm"), tvm.cpu())
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    for batch in (1, 3):
        feeds = {n: t.numpy() for n, t in zip(names, _inputs(name, batch, seed=7))}
        want = sess.run(None, feeds)[0]
        got = vm["main"](*[tvm.runtime.tensor(feeds[n]) for n in names]).numpy()
        assert got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL)
