"""torch.export aten.index.Tensor with several index tensors (numpy advanced indexing) vs
eager torch: drawn ranks, indexed axes (adjacent or not), broadcasting index shapes and
negative indices."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import torch
import torch.nn as nn

import tvm  # noqa: E402
from tvm import relax  # noqa: E402
from tvm.relax.frontend.torch import from_exported_program  # noqa: E402


class _Index(nn.Module):
    def __init__(self, axes):
        super().__init__()
        self.axes = axes

    def forward(self, x, *idx):
        key = [slice(None)] * x.dim()
        for a, t in zip(self.axes, idx):
            key[a] = t
        return x[tuple(key)] + 1


@settings(max_examples=6, deadline=None)
@given(shape=st.lists(st.integers(2, 4), min_size=2, max_size=4), data=st.data())
def test_several_index_tensors_match_torch(shape, data):
    axes = data.draw(st.lists(st.integers(0, len(shape) - 1), min_size=2, max_size=min(3, len(shape)),
                              unique=True).map(sorted))
    g = torch.Generator().manual_seed(data.draw(st.integers(0, 1000)))
    ishape = data.draw(st.sampled_from([(3,), (2, 3), (1,)]))
    idx = []
    for k, a in enumerate(axes):
        sh = ishape if k == 0 else ishape[-1:]  # broadcasting: the later ones are 1-d
        idx.append(torch.randint(-shape[a], shape[a], sh, generator=g))
    x = torch.randn(*shape, generator=g)
    m = _Index(axes)
    with torch.no_grad():
        ep = torch.export.export(m, (x, *idx))
    vm = relax.VirtualMachine(tvm.compile(from_exported_program(ep), "llvm"), tvm.cpu())
    got = vm["main"](*[tvm.runtime.tensor(t.numpy()) for t in (x, *idx)])[0].numpy()
    want = m(x, *idx).numpy()
    assert got.shape == want.shape
    np.testing.assert_array_equal(got, want)
