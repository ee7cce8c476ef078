"""The detector ops (converters_detection.py) and If with branch outputs of different shapes
against onnxruntime, on generated inputs (hypothesis), every parameter a graph input where
ONNX allows it: NonZero, NonMaxSuppression, RoiAlign, If."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from onnx import TensorProto, helper

from onnx_checks import check


def _check(nodes, inputs, outputs, opset, rtol=1e-5, atol=1e-5):
    """Our outputs against onnxruntime's (outputs declared with symbolic extents)."""
    return check(nodes, inputs, outputs, opset, rtol, atol, symbolic_outputs=True)


@settings(max_examples=8, deadline=None)
@given(shape=st.lists(st.integers(1, 5), min_size=1, max_size=3),
       dtype=st.sampled_from(["float32", "int64", "bool"]), density=st.sampled_from([0.0, 0.3, 0.8, 1.0]),
       seed=st.integers(0, 999))
def test_nonzero(shape, dtype, density, seed):
    rng = np.random.default_rng(seed)
    keep = rng.random(shape) < density
    x = (np.where(keep, rng.integers(1, 5, shape), 0)).astype(dtype)
    got = _check(helper.make_node("NonZero", ["x"], ["y"]), {"x": x}, ["y"], 13)
    assert got[0].shape == (len(shape), int(keep.sum()))


def _boxes(rng, b, n, center):
    if center:
        c, wh = rng.uniform(0, 10, (b, n, 2)), rng.uniform(-0.5, 4, (b, n, 2))  # some empty
        return np.concatenate([c, wh], -1).astype("float32")
    # clusters of overlapping boxes (IoUs spread over (0, 1)), corners in either order
    centre = rng.uniform(2, 8, (b, 3, 2))[:, rng.integers(0, 3, n)] + rng.uniform(-1, 1, (b, n, 2))
    size = rng.uniform(1, 4, (b, n, 2))
    p, q = centre - size / 2, centre + size / 2
    flip = rng.random((b, n, 1)) < 0.3
    p, q = np.where(flip, q, p), np.where(flip, p, q)
    return np.concatenate([p, q], -1)[..., [1, 0, 3, 2]].astype("float32")


@settings(max_examples=15, deadline=None)
@given(b=st.integers(1, 2), c=st.integers(1, 3), n=st.integers(1, 40), center=st.booleans(),
       max_out=st.integers(0, 42), iou=st.integers(0, 20).map(lambda k: k / 20),
       score=st.one_of(st.none(), st.sampled_from([-1.0, 0.3, 0.7])), seed=st.integers(0, 999))
def test_non_max_suppression(b, c, n, center, max_out, iou, score, seed):
    rng = np.random.default_rng(seed)
    # distinct scores: ONNX leaves the order of equal scores open
    scores = (rng.permutation(b * c * n).reshape(b, c, n) / (b * c * n)).astype("float32")
    inputs = {"boxes": _boxes(rng, b, n, center), "scores": scores,
              "max_out": np.array([max_out], "int64"), "iou": np.array([iou], "float32")}
    names = ["boxes", "scores", "max_out", "iou"]
    if score is not None:
        inputs["score"] = np.array([score], "float32")
        names.append("score")
    node = helper.make_node("NonMaxSuppression", names, ["sel"], center_point_box=int(center))
    _check(node, inputs, ["sel"], 11)


def test_non_max_suppression_defaults():
    """Without max_output_boxes_per_class nothing is selected (a [0, 3] output)."""
    rng = np.random.default_rng(0)
    inputs = {"boxes": _boxes(rng, 1, 5, False), "scores": rng.random((1, 2, 5)).astype("float32")}
    got = _check(helper.make_node("NonMaxSuppression", ["boxes", "scores"], ["sel"]), inputs, ["sel"], 11)
    assert got[0].shape == (0, 3)


@settings(max_examples=10, deadline=None)
@given(n=st.integers(1, 2), c=st.integers(1, 3), h=st.integers(2, 9), w=st.integers(2, 9),
       rois=st.integers(1, 6), oh=st.integers(1, 4), ow=st.integers(1, 4), ratio=st.integers(0, 3),
       scale=st.sampled_from([0.25, 0.5, 1.0]), ctm=st.sampled_from(["half_pixel", "output_half_pixel"]),
       mode=st.sampled_from(["avg", "max"]), opset=st.sampled_from([10, 16]), seed=st.integers(0, 999))
def test_roi_align(n, c, h, w, rois, oh, ow, ratio, scale, ctm, mode, opset, seed):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, c, h, w)).astype("float32")
    # corners in input pixels / scale, some partly outside the map, some degenerate
    lo = rng.uniform(-2, max(h, w), (rois, 2)) / scale
    r = np.concatenate([lo, lo + rng.uniform(0, max(h, w), (rois, 2)) / scale], 1).astype("float32")
    bi = rng.integers(0, n, rois).astype("int64")
    attrs = dict(mode=mode, output_height=oh, output_width=ow, sampling_ratio=ratio, spatial_scale=scale)
    if opset == 16:
        attrs["coordinate_transformation_mode"] = ctm
    _check(helper.make_node("RoiAlign", ["x", "rois", "bi"], ["y"], **attrs),
           {"x": x, "rois": r, "bi": bi}, ["y"], opset)


@settings(max_examples=6, deadline=None)
@given(cond=st.booleans(), k=st.integers(0, 3), n=st.integers(1, 6), seed=st.integers(0, 999))
def test_if_branches_of_different_shapes(cond, k, n, seed):
    """torchvision's `if boxes.numel() == 0: return empty` guard: the branch outputs have the
    same rank but different extents; the output has the taken branch's."""
    rng = np.random.default_rng(seed)
    const = rng.integers(0, 9, (k, 2)).astype("int64")
    then_g = helper.make_graph([helper.make_node("Constant", [], ["t"], value=helper.make_tensor(
        "v", TensorProto.INT64, [k, 2], const.ravel().tolist()))], "then", [],
        [helper.make_tensor_value_info("t", TensorProto.INT64, [k, 2])])
    else_g = helper.make_graph([helper.make_node("Mul", ["x", "x"], ["e"])], "else", [],
                               [helper.make_tensor_value_info("e", TensorProto.INT64, [n, 2])])
    nodes = [helper.make_node("If", ["c"], ["y"], then_branch=then_g, else_branch=else_g)]
    x = rng.integers(-5, 5, (n, 2)).astype("int64")
    got = _check(nodes, {"c": np.array(cond), "x": x}, ["y"], 13)
    assert got[0].shape == ((k, 2) if cond else (n, 2))
