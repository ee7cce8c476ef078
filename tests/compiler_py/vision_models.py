"""The torchvision side of tests/compiler_py/test_vision_models.py. It runs in the vision venv
(tools/install_deps.sh: torch 2.14.1 + torchvision 0.29.1, which do not load beside the test
interpreter's torch 2.13 CPU wheel), never in the test interpreter itself.

  python vision_models.py onnx MODEL OUT_DIR
      builds MODEL (random weights, fixed seed, nothing downloaded), exports it with
      torch.onnx.export (TorchScript exporter, dynamo=False) to OUT_DIR/model.onnx and writes
      the inputs of each check to OUT_DIR/inputs_<i>.npz (arr_0, arr_1, ... in the graph's
      input order). The test interpreter compiles the model and compares it with onnxruntime.

  python vision_models.py export MODEL
      torch.export -> our from_exported_program -> tvm.compile (llvm) -> run, compared with
      the eager module; needs our python/ folder on PYTHONPATH (the ExportedProgram can only
      be read in the interpreter that made it). Exits non-zero on any mismatch.
      deeplabv3: torch.export.export with dynamic batch, height and width.
      fasterrcnn: torch.export.draft_export (torch.export.export stops at torchvision's
      data-dependent branches); static image size 3x320x320, two images; detections
      compared as sets (model_checks.match_detections).

  python vision_models.py refs
      tests/compiler_py/torchvision_ops.py's numpy nms / roi_align (the references of
      test_torch_detection, which runs without torchvision) against torchvision.ops on
      drawn inputs. Exits non-zero on any mismatch.

MODEL: deeplabv3 (DeepLabV3 with a MobileNetV3-Large backbone, 5 classes: hardswish,
squeeze-excitation, atrous convolutions, ASPP with global pooling, bilinear upsampling) or
fasterrcnn (Faster R-CNN, MobileNetV3-Large 320 FPN, 3 classes: the RPN's TopK over anchors,
NMS, MultiScaleRoIAlign, the box head's score threshold and per-class NMS).
"""

import io
import sys

import numpy as np
import torch

from model_checks import flatten, match_detections

# rtol, and atol as a fraction of the largest output magnitude, of the torch.export check
# (float32; see the test's docstring)
TOLERANCES = {"deeplabv3": (1e-4, 2e-5)}
# Faster R-CNN's detections vs eager torch: scores within 2e-4, box corners within 0.05 px
# (the ONNX path's tolerances; measured in the test's docstring)
DETECTION_TOLERANCES = (2e-4, 5e-2)


def _calibrate(part, batches):
    """Batch-norm running statistics measured on synthetic scenes (a cumulative average over
    `batches`, the part in training mode once). With torchvision's defaults (mean 0, var 1)
    a random MobileNetV3 shrinks its activations layer by layer to a spatially constant map:
    the outputs would not depend on the image. Measured statistics keep every layer's output
    at unit scale, as trained weights do."""
    with torch.no_grad():
        for m in part.modules():
            if isinstance(m, torch.nn.BatchNorm2d):
                m.reset_running_stats()
                m.momentum = None
        part.train()
        for b in batches:
            part(b)
    part.eval()


def _calibration_scenes(h, w, n=4):
    g = torch.Generator().manual_seed(11)
    return torch.stack([torch.from_numpy(_scene(g, h, w)) for _ in range(n)])


def build(name):
    torch.manual_seed(0)
    if name == "deeplabv3":
        from torchvision.models.segmentation import deeplabv3_mobilenet_v3_large

        model = deeplabv3_mobilenet_v3_large(weights=None, weights_backbone=None, num_classes=5,
                                             aux_loss=False)
        mean, std = torch.tensor([0.485, 0.456, 0.406]), torch.tensor([0.229, 0.224, 0.225])
        scenes = (_calibration_scenes(128, 128) - mean[:, None, None]) / std[:, None, None]
        _calibrate(model, [scenes])
        return model
    if name == "fasterrcnn":
        from torchvision.models.detection import fasterrcnn_mobilenet_v3_large_320_fpn

        # 3 classes: with random weights the class scores are near 1/3, above the default
        # score threshold 0.05, so the detections are not empty (with 91 classes all would be
        # under it).
        model = fasterrcnn_mobilenet_v3_large_320_fpn(weights=None, weights_backbone=None,
                                                      num_classes=3).eval()
        images, _ = model.transform(list(_calibration_scenes(320, 320)))
        _calibrate(model.backbone, [images.tensors])
        # torchvision initializes the RPN head and the box predictor with std 0.01 / 0.001
        # (near-equal objectness and class scores everywhere: the top-k and NMS would decide
        # between near-ties); fan-in-scaled weights spread the scores.
        g = torch.Generator().manual_seed(3)
        with torch.no_grad():
            for mod, gain in ((model.rpn.head, 1.0), (model.roi_heads.box_predictor, 4.0)):
                for p in mod.parameters():
                    if p.dim() > 1:
                        p.copy_(torch.randn(p.shape, generator=g) * gain / p[0].numel() ** 0.5)
                    else:
                        p.copy_(torch.randn(p.shape, generator=g) * 0.1)
        return model
    raise SystemExit("unknown model %r" % name)


def images(name):
    """The input sets of the checks: a list of argument lists (numpy float32)."""
    g = torch.Generator().manual_seed(2)
    if name == "deeplabv3":
        # the export's shape (batch 2: torch.export specializes a 1), then another batch and
        # spatial size (all three dynamic)
        return [[torch.randn(2, 3, 96, 160, generator=g).numpy()],
                [torch.randn(1, 3, 128, 128, generator=g).numpy()]]
    # one image (the model resizes it to 320 on its shorter side); the second of another size
    # (height and width are dynamic in the export)
    return [[_scene(g, 320, 320)], [_scene(g, 240, 300)]]


def _scene(g, h, w):
    """A synthetic photo: smooth random texture at two scales with a dozen filled rectangles
    and soft discs of random colours and sizes. (White noise or a plain background give the
    backbone a spatially uniform response: regions a stride apart then score alike to the
    last bit and the top-k and NMS decide between exact ties.)"""
    yy, xx = torch.meshgrid(torch.arange(h, dtype=torch.float32), torch.arange(w, dtype=torch.float32),
                            indexing="ij")

    def texture(n):
        t = torch.rand(1, 3, n, n, generator=g)
        return torch.nn.functional.interpolate(t, size=(h, w), mode="bicubic", align_corners=False)[0]
    img = 0.6 * texture(5) + 0.4 * texture(23)
    for k in range(12):
        col = torch.rand(3, 1, 1, generator=g)
        cy, cx = float(torch.rand(1, generator=g)) * h, float(torch.rand(1, generator=g)) * w
        ry, rx = 8 + float(torch.rand(1, generator=g)) * h / 4, 8 + float(torch.rand(1, generator=g)) * w / 4
        if k % 2:
            m = ((yy - cy).abs() < ry) & ((xx - cx).abs() < rx)
            img = torch.where(m, col, img)
        else:
            a = torch.exp(-(((yy - cy) / ry) ** 2 + ((xx - cx) / rx) ** 2))
            img = img * (1 - a) + col * a
    img = img + 0.02 * torch.randn(3, h, w, generator=g)
    return img.clamp(0, 1).numpy()


def _outputs(out):
    if isinstance(out, dict):
        return list(out.values())
    if isinstance(out, (tuple, list)):
        return [t for o in out for t in _outputs(o)]
    return [out]


class _Segment(torch.nn.Module):
    """torchvision's segmentation models return {"out": ...}: the tensor itself."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x):
        return self.model(x)["out"]


def export_onnx(name, out_dir):
    model = build(name)
    sets = images(name)
    buf = io.BytesIO()
    if name == "deeplabv3":
        args = (torch.from_numpy(sets[0][0]),)
        module, dyn = _Segment(model).eval(), {"x": {0: "N", 2: "H", 3: "W"}}
        names = ["x"]
    else:
        args = ([torch.from_numpy(sets[0][0])],)
        module, dyn, names = model, {"image": {1: "H", 2: "W"}}, ["image"]
    with torch.no_grad():
        torch.onnx.export(module, args, buf, dynamo=False, opset_version=17, input_names=names,
                          dynamic_axes=dyn)
        # the eager outputs, for the record (the test compares with onnxruntime on the ONNX
        # model; eager and onnxruntime are compared there too)
        for i, s in enumerate(sets):
            want = _outputs(module(*([torch.from_numpy(a) for a in s] if name == "deeplabv3"
                                      else [[torch.from_numpy(a) for a in s]])))
            np.savez("%s/eager_%d.npz" % (out_dir, i), *[t.numpy() for t in want])
    with open("%s/model.onnx" % out_dir, "wb") as f:
        f.write(buf.getvalue())
    for i, s in enumerate(sets):
        np.savez("%s/inputs_%d.npz" % (out_dir, i), *s)


def check_torch_export(name):
    import tvm
    from tvm import relax
    from tvm.relax.frontend.torch import from_exported_program

    model = build(name)
    sets = images(name)
    if name == "fasterrcnn":
        return _check_detector(model)
    module = _Segment(model).eval()
    rtol, atol = TOLERANCES[name]
    x0 = torch.from_numpy(sets[0][0])
    from torch.export import Dim

    dyn = ({0: Dim("batch", min=1, max=8), 2: Dim("h", min=64, max=1024),
            3: Dim("w", min=64, max=1024)},)
    with torch.no_grad():
        ep = torch.export.export(module, (x0,), dynamic_shapes=dyn)
    vm = relax.VirtualMachine(tvm.compile(from_exported_program(ep), "llvm"), tvm.cpu())
    for args in sets:
        with torch.no_grad():
            want = [t.numpy() for t in _outputs(module(*[torch.from_numpy(a) for a in args]))]
        got = flatten(vm["main"](*[tvm.runtime.tensor(a) for a in args]))
        assert len(got) == len(want), (len(got), len(want))
        for g, w in zip(got, want):
            assert g.shape == w.shape, (g.shape, w.shape)
            np.testing.assert_allclose(g, w, rtol=rtol, atol=atol * float(np.abs(w).max()))
        print("torch.export %s %s: max abs diff %.3g (outputs up to %.3g)" % (
            name, [a.shape for a in args], max(float(np.abs(g - w).max()) for g, w in zip(got, want)),
            max(float(np.abs(w).max()) for w in want)))


def _check_detector(model):
    """draft_export on one 320x320 image, then that image and another of the same size."""
    import tvm
    from tvm import relax
    from tvm.relax.frontend.torch import from_exported_program

    first = images("fasterrcnn")[0][0]
    second = _scene(torch.Generator().manual_seed(5), 320, 320)
    with torch.no_grad():
        ep = torch.export.draft_export(model, ([torch.from_numpy(first)],))
    report = getattr(ep, "_report", None)
    failures = list(getattr(report, "failures", []) or [])
    print("draft_export: %d data-dependent guard(s) specialized" % len(failures))
    ops = {str(n.target) for n in ep.graph.nodes if n.op == "call_function"}
    assert {"torchvision.nms.default", "torchvision.roi_align.default"} <= ops, sorted(ops)
    vm = relax.VirtualMachine(tvm.compile(from_exported_program(ep), "llvm"), tvm.cpu())
    score_tol, box_tol = DETECTION_TOLERANCES
    for i, img in enumerate((first, second)):
        with torch.no_grad():
            det = model([torch.from_numpy(img)])[0]
        want = [det[k].numpy() for k in ("boxes", "labels", "scores")]
        got = flatten(vm["main"](tvm.runtime.tensor(img)))
        assert len(got) == 3, len(got)
        assert got[0].shape[0] > 10, got[0].shape  # real detections, not an empty result
        ds, db = match_detections(got, want, score_tol, box_tol, "image %d vs eager torch" % i)
        print("torch.export fasterrcnn image %d: %d detections, max score diff %.3g, max corner "
              "diff %.3g px" % (i, got[0].shape[0], ds, db))


def check_references(cases=40):
    import torchvision
    import torchvision_ops

    rng = np.random.default_rng(0)
    for case in range(cases):
        n = int(rng.integers(1, 40))
        centre = rng.uniform(2, 8, (3, 2))[rng.integers(0, 3, n)] + rng.uniform(-1, 1, (n, 2))
        size = rng.uniform(0, 4, (n, 2))
        boxes = np.concatenate([centre - size / 2, centre + size / 2], 1).astype("float32")
        scores = (rng.integers(0, 4, n) / 4 if case % 2 else rng.random(n)).astype("float32")
        iou = float(rng.integers(0, 21) / 20)
        want = torchvision.ops.nms(torch.from_numpy(boxes), torch.from_numpy(scores), iou).numpy()
        got = torchvision_ops.nms(boxes, scores, iou)
        assert np.array_equal(got, want), ("nms", case, got, want)
        c, h, w, k = (int(v) for v in rng.integers(1, [3, 8, 8, 5], endpoint=True))
        x = rng.standard_normal((2, c, h, w)).astype("float32")
        scale = float(rng.choice([1.0, 0.5, 0.25]))
        p = rng.uniform(-2, (max(h, w) + 2) / scale, (k, 2, 2))
        rois = np.concatenate([rng.integers(0, 2, (k, 1)), p.min(1), p.max(1)], 1).astype("float32")
        ph, pw = (int(v) for v in rng.integers(1, 4, 2))
        ratio, aligned = int(rng.choice([-1, 0, 1, 2])), bool(case % 3)
        want = torchvision.ops.roi_align(torch.from_numpy(x), torch.from_numpy(rois), (ph, pw), scale,
                                         ratio, aligned).numpy()
        got = torchvision_ops.roi_align(x, rois, scale, ph, pw, ratio, aligned)
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6, err_msg="roi_align case %d" % case)
    print("torchvision references: %d nms and %d roi_align cases agree" % (cases, cases))


if __name__ == "__main__":
    mode = sys.argv[1]
    model_name = sys.argv[2] if len(sys.argv) > 2 else None
    if mode == "refs":
        check_references()
    elif mode == "onnx":
        export_onnx(model_name, sys.argv[3])
    elif mode == "export":
        check_torch_export(model_name)
    else:
        raise SystemExit("usage: vision_models.py onnx|export MODEL [OUT_DIR] | refs")
