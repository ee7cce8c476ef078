"""numpy references of torchvision.ops.nms and roi_align (torchvision's CPU algorithm, written
from its documentation and kernel description), and `define()`: when torchvision is not
loaded (the test interpreter), registers torchvision::nms / torchvision::roi_align with
torchvision's schemas through torch.library, the references as their CPU kernels, so that
torch.export records the same nodes torchvision's own ops give. test_vision_models checks
the references against real torchvision in its venv (vision_models.py refs)."""

import numpy as np

F32 = np.float32


def nms(boxes, scores, iou_threshold):
    """Indices kept, highest score first (a stable order among equal scores); a box is
    dropped when its IoU with a kept one is > iou_threshold (float32 IoU, compared in
    float64)."""
    boxes = np.asarray(boxes, F32)
    scores = np.asarray(scores, F32)
    n = len(scores)
    x1, y1, x2, y2 = boxes[:, 0], boxes[:, 1], boxes[:, 2], boxes[:, 3]
    areas = (x2 - x1) * (y2 - y1)
    order = np.argsort(-scores, kind="stable")
    dead = np.zeros(n, bool)
    keep = []
    with np.errstate(divide="ignore", invalid="ignore"):
        for a in range(n):
            i = order[a]
            if dead[i]:
                continue
            keep.append(i)
            for b in range(a + 1, n):
                j = order[b]
                if dead[j]:
                    continue
                w = max(F32(0), min(x2[i], x2[j]) - max(x1[i], x1[j]))
                h = max(F32(0), min(y2[i], y2[j]) - max(y1[i], y1[j]))
                inter = F32(w * h)
                ovr = F32(inter / F32(F32(areas[i] + areas[j]) - inter))
                if float(ovr) > float(iou_threshold):
                    dead[j] = True
    return np.asarray(keep, np.int64)


def _bilinear(img, h, w, y, x):
    if y < -1.0 or y > h or x < -1.0 or x > w:
        return F32(0)
    y, x = max(y, F32(0)), max(x, F32(0))
    yl, xl = int(y), int(x)
    if yl >= h - 1:
        yh = yl = h - 1
        y = F32(yl)
    else:
        yh = yl + 1
    if xl >= w - 1:
        xh = xl = w - 1
        x = F32(xl)
    else:
        xh = xl + 1
    ly, lx = F32(y - yl), F32(x - xl)
    hy, hx = F32(1) - ly, F32(1) - lx
    return F32(hy * hx * img[yl, xl] + hy * lx * img[yl, xh] + ly * hx * img[yh, xl] + ly * lx * img[yh, xh])


def roi_align(x, rois, spatial_scale, pooled_height, pooled_width, sampling_ratio, aligned):
    """[K, C, ph, pw]: per roi (batch index, x1, y1, x2, y2) and bin, the average of a grid of
    bilinear samples (sampling_ratio per axis, or ceil(roi extent / bins) when <= 0)."""
    x = np.asarray(x, F32)
    rois = np.asarray(rois, F32)
    _, c, h, w = x.shape
    out = np.zeros((len(rois), c, pooled_height, pooled_width), F32)
    off = F32(0.5 if aligned else 0.0)
    s = F32(spatial_scale)
    for r, roi in enumerate(rois):
        b = int(roi[0])
        sx, sy = roi[1] * s - off, roi[2] * s - off
        rw, rh = roi[3] * s - off - sx, roi[4] * s - off - sy
        if not aligned:
            rw, rh = max(rw, F32(1)), max(rh, F32(1))
        bh, bw = F32(rh / F32(pooled_height)), F32(rw / F32(pooled_width))
        gh = sampling_ratio if sampling_ratio > 0 else int(np.ceil(rh / F32(pooled_height)))
        gw = sampling_ratio if sampling_ratio > 0 else int(np.ceil(rw / F32(pooled_width)))
        count = F32(max(gh * gw, 1))
        for ch in range(c):
            img = x[b, ch]
            for ph in range(pooled_height):
                for pw in range(pooled_width):
                    acc = F32(0)
                    for iy in range(gh):
                        yy = F32(sy + F32(ph) * bh + F32(F32(iy + 0.5) * bh) / F32(gh))
                        for ix in range(gw):
                            xx = F32(sx + F32(pw) * bw + F32(F32(ix + 0.5) * bw) / F32(gw))
                            acc = F32(acc + _bilinear(img, h, w, yy, xx))
                    out[r, ch, ph, pw] = acc / count
    return out


_LIB = []


def define():
    """torch.ops.torchvision.nms / roi_align: torchvision's when it is loaded, else ours."""
    import torch

    try:
        torch.ops.torchvision.nms  # noqa: B018
        return
    except (AttributeError, RuntimeError):
        pass
    lib = torch.library.Library("torchvision", "DEF")
    _LIB.append(lib)
    lib.define("nms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor")
    lib.define("roi_align(Tensor input, Tensor rois, float spatial_scale, SymInt pooled_height, "
               "SymInt pooled_width, int sampling_ratio, bool aligned) -> Tensor")

    def nms_cpu(dets, scores, iou_threshold):
        return torch.from_numpy(nms(dets.numpy(), scores.numpy(), iou_threshold))

    def nms_fake(dets, scores, iou_threshold):
        n = torch.library.get_ctx().new_dynamic_size()
        return dets.new_empty((n,), dtype=torch.int64)

    def roi_cpu(x, rois, scale, ph, pw, ratio, aligned):
        return torch.from_numpy(roi_align(x.numpy(), rois.numpy(), scale, ph, pw, ratio, aligned))

    def roi_fake(x, rois, scale, ph, pw, ratio, aligned):
        return x.new_empty((rois.shape[0], x.shape[1], ph, pw))

    lib.impl("nms", nms_cpu, "CPU")
    lib.impl("roi_align", roi_cpu, "CPU")
    torch.library.register_fake("torchvision::nms", nms_fake, lib=lib)
    torch.library.register_fake("torchvision::roi_align", roi_fake, lib=lib)
