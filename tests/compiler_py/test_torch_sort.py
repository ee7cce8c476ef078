"""torch.export converters that order or accumulate along an axis (aten_sort.py) vs eager
torch on drawn shapes, dims and flags, with and without the core-ATen decomposition: topk,
sort (descending, stable), argsort, argmax / argmin (dim None, keepdim), max / min (full
and .dim), cumsum (float, int, bool, dtype=). Values are distinct where torch leaves the
order of ties open (topk, sort without stable, max.dim's index); ties are drawn on purpose
where it does not (stable sort, argmax's first index)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import torch
from torch.export import Dim

from torch_checks import check
from tvm.relax.frontend.torch import TorchOpError, from_exported_program

shapes = st.lists(st.integers(1, 5), min_size=1, max_size=3)


def _distinct(shape, seed):
    n = int(np.prod(shape))
    return torch.from_numpy(np.random.default_rng(seed).permutation(n).reshape(shape).astype("float32") / 7 - 2)


def _ties(shape, seed):
    return torch.from_numpy(np.random.default_rng(seed).integers(0, 3, shape).astype("float32"))


@settings(max_examples=4, deadline=None)
@given(shape=shapes, seed=st.integers(0, 999), largest=st.booleans(), decompose=st.booleans(), data=st.data())
def test_topk(shape, seed, largest, decompose, data):
    dim = data.draw(st.integers(-len(shape), len(shape) - 1))
    k = data.draw(st.integers(0, shape[dim]))
    x = _distinct(shape, seed)
    check(lambda x: torch.topk(x, k, dim=dim, largest=largest), [x], decompose)
    check(lambda x: x.topk(k, dim, largest, True)[0] * 2, [x], decompose)


def test_topk_unsorted_is_the_same_set():
    x = _distinct([2, 9], 3)
    check(lambda x: torch.topk(x, 4, sorted=False)[0].sort(dim=-1)[0], [x])


@settings(max_examples=4, deadline=None)
@given(shape=shapes, seed=st.integers(0, 999), descending=st.booleans(), stable=st.booleans(),
       decompose=st.booleans(), data=st.data())
def test_sort_and_argsort(shape, seed, descending, stable, decompose, data):
    dim = data.draw(st.integers(-len(shape), len(shape) - 1))
    if stable:  # ties: the order among equal values is defined
        x = _ties(shape, seed)
        check(lambda x: torch.sort(x, dim=dim, descending=descending, stable=True), [x], decompose)
        check(lambda x: torch.argsort(x, dim=dim, descending=descending, stable=True), [x], decompose)
    else:
        x = _distinct(shape, seed)
        check(lambda x: x.sort(dim, descending), [x], decompose)
        check(lambda x: torch.argsort(x, dim=dim, descending=descending), [x], decompose)


def test_sort_of_a_dynamic_extent():
    x = _distinct([2, 6], 1)
    check(lambda x: torch.sort(x, dim=1, descending=True, stable=True)[1], [x],
          dynamic_shapes=({1: Dim("n", min=2, max=64)},), run_args=[(_distinct([2, 11], 2),)])


@settings(max_examples=4, deadline=None)
@given(shape=shapes, seed=st.integers(0, 999), keepdim=st.booleans(), whole=st.booleans(),
       is_max=st.booleans(), decompose=st.booleans(), data=st.data())
def test_argmax_argmin_first_index(shape, seed, keepdim, whole, is_max, decompose, data):
    x = _ties(shape, seed)  # ties: torch returns the first position
    fn = torch.argmax if is_max else torch.argmin
    if whole:
        check(lambda x: fn(x), [x], decompose)
        check(lambda x: fn(x, keepdim=keepdim), [x], decompose)
    else:
        dim = data.draw(st.integers(-len(shape), len(shape) - 1))
        check(lambda x: fn(x, dim=dim, keepdim=keepdim), [x], decompose)


@settings(max_examples=3, deadline=None)
@given(shape=shapes, seed=st.integers(0, 999), keepdim=st.booleans(), decompose=st.booleans(), data=st.data())
def test_max_min(shape, seed, keepdim, decompose, data):
    dim = data.draw(st.integers(-len(shape), len(shape) - 1))
    x = _distinct(shape, seed)
    check(lambda x: (x.max(), x.min(), torch.max(x, dim=dim, keepdim=keepdim), x.min(dim, keepdim)),
          [x], decompose)
    i = torch.from_numpy(np.random.default_rng(seed).integers(-9, 9, shape))
    check(lambda i: (i.max(), torch.min(i)), [i], decompose)


@settings(max_examples=4, deadline=None)
@given(shape=shapes, seed=st.integers(0, 999), dtype=st.sampled_from(["float32", "int32", "int64", "bool"]),
       cast=st.booleans(), decompose=st.booleans(), data=st.data())
def test_cumsum(shape, seed, dtype, cast, decompose, data):
    dim = data.draw(st.integers(-len(shape), len(shape) - 1))
    rng = np.random.default_rng(seed)
    x = torch.from_numpy((rng.standard_normal(shape) * 4 if dtype == "float32" else
                          rng.integers(-5, 5, shape)).astype(dtype))
    if cast:
        check(lambda x: torch.cumsum(x, dim=dim, dtype=torch.float32), [x], decompose, rtol=1e-5, atol=1e-5)
    else:
        check(lambda x: x.cumsum(dim), [x], decompose, rtol=1e-5, atol=1e-5)


def test_cumsum_of_a_dynamic_extent():
    x = torch.arange(8, dtype=torch.float32).reshape(2, 4)
    check(lambda x: torch.cumsum(x, dim=1), [x], dynamic_shapes=({1: Dim("n", min=2, max=64)},),
          run_args=[(torch.randn(2, 13),)], rtol=1e-5, atol=1e-5)


def test_bad_dim_names_the_op():
    class TopK(torch.nn.Module):
        def forward(self, x):
            return torch.topk(x, 2)[0]

    ep = torch.export.export(TopK(), (torch.randn(3, 4),))
    node = [n for n in ep.graph.nodes if str(n.target) == "aten.topk.default"][0]
    node.args = (node.args[0], 2, 5)  # dim 5 of a 2-d tensor
    with pytest.raises(TorchOpError, match=r"aten\.topk\.default.*dim 5 out of range"):
        from_exported_program(ep, run_ep_decomposition=False)
