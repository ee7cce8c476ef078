"""torchvision architectures with random weights (issue 20, acceptance 3), the same two ways as
test_real_models.py:

1. torch.onnx.export (TorchScript exporter, dynamo=False, opset 17) -> from_onnx -> tvm.compile
   for llvm, compared with onnxruntime on the same model; the compiled module is exported to
   one .so and run again in a runtime-only process (TVM_USE_RUNTIME_LIB=1), whose outputs
   must equal the in-process ones bit for bit.
2. torch.export.export -> from_exported_program -> compiled, compared with the eager module.

torchvision does not load beside this interpreter's torch (2.13 CPU wheel), so the models are
built, exported and (for 2) imported in the vision venv that tools/install_deps.sh makes
(torch 2.14.1 + torchvision 0.29.1; $TVM_VISION_VENV, default
~/.cache/tvm-stack/vision-torch-2.14.1) by vision_models.py; the ONNX model is compiled and
compared here. A missing venv FAILS the tests with that instruction (it is not a GPU).

Models (vision_models.py; batch-norm statistics measured on synthetic scenes, since a random
MobileNetV3 otherwise outputs a spatially constant map; docs/relax.md "Real models"):
- DeepLabV3, MobileNetV3-Large backbone, 5 classes; dynamic batch, height and width
  (2x3x96x160, 1x3x128x128). rtol 1e-4, atol 2e-5 x the largest output magnitude (logits up
  to ~1.8e3; measured max difference 7.5e-3, i.e. 4e-6 of it), both paths.
- Faster R-CNN, MobileNetV3-Large 320 FPN, 3 classes; dynamic image height and width
  (3x320x320, 3x240x300). Detections compared with onnxruntime and with eager torch as sets:
  the same count, a one-to-one pairing with the same label, scores within 2e-4 and corners
  within 0.05 px (measured 8e-5 and 0.011 px, as large as onnxruntime vs eager torch), our
  scores in descending order; the order of detections is not compared (scores closer than
  float32 noise may swap). No torch.export check: torch.export fails inside torchvision
  (GuardOnDataDependentSymNode in batched_nms).
"""

import os
import subprocess
import sys

import numpy as np

import onnx
import onnxruntime as ort

import tvm
from tvm import relax
from tvm.relax.frontend.onnx import from_onnx

SEG_ATOL = 2e-5  # of the largest output magnitude (see the module docstring)
HERE = os.path.dirname(os.path.abspath(__file__))
HELPER = os.path.join(HERE, "vision_models.py")
STAMP = ".tvm-stack-complete"


def _venv():
    d = os.environ.get("TVM_VISION_VENV", "").strip() or os.path.join(
        os.path.expanduser("~"), ".cache", "tvm-stack", "vision-torch-2.14.1")
    py = os.path.join(d, "bin", "python")
    assert os.path.isfile(os.path.join(d, STAMP)) and os.path.exists(py), (
        "the torchvision venv is missing at TVM_VISION_VENV=%r: run tools/install_deps.sh "
        "(it installs torch 2.14.1 + torchvision 0.29.1 there; then `bazel sync --configure`)" % d)
    return py


def _our_pythonpath():
    """The folders holding our `tvm` and `tvm_ffi` packages, and nothing else of this
    interpreter (its torch must not shadow the venv's)."""
    import tvm_ffi

    dirs = []
    for mod in (tvm, tvm_ffi):
        d = os.path.dirname(os.path.dirname(os.path.abspath(mod.__file__)))
        if d not in dirs:
            dirs.append(d)
    for d in dirs:
        assert not os.path.isdir(os.path.join(d, "torch")), "our packages beside a torch: %s" % d
    return os.pathsep.join(dirs)


def _run_venv(args, timeout, ours=False):
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    if ours:
        env["PYTHONPATH"] = _our_pythonpath()
    proc = subprocess.run([_venv(), HELPER] + args, env=env, capture_output=True, text=True,
                          timeout=timeout)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-8000:]
    return proc.stdout


def _flatten(value):
    if hasattr(value, "numpy"):
        return [value.numpy()]
    return [a for v in value for a in _flatten(v)]


_RUNTIME_ONLY = (
    "import sys, numpy as np, tvm, tvm_ffi\n"
    "from tvm.runtime.vm import VirtualMachine\n"
    "assert tvm.base.RUNTIME_ONLY\n"
    "vm = VirtualMachine(tvm_ffi.load_module(sys.argv[1]), tvm.cpu())\n"
    "feeds = np.load(sys.argv[2])\n"
    "args = [tvm.runtime.tensor(feeds['arr_%d' % i]) for i in range(len(feeds.files))]\n"
    "def flat(v):\n"
    "    return [v.numpy()] if hasattr(v, 'numpy') else [a for x in v for a in flat(x)]\n"
    "np.savez(sys.argv[3], *flat(vm['main'](*args)))\n")


def _run_runtime_only(lib, feeds, tmp_path):
    np.savez(str(tmp_path / "rt_in.npz"), *feeds)
    proc = subprocess.run([sys.executable, "-c", _RUNTIME_ONLY, lib, str(tmp_path / "rt_in.npz"),
                           str(tmp_path / "rt_out.npz")],
                          env=dict(os.environ, TVM_USE_RUNTIME_LIB="1", PYTHONPATH=os.pathsep.join(sys.path)),
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    out = np.load(str(tmp_path / "rt_out.npz"))
    return [out["arr_%d" % i] for i in range(len(out.files))]


def _exported(name, tmp_path):
    _run_venv(["onnx", name, str(tmp_path)], timeout=600)
    model = onnx.load(str(tmp_path / "model.onnx"))
    sets = []
    i = 0
    while os.path.exists(str(tmp_path / ("inputs_%d.npz" % i))):
        f = np.load(str(tmp_path / ("inputs_%d.npz" % i)))
        sets.append([f["arr_%d" % k] for k in range(len(f.files))])
        i += 1
    assert sets
    return model, sets


def test_deeplabv3_onnx_matches_onnxruntime_and_runs_runtime_only(tmp_path):
    model, sets = _exported("deeplabv3", tmp_path)
    assert "Resize" in {n.op_type for n in model.graph.node}
    ex = tvm.compile(from_onnx(model), "llvm")
    vm = relax.VirtualMachine(ex, tvm.cpu())
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    names = [i.name for i in sess.get_inputs()]
    first = None
    for feeds in sets:
        got = _flatten(vm["main"](*[tvm.runtime.tensor(f) for f in feeds]))
        want = sess.run(None, dict(zip(names, feeds)))
        assert len(got) == len(want) == 1
        for g, w in zip(got, want):
            assert g.shape == w.shape and g.dtype == w.dtype, (g.shape, g.dtype, w.shape, w.dtype)
            assert g.shape[2:] == feeds[0].shape[2:]  # logits at the input's resolution
            scale = float(np.abs(w).max())
            print("deeplabv3 %s: max abs diff %.3g, outputs up to %.3g" % (
                feeds[0].shape, float(np.abs(g - w).max()), scale))
            np.testing.assert_allclose(g, w, rtol=1e-4, atol=SEG_ATOL * scale)
        first = got if first is None else first
    lib = str(tmp_path / "model.so")
    ex.export_library(lib)
    again = _run_runtime_only(lib, sets[0], tmp_path)
    assert len(again) == len(first)
    for a, b in zip(again, first):
        np.testing.assert_array_equal(a, b)


def _match_detections(got, want, score_tol, box_tol, what):
    """(boxes [n, 4], labels [n], scores [n]) of two runs: the same number of detections, each
    of `got` paired with its own detection of `want` of the same label, a score within
    score_tol and corners within box_tol pixels (a one-to-one pairing, nearest box first).
    Order is not compared: detections whose scores differ by less than the tolerance may
    come in either order."""
    gb, gl, gs = got
    wb, wl, ws = want
    assert gb.shape == wb.shape and gl.shape == wl.shape and gs.shape == ws.shape, (what, gb.shape, wb.shape)
    assert gb.dtype == wb.dtype and gl.dtype == wl.dtype and gs.dtype == ws.dtype, what
    assert np.all(np.diff(gs) <= score_tol), "%s: scores not in descending order" % what
    used = np.zeros(len(ws), bool)
    for i in range(len(gs)):
        dist = np.abs(wb - gb[i]).max(1)
        ok = np.flatnonzero(~used & (wl == gl[i]) & (np.abs(ws - gs[i]) <= score_tol) & (dist <= box_tol))
        assert ok.size, "%s: detection %d (label %d, score %.6f, box %s) has no match" % (
            what, i, gl[i], gs[i], gb[i])
        used[ok[np.argmin(dist[ok])]] = True


def test_fasterrcnn_onnx_matches_onnxruntime_and_runs_runtime_only(tmp_path):
    model, sets = _exported("fasterrcnn", tmp_path)
    ops = {n.op_type for n in model.graph.node}
    sub = {n.op_type for n in model.graph.node if n.op_type == "If"
           for a in n.attribute for n in a.g.node}
    assert {"TopK", "RoiAlign", "NonZero", "If"} <= ops and "NonMaxSuppression" in sub, ops
    ex = tvm.compile(from_onnx(model), "llvm")
    vm = relax.VirtualMachine(ex, tvm.cpu())
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    name = sess.get_inputs()[0].name
    first = None
    for i, feeds in enumerate(sets):
        got = _flatten(vm["main"](tvm.runtime.tensor(feeds[0])))
        want = sess.run(None, {name: feeds[0]})
        assert len(got) == len(want) == 3
        assert got[0].shape[0] > 10, got[0].shape  # real detections, not an empty result
        _match_detections(got, want, 2e-4, 5e-2, "image %d vs onnxruntime" % i)
        eager = np.load(str(tmp_path / ("eager_%d.npz" % i)))
        _match_detections(got, [eager["arr_%d" % k] for k in range(3)], 2e-4, 5e-2,
                          "image %d vs eager torch" % i)
        first = got if first is None else first
    lib = str(tmp_path / "model.so")
    ex.export_library(lib)
    again = _run_runtime_only(lib, sets[0], tmp_path)
    assert len(again) == len(first)
    for a, b in zip(again, first):
        np.testing.assert_array_equal(a, b)


def test_deeplabv3_torch_export_matches_eager():
    out = _run_venv(["export", "deeplabv3"], timeout=900, ours=True)
    assert out.count("torch.export deeplabv3") == 2, out
