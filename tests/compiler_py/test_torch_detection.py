"""torch.export converters of the detector ops (aten_detection.py) vs eager torch on drawn
inputs (hypothesis): aten.nonzero and x[bool mask] (run-time extents bound to torch's
unbacked symbols), torchvision::nms and torchvision::roi_align. torchvision does not load
beside this interpreter's torch, so the two torchvision ops are registered with
torchvision's schemas and numpy reference kernels (torchvision_ops.py; test_vision_models
checks those references against real torchvision, and runs the real ops through Faster
R-CNN)."""

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import torchvision_ops
from torch_checks import check, compiled, outputs
from tvm.relax.frontend.torch import TorchOpError, from_exported_program

torchvision_ops.define()


@settings(max_examples=4, deadline=None)
@given(shape=st.lists(st.integers(1, 5), min_size=1, max_size=3),
       dtype=st.sampled_from(["float32", "int64", "bool"]), density=st.sampled_from([0.0, 0.3, 1.0]),
       decompose=st.booleans(), seed=st.integers(0, 999))
def test_nonzero_and_bool_mask(shape, dtype, density, decompose, seed):
    rng = np.random.default_rng(seed)
    keep = rng.random(shape) < density
    x = torch.from_numpy(np.where(keep, rng.integers(1, 5, shape), 0).astype(dtype))
    got = check(lambda x: torch.nonzero(x), [x], decompose)
    assert got[0].shape == (int(keep.sum()), len(shape))
    y = torch.from_numpy(rng.standard_normal(shape).astype("float32"))
    check(lambda y: y[y > 0.2] * 2, [y], decompose)


def _boxes(rng, n, degenerate):
    """Clusters of overlapping boxes (IoUs spread over (0, 1)); some of zero width."""
    centre = rng.uniform(2, 8, (3, 2))[rng.integers(0, 3, n)] + rng.uniform(-1, 1, (n, 2))
    size = rng.uniform(0.5, 4, (n, 2))
    if degenerate:
        size[rng.random(n) < 0.2, 0] = 0
    return np.concatenate([centre - size / 2, centre + size / 2], 1).astype("float32")


@settings(max_examples=6, deadline=None)
@given(n=st.integers(1, 40), iou=st.integers(0, 20).map(lambda k: k / 20), ties=st.booleans(),
       degenerate=st.booleans(), seed=st.integers(0, 999))
def test_nms(n, iou, ties, degenerate, seed):
    rng = np.random.default_rng(seed)
    boxes = torch.from_numpy(_boxes(rng, n, degenerate))
    # ties: a few score levels (the lower index first among equal scores, as torchvision)
    scores = torch.from_numpy((rng.integers(0, 4, n) / 4 if ties else rng.random(n)).astype("float32"))
    got = check(lambda b, s: torch.ops.torchvision.nms(b, s, iou), [boxes, scores])
    assert got[0].dtype == np.int64


def test_score_filter_then_nms_then_gather():
    """torchvision's postprocessing shape: a bool mask, nms on what it keeps, a gather by the
    kept indices; three chained run-time extents."""
    def post(boxes, scores):
        keep = scores > 0.3
        b, s = boxes[keep], scores[keep]
        k = torch.ops.torchvision.nms(b, s, 0.5)
        return b[k], s[k] * 2

    rng = np.random.default_rng(4)
    boxes = torch.from_numpy(_boxes(rng, 30, False))
    vm = compiled(post, [boxes, torch.rand(30)])
    for seed in range(3):
        s = torch.from_numpy(np.random.default_rng(seed).random(30).astype("float32"))
        got = outputs(vm, [boxes, s], 2)
        want = post(boxes, s)
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w.numpy())


@settings(max_examples=5, deadline=None)
@given(n=st.integers(1, 2), c=st.integers(1, 3), h=st.integers(1, 7), w=st.integers(1, 7),
       k=st.integers(1, 4), ph=st.integers(1, 3), pw=st.integers(1, 3),
       ratio=st.sampled_from([-1, 0, 1, 2]), scale=st.sampled_from([1.0, 0.5, 0.25]),
       aligned=st.booleans(), seed=st.integers(0, 999))
def test_roi_align(n, c, h, w, k, ph, pw, ratio, scale, aligned, seed):
    rng = np.random.default_rng(seed)
    x = torch.from_numpy(rng.standard_normal((n, c, h, w)).astype("float32"))
    # corners over and beyond the scaled image (samples outside [-1, extent] count as 0)
    p = rng.uniform(-2, (max(h, w) + 2) / scale, (k, 2, 2))
    lo, hi = p.min(1), p.max(1)
    rois = np.concatenate([rng.integers(0, n, (k, 1)), lo, hi], 1).astype("float32")
    check(lambda x, r: torch.ops.torchvision.roi_align(x, r, scale, ph, pw, ratio, aligned),
          [x, torch.from_numpy(rois)], rtol=1e-5, atol=1e-5)


def test_unsupported_dtype_names_the_op():
    class Nms(torch.nn.Module):
        def forward(self, b, s):
            return torch.ops.torchvision.nms(b, s, 0.5)

    ep = torch.export.export(Nms(), (torch.rand(4, 4, dtype=torch.float64), torch.rand(4, dtype=torch.float64)))
    with pytest.raises(TorchOpError, match=r"torchvision\.nms\.default.*float64"):
        from_exported_program(ep)
