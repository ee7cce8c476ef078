"""torch.export converters of tensor ops real models hit (aten_tensor_extra.py, aten_ops.py)
vs eager torch on drawn shapes (hypothesis), with and without the core-ATen decomposition:
tril / triu (diagonal=, a dynamic extent), einsum (the decomposition turns it into bmm; as
exported it is the ONNX Einsum kernel; "ii->i" decomposes to diagonal), log2."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import torch
from torch.export import Dim

from torch_checks import check


@settings(max_examples=4, deadline=None)
@given(shape=st.lists(st.integers(1, 5), min_size=2, max_size=4), diagonal=st.integers(-3, 3),
       upper=st.booleans(), dtype=st.sampled_from(["float32", "int64"]), decompose=st.booleans(),
       seed=st.integers(0, 999))
def test_tril_triu(shape, diagonal, upper, dtype, decompose, seed):
    x = torch.from_numpy((np.random.default_rng(seed).standard_normal(shape) * 5).astype(dtype))
    if upper:
        check(lambda x: torch.triu(x, diagonal=diagonal), [x], decompose)
    else:
        check(lambda x: x.tril(diagonal), [x], decompose)


def test_tril_of_a_dynamic_extent():
    check(lambda x: torch.tril(x, -1) + 1, [torch.randn(2, 4, 4)],
          dynamic_shapes=({1: Dim("n", min=2, max=32), 2: Dim("m", min=2, max=32)},),
          run_args=[(torch.randn(2, 7, 3),)])


EQUATIONS = [("ij,jk->ik", [(2, 3), (3, 4)]), ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
             ("ii->i", [(4, 4)]), ("ij->", [(3, 5)]), ("i,j->ij", [(3,), (4,)]),
             ("...ij,...jk", [(2, 3, 4), (4, 2)]), ("bhqd,bhkd->bhqk", [(1, 2, 3, 4), (1, 2, 5, 4)])]


@pytest.mark.parametrize("case", range(len(EQUATIONS)))
def test_einsum(case):
    """Every equation once, decomposed (bmm, diagonal, sum...) and as exported in turn."""
    eq, shapes = EQUATIONS[case]
    decompose = case % 2 == 0
    rng = np.random.default_rng(case)
    xs = [torch.from_numpy(rng.standard_normal(s).astype("float32")) for s in shapes]
    check(lambda *xs: torch.einsum(eq, *xs), xs, decompose, rtol=1e-5, atol=1e-5)


@settings(max_examples=3, deadline=None)
@given(shape=st.lists(st.integers(1, 5), min_size=1, max_size=3), decompose=st.booleans(), seed=st.integers(0, 999))
def test_log2(shape, decompose, seed):
    rng = np.random.default_rng(seed)
    x = torch.from_numpy(np.exp2(rng.uniform(-8, 8, shape)).astype("float32"))
    check(lambda x: torch.log2(x), [x], decompose, rtol=1e-6, atol=1e-6)
    i = torch.from_numpy(rng.integers(1, 100, shape))
    check(lambda i: i.log2(), [i], decompose, rtol=1e-6, atol=1e-6)
