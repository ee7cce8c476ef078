"""torch.export converters that write into a copy of a tensor (aten_scatter.py) vs eager
torch on drawn shapes (hypothesis), with and without the core-ATen decomposition:
index_put through the ways users write it (y[i] = v, y[:, i] = v, y[i, :, j] = v,
y[mask] = v, index_put(..., accumulate=True) with repeated indices), scatter (src, value,
reduce=), scatter_add, scatter_reduce, masked_fill, copy_. Without accumulation the
positions written are distinct (torch leaves the winner of repeated ones open). Assignments
into a tensor (y[i] = v, copy_) are in-place ops in the graph as exported: only the
decomposed (functionalized) graph converts them, so those run with the decomposition only."""

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from torch_checks import check
from tvm.relax.frontend.torch import TorchOpError, from_exported_program


def _rand(rng, shape, dtype="float32"):
    if dtype == "float32":
        return torch.from_numpy(rng.standard_normal(shape).astype(dtype))
    return torch.from_numpy(rng.integers(-9, 9, shape).astype(dtype))


def _distinct(rng, n, k):
    return torch.from_numpy(rng.permutation(n)[:k].astype("int64"))


@settings(max_examples=5, deadline=None)
@given(shape=st.lists(st.integers(2, 5), min_size=2, max_size=3), seed=st.integers(0, 999),
       form=st.sampled_from(["front", "middle", "apart", "negative"]), dtype=st.sampled_from(["float32", "int64"]),
       decompose=st.booleans())
def test_setitem_with_int_indices(shape, seed, form, dtype, decompose):
    rng = np.random.default_rng(seed)
    x = _rand(rng, shape, dtype)
    if form == "front":  # y[i] = v, v broadcast over the rows
        i = _distinct(rng, shape[0], rng.integers(1, shape[0] + 1))
        v = _rand(rng, shape[1:], dtype)

        def f(x, i, v):
            y = x.clone()
            y[i] = v
            return y
    elif form == "middle":  # y[:, i] = v, v of the indexed view's shape
        i = _distinct(rng, shape[1], rng.integers(1, shape[1] + 1))
        v = _rand(rng, [shape[0], len(i)] + shape[2:], dtype)

        def f(x, i, v):
            y = x.clone()
            y[:, i] = v * 2
            return y
    elif form == "apart":  # y[i, ..., j] = v: two index tensors broadcast, not adjacent when 3-d
        k = min(shape[0], shape[-1])
        i, j = _distinct(rng, shape[0], k), _distinct(rng, shape[-1], k)
        v = _rand(rng, [k] + shape[1:-1], dtype)

        def f(x, i, j, v):
            y = x.clone()
            y[i, ..., j] = v
            return y
        check(f, [x, i, j, v])
        return
    else:  # negative indices count from the end
        i = _distinct(rng, shape[0], rng.integers(1, shape[0] + 1)) - shape[0]
        v = _rand(rng, [1] + shape[1:], dtype)

        def f(x, i, v):
            return torch.index_put(x, (i,), v)
        check(f, [x, i, v], decompose)
        return
    check(f, [x, i, v])


@settings(max_examples=4, deadline=None)
@given(shape=st.lists(st.integers(1, 5), min_size=1, max_size=3), k=st.integers(1, 12), seed=st.integers(0, 999),
       decompose=st.booleans())
def test_index_put_accumulate_with_repeats(shape, k, seed, decompose):
    rng = np.random.default_rng(seed)
    x = _rand(rng, shape)
    i = torch.from_numpy(rng.integers(0, shape[0], k).astype("int64"))  # repeats add up
    v = _rand(rng, [k] + shape[1:])
    check(lambda x, i, v: x.index_put((i,), v, accumulate=True), [x, i, v], decompose, rtol=1e-5, atol=1e-5)


@settings(max_examples=4, deadline=None)
@given(shape=st.lists(st.integers(1, 5), min_size=1, max_size=3), seed=st.integers(0, 999),
       rows=st.booleans())
def test_setitem_with_a_bool_mask(shape, seed, rows):
    rng = np.random.default_rng(seed)
    x = _rand(rng, shape)
    if rows:  # y[mask over the first axis] = a row, broadcast
        m = torch.from_numpy(rng.random(shape[0]) < 0.5)
        v = _rand(rng, shape[1:])

        def f(x, m, v):
            y = x.clone()
            y[m] = v
            return y
        check(f, [x, m, v])
    else:  # y[y > 0] = 0.5, the whole-tensor mask
        def g(x):
            y = x.clone()
            y[y > 0] = 0.5
            return y
        check(g, [x])


def _scatter_index(rng, shape, dim, unique):
    n = shape[dim]
    ishape = list(shape)
    ishape[dim] = rng.integers(1, n + 1)
    if not unique:
        return torch.from_numpy(rng.integers(0, n, ishape).astype("int64"))
    # distinct targets along each line of `dim`
    perm = np.argsort(rng.random(shape), axis=dim)
    return torch.from_numpy(np.take(perm, np.arange(ishape[dim]), axis=dim).astype("int64"))


@settings(max_examples=5, deadline=None)
@given(shape=st.lists(st.integers(1, 5), min_size=1, max_size=3), seed=st.integers(0, 999),
       form=st.sampled_from(["src", "value", "add", "reduce_add", "multiply", "sum", "prod", "amax", "amin"]),
       decompose=st.booleans(), data=st.data())
def test_scatter(shape, seed, form, decompose, data):
    rng = np.random.default_rng(seed)
    dim = data.draw(st.integers(-len(shape), len(shape) - 1))
    x = _rand(rng, shape)
    idx = _scatter_index(rng, shape, dim, form in ("src", "value"))
    src = _rand(rng, list(idx.shape))
    if form == "src":
        fn = lambda x, i, s: x.scatter(dim, i, s)  # noqa: E731
    elif form == "value":
        fn = lambda x, i, s: torch.scatter(x, dim, i, 1.5) + s.sum()  # noqa: E731
    elif form == "add":
        fn = lambda x, i, s: x.scatter_add(dim, i, s)  # noqa: E731
    elif form in ("reduce_add", "multiply"):
        red = "add" if form == "reduce_add" else "multiply"
        fn = lambda x, i, s: x.scatter(dim, i, s, reduce=red)  # noqa: E731
    else:
        fn = lambda x, i, s: x.scatter_reduce(dim, i, s, reduce=form)  # noqa: E731
    check(fn, [x, idx, src], decompose, rtol=1e-5, atol=1e-5)


@settings(max_examples=4, deadline=None)
@given(shape=st.lists(st.integers(1, 5), min_size=1, max_size=3), seed=st.integers(0, 999),
       tensor_value=st.booleans(), decompose=st.booleans())
def test_masked_fill_and_copy(shape, seed, tensor_value, decompose):
    rng = np.random.default_rng(seed)
    x = _rand(rng, shape)
    m = torch.from_numpy(rng.random(shape[-1:]) < 0.5)  # broadcast over the leading axes
    if tensor_value:
        check(lambda x, m: x.masked_fill(m, torch.tensor(-2.0)), [x, m], decompose)
    else:
        check(lambda x, m: torch.masked_fill(x, m, value=3), [x, m], decompose)
    s = torch.from_numpy(rng.integers(-5, 5, shape[-1:]).astype("int64"))

    def copy(x, s):
        y = torch.empty_like(x)
        y.copy_(s)  # broadcast, int64 -> float32
        return y + x
    check(copy, [x, s])


def test_scatter_reduce_mean_is_a_typed_error():
    class Mean(torch.nn.Module):
        def forward(self, x, i, s):
            return x.scatter_reduce(0, i, s, reduce="mean")

    ep = torch.export.export(Mean(), (torch.rand(3), torch.tensor([0, 0]), torch.rand(2)))
    with pytest.raises(TorchOpError, match=r"scatter_reduce.*mean"):
        from_exported_program(ep)


def test_values_that_do_not_broadcast_are_a_typed_error():
    class Put(torch.nn.Module):
        def forward(self, x, i, v):
            return x.index_put((i,), v, accumulate=True)

    # torch.export accepts it (eager raises at run time); the importer says so at import
    ep = torch.export.export(Put(), (torch.rand(3, 4), torch.tensor([0, 1, 2, 0]), torch.rand(2, 4)))
    with pytest.raises(TorchOpError, match=r"aten\.index_put\.default.*do not broadcast"):
        from_exported_program(ep)
