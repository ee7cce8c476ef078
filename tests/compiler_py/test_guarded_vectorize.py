"""VectorizeLoop on a loop whose stores are guarded lane by lane: a register tile's write-back
over columns that do not fill the last tile (34 output channels in 16-wide tiles). Where the
guard holds at the first and last lane the loop runs as vector code without it, else as the
guarded scalar loop; either way the values are numpy's (a store past the real points would
show under --config=asan)."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import tvm
from tvm import te, tir


def _scaled_copy(n, width, rows=None):
    """b[i] = a[i] * 2 + 1 over n points (or b[r, i] over `rows` rows of n), the last loop
    split by `width` (the inner part vectorized, the split's tail guarded by `i < n`)."""
    shape = (n,) if rows is None else (rows, n)
    a = te.placeholder(shape, "float32", name="a")
    b = te.compute(shape, lambda *idx: a[idx] * 2.0 + 1.0, name="b")
    sch = tir.Schedule(te.create_prim_func([a, b]))
    loop = sch.get_loops(sch.get_block("b"))[-1]
    _, inner = sch.split(loop, [None, width])
    sch.vectorize(inner)
    return sch.mod["main"]


@settings(max_examples=25, deadline=None)
@given(n=st.integers(1, 70), width=st.sampled_from([4, 8, 16]), seed=st.integers(0, 2**16))
def test_guarded_stores_write_only_the_real_points(n, width, seed):
    func = _scaled_copy(n, width)
    lowered = str(tvm.lower(func))
    if n % width and n > width:
        # whole vectors exist: the guard is tested once per vector (first and last lane) and
        # the vector store runs unguarded (before: every point a scalar store behind a branch)
        assert "T.Ramp" in lowered and "if" in lowered, lowered
    lib = tvm.tir.build(func, "llvm")
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(n).astype("float32")
    out = tvm.runtime.tensor(np.full(n, -7.0, "float32"))
    lib(tvm.runtime.tensor(a), out)
    np.testing.assert_allclose(out.numpy(), a * 2 + 1, rtol=1e-6)


def test_lane_varying_guard_that_is_not_monotone_stays_scalar():
    """A guard like `i % 3 != 0` differs between lanes in no monotone way: the loop keeps its
    per-point guard (scalar), and computes the right values."""
    n = 32
    a = te.placeholder((n,), "float32", name="a")
    b = te.compute((n,), lambda i: a[i] + 1.0, name="b")
    sch = tir.Schedule(te.create_prim_func([a, b]))
    (loop,) = sch.get_loops(sch.get_block("b"))
    _, inner = sch.split(loop, [None, 8])
    sch.vectorize(inner)
    func = sch.mod["main"]
    lib = tvm.tir.build(func, "llvm")
    x = np.arange(n, dtype="float32")
    out = tvm.runtime.tensor(np.zeros(n, "float32"))
    lib(tvm.runtime.tensor(x), out)
    np.testing.assert_allclose(out.numpy(), x + 1)


def _channel_pad(c, c_pad, width):
    """b[p, k] = a[p, min(k, c - 1)] where k < c, else 0: a padding copy to c_pad channels, its
    channel loop split by `width` and vectorized (the clamp keeps the address in bounds)."""
    a = te.placeholder((3, c), "float32", name="a")
    b = te.compute((3, c_pad), lambda p, k: tir.if_then_else(k < c, a[p, tir.min(k, c - 1)], tir.const(0.0, "float32")),
                   name="b")
    sch = tir.Schedule(te.create_prim_func([a, b]))
    _, loop = sch.get_loops(sch.get_block("b"))
    _, inner = sch.split(loop, [None, width])
    sch.vectorize(inner)
    return sch.mod["main"]


@settings(max_examples=25, deadline=None)
@given(c=st.integers(1, 60), extra=st.integers(0, 20), width=st.sampled_from([4, 8, 16]), seed=st.integers(0, 2**16))
def test_clamped_loads_are_whole_vectors_where_lanes_agree(c, extra, width, seed):
    """A padding copy clamps its channel index (min(k, C - 1)) and selects zero past C: where
    a vector's lanes are all below C both are the identity and the load is one contiguous
    vector (a Ramp index), not a gather of clamped lanes; values equal numpy's everywhere."""
    c_pad = -(-(c + extra) // width) * width
    func = _channel_pad(c, c_pad, width)
    lowered = str(tvm.lower(func))
    if c >= width:
        assert "a[T.Ramp(" in lowered.replace("a_1", "a"), lowered
    lib = tvm.tir.build(func, "llvm")
    a = np.random.default_rng(seed).standard_normal((3, c)).astype("float32")
    out = tvm.runtime.tensor(np.full((3, c_pad), -7.0, "float32"))
    lib(tvm.runtime.tensor(a), out)
    want = np.zeros((3, c_pad), "float32")
    want[:, :c] = a
    np.testing.assert_array_equal(out.numpy(), want)


@settings(max_examples=25, deadline=None)
@given(rows=st.integers(1, 5), n=st.integers(1, 31), width=st.sampled_from([8, 16, 32]),
       seed=st.integers(0, 2**16))
def test_guard_failing_on_the_last_lanes_stores_the_valid_prefix_as_one_vector(rows, n, width, seed):
    """A tile's write-back over n < width columns (ShuffleNet's 28 channels of a 32-column
    tile): the guard `i < n` fails on the same last lanes in every row, so the store is one
    n-lane vector (no guard, no scalar fallback), values as numpy's (the buffer has n columns: a
    store past them would show under --config=asan)."""
    if n >= width:
        n = width - 1
    func = _scaled_copy(n, width, rows)
    lowered = str(tvm.lower(func))
    if n > 1:
        assert "T.Ramp(" in lowered and ", %d)" % n in lowered and "if " not in lowered, lowered
    lib = tvm.tir.build(func, "llvm")
    a = np.random.default_rng(seed).standard_normal((rows, n)).astype("float32")
    out = tvm.runtime.tensor(np.full((rows, n), -7.0, "float32"))
    lib(tvm.runtime.tensor(a), out)
    np.testing.assert_allclose(out.numpy(), a * 2 + 1, rtol=1e-6)


@settings(max_examples=25, deadline=None)
@given(width=st.sampled_from([65, 80, 96, 128, 200, 256, 320, 512]), rows=st.integers(1, 3), seed=st.integers(0, 2**16))
def test_long_vectorized_loops_become_chunks_of_vectors(width, rows, seed):
    """A vectorized loop longer than 64 lanes (a 256-column tile's write-back) whose extent a
    power of two from 16 up divides runs as a serial loop over vectors of that many lanes
    (at most 64); other extents stay a loop. The values are numpy's either way."""
    func = _scaled_copy(rows * width, width, rows=None)
    lowered = str(tvm.lower(func))
    lanes = next((w for w in (64, 32, 16) if width % w == 0), None)
    if lanes is not None:
        assert "T.Ramp" in lowered and ", %d)" % lanes in lowered, lowered
        assert all(", %d)" % w not in lowered for w in (128, 256, 512) if w != lanes), lowered
    else:
        assert "T.Ramp" not in lowered, lowered
    lib = tvm.tir.build(func, "llvm")
    a = np.random.default_rng(seed).standard_normal(rows * width).astype("float32")
    out = tvm.runtime.tensor(np.full(rows * width, -7.0, "float32"))
    lib(tvm.runtime.tensor(a), out)
    np.testing.assert_allclose(out.numpy(), a * 2 + 1, rtol=1e-6)
