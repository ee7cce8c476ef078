"""Property: scheduled matmuls of random sizes, tiles that need not divide them (so split
tail guards sit between the loops that `reorder` moves), and random loop kinds compute what
numpy computes.
"""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from tvm import te, tir
from tvm.driver import compile as tvm_compile


def _matmul(n, m, k):
    A = te.placeholder((n, k), "float32", "A")
    B = te.placeholder((k, m), "float32", "B")
    r = te.reduce_axis((0, k), "r")
    C = te.compute((n, m), lambda i, j: te.sum(A[i, r] * B[r, j], axis=r), name="C")
    return te.create_prim_func([A, B, C])


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 40), m=st.integers(1, 40), k=st.integers(1, 24),
       ti=st.sampled_from([1, 2, 3, 4, 8]), tj=st.sampled_from([1, 4, 5, 8, 16]),
       cache=st.booleans(), cache_a=st.booleans(), cache_b=st.booleans(),
       parallel=st.booleans(), vectorize=st.booleans(), seed=st.integers(0, 2**31 - 1))
def test_tiled_matmul_matches_numpy(n, m, k, ti, tj, cache, cache_a, cache_b, parallel,
                                    vectorize, seed):
    sch = tir.Schedule(_matmul(n, m, k))
    block = sch.get_block("C")
    a_local = sch.cache_read(block, 0) if cache_a else None
    b_local = sch.cache_read(block, 1) if cache_b else None
    local = sch.cache_write(block, 0, "local") if cache else None
    i, j, _ = sch.get_loops(block)
    io, ii = sch.split(i, factors=[None, ti])
    jo, ji = sch.split(j, factors=[None, tj])
    sch.reorder(io, jo, ii, ji)  # the register-tile order, across the tail guards
    if local is not None:
        sch.reverse_compute_at(local, jo)
    if a_local is not None:
        sch.compute_at(a_local, io)  # a row panel of A per io (tails clipped to A's bounds)
    if b_local is not None:
        sch.compute_at(b_local, jo)  # a column panel of B per tile
    if parallel:
        sch.parallel(io)
    if vectorize:
        sch.vectorize(ji)
    lib = tvm_compile(sch.mod)
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((n, k), dtype=np.float32)
    b = rng.standard_normal((k, m), dtype=np.float32)
    c = np.full((n, m), np.nan, np.float32)
    lib["main"](a, b, c)
    np.testing.assert_allclose(c, a @ b, rtol=1e-4, atol=1e-4)
