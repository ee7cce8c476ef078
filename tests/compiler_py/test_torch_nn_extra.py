"""torch.export converters for group_norm, transposed convolution, flip and interpolate
(bilinear, nearest) vs eager torch, on drawn
shapes and parameters (hypothesis) and a dynamic batch."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import torch
import torch.nn as nn
from torch.export import Dim

import tvm  # noqa: E402
from tvm import relax  # noqa: E402
from tvm.relax.frontend.torch import from_exported_program  # noqa: E402


def _run(module, args, decompose=True, dynamic_shapes=None):
    with torch.no_grad():
        ep = torch.export.export(module, tuple(args), dynamic_shapes=dynamic_shapes)
    mod = from_exported_program(ep, run_ep_decomposition=decompose)
    return relax.VirtualMachine(tvm.compile(mod, "llvm"), tvm.cpu())


@settings(max_examples=8, deadline=None)
@given(groups=st.sampled_from([1, 2, 4]), per_group=st.integers(1, 3), hw=st.integers(1, 5),
       affine=st.booleans(), decompose=st.booleans(), seed=st.integers(0, 2 ** 16))
def test_group_norm_matches_torch(groups, per_group, hw, affine, decompose, seed):
    torch.manual_seed(seed)
    c = groups * per_group
    m = nn.GroupNorm(groups, c, eps=1e-3, affine=affine).eval()
    if affine:
        with torch.no_grad():
            m.weight.uniform_(0.5, 1.5)
            m.bias.uniform_(-1, 1)
    x = torch.randn(2, c, hw, hw + 1) * 3 + 1
    vm = _run(m, [x], decompose)
    np.testing.assert_allclose(vm["main"](tvm.runtime.tensor(x.numpy()))[0].numpy(), m(x).detach().numpy(),
                               rtol=1e-4, atol=1e-4)


@settings(max_examples=8, deadline=None)
@given(nd=st.sampled_from([1, 2]), k=st.integers(1, 3), stride=st.integers(1, 3), pad=st.integers(0, 1),
       out_pad=st.integers(0, 2), dil=st.integers(1, 2), groups=st.sampled_from([1, 2]),
       bias=st.booleans(), decompose=st.booleans(), seed=st.integers(0, 2 ** 16))
def test_conv_transpose_matches_torch(nd, k, stride, pad, out_pad, dil, groups, bias, decompose, seed):
    out_pad = min(out_pad, max(stride, dil) - 1)  # torch's rule: output_padding < stride or dilation
    torch.manual_seed(seed)
    cls = nn.ConvTranspose1d if nd == 1 else nn.ConvTranspose2d
    m = cls(4, 6, k, stride=stride, padding=pad, output_padding=out_pad, dilation=dil, groups=groups,
            bias=bias).eval()
    x = torch.randn(*([2, 4] + [5] * nd))
    vm = _run(m, [x], decompose)
    np.testing.assert_allclose(vm["main"](tvm.runtime.tensor(x.numpy()))[0].numpy(), m(x).detach().numpy(),
                               rtol=1e-4, atol=1e-4)


def test_dynamic_batch_and_bad_groups():
    torch.manual_seed(0)
    m = nn.Sequential(nn.ConvTranspose2d(4, 4, 2, stride=2), nn.GroupNorm(2, 4)).eval()
    vm = _run(m, [torch.randn(2, 4, 3, 3)], dynamic_shapes=({0: Dim("b", min=1, max=8)},))
    for b in (1, 3):
        x = torch.randn(b, 4, 3, 3)
        got = vm["main"](tvm.runtime.tensor(x.numpy()))[0].numpy()
        assert got.shape == (b, 4, 6, 6)
        np.testing.assert_allclose(got, m(x).detach().numpy(), rtol=1e-4, atol=1e-4)


@settings(max_examples=6, deadline=None)
@given(shape=st.lists(st.integers(1, 4), min_size=1, max_size=3), data=st.data())
def test_flip_matches_torch(shape, data):
    dims = data.draw(st.lists(st.integers(-len(shape), len(shape) - 1), min_size=1, max_size=len(shape),
                              unique_by=lambda d: d % len(shape)))

    class Flip(nn.Module):
        def forward(self, x):
            return torch.flip(x, dims) * 2

    x = torch.randn(*shape)
    vm = _run(Flip(), [x])
    np.testing.assert_array_equal(vm["main"](tvm.runtime.tensor(x.numpy()))[0].numpy(), (torch.flip(x, dims) * 2).numpy())


def test_flip_of_a_dynamic_extent():
    class Flip(nn.Module):
        def forward(self, x):
            return torch.flip(x, [0, 1])

    vm = _run(Flip(), [torch.randn(3, 2)], dynamic_shapes=({0: Dim("n", min=2, max=9)},))
    for n in (2, 5):
        x = torch.arange(n * 2, dtype=torch.float32).reshape(n, 2)
        np.testing.assert_array_equal(vm["main"](tvm.runtime.tensor(x.numpy()))[0].numpy(), torch.flip(x, [0, 1]).numpy())


class _Interpolate(nn.Module):
    def __init__(self, **kw):
        super().__init__()
        self.kw = kw

    def forward(self, x):
        return nn.functional.interpolate(x, **self.kw) + 1


@settings(max_examples=12, deadline=None)
@given(mode=st.sampled_from(["bilinear", "nearest"]), align=st.booleans(), by_size=st.booleans(),
       h=st.integers(1, 6), w=st.integers(1, 6), oh=st.integers(1, 9), ow=st.integers(1, 9),
       fh=st.sampled_from([0.5, 0.75, 1.5, 2.0, 3.0]), fw=st.sampled_from([0.6, 1.0, 2.0, 2.5]),
       decompose=st.booleans(), seed=st.integers(0, 2 ** 16))
def test_interpolate_matches_torch(mode, align, by_size, h, w, oh, ow, fh, fw, decompose, seed):
    """F.interpolate (aten.upsample_bilinear2d / upsample_nearest2d, .vec and .default): down-
    and upsampling by size or by scale factor, align_corners both ways for bilinear."""
    kw = {"mode": mode}
    if mode == "bilinear":
        kw["align_corners"] = align
    if by_size:
        kw["size"] = (oh, ow)
    else:
        kw["scale_factor"] = (fh, fw)
        if int(h * fh) < 1 or int(w * fw) < 1:
            h, w = h + 2, w + 2
    torch.manual_seed(seed)
    m = _Interpolate(**kw)
    x = torch.randn(2, 3, h, w)
    want = m(x).numpy()
    vm = _run(m, [x], decompose)
    got = vm["main"](tvm.runtime.tensor(x.numpy()))[0].numpy()
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_interpolate_bilinear_dynamic_size():
    """The output extents follow a symbolic input (the segmentation heads' upsampling back to
    the image size): same module, other batch and sizes than the export's."""

    class UpTo(nn.Module):
        def forward(self, x, y):
            return nn.functional.interpolate(x, size=y.shape[-2:], mode="bilinear", align_corners=False)

    h, w = Dim("h", min=2, max=64), Dim("w", min=2, max=64)
    x, y = torch.randn(2, 3, 4, 5), torch.randn(2, 1, 9, 13)
    vm = _run(UpTo(), [x, y], dynamic_shapes=({0: Dim("b", min=1, max=8), 2: Dim("xh", min=2, max=64),
                                      3: Dim("xw", min=2, max=64)}, {2: h, 3: w}))
    for b, sx, sy in ((2, (4, 5), (9, 13)), (3, (3, 7), (16, 5)), (1, (6, 6), (2, 2))):
        x, y = torch.randn(b, 3, *sx), torch.randn(2, 1, *sy)
        got = vm["main"](tvm.runtime.tensor(x.numpy()), tvm.runtime.tensor(y.numpy()))[0].numpy()
        want = UpTo()(x, y).numpy()
        assert got.shape == want.shape == (b, 3) + sy
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
