"""Differential property: random sequences of schedule primitives on random TE programs
(elementwise chains, reductions, matmul, conv2d) compute what the unscheduled program
computes; a primitive whose preconditions fail raises ScheduleError and leaves the schedule
as it was. Anything else (another exception, a crash, wrong numbers) is a failure."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tvm
from tvm import te, tir


def _ew(n, m):
    A = te.placeholder((n, m), "float32", "A")
    B = te.compute((n, m), lambda i, j: A[i, j] * 2.0, name="B")
    C = te.compute((n, m), lambda i, j: B[i, j] + A[i, j], name="C")
    D = te.compute((n, m), lambda i, j: tir.max(C[i, j], tir.const(0.5, "float32")), name="D")
    return [A, D]


def _reduce(n, m):
    A = te.placeholder((n, m), "float32", "A")
    k = te.reduce_axis((0, m), "k")
    B = te.compute((n,), lambda i: te.sum(A[i, k], axis=k), name="B")
    C = te.compute((n,), lambda i: B[i] * 0.5, name="C")
    return [A, C]


def _matmul(n, m):
    k = 12
    A = te.placeholder((n, k), "float32", "A")
    B = te.placeholder((k, m), "float32", "B")
    r = te.reduce_axis((0, k), "r")
    C = te.compute((n, m), lambda i, j: te.sum(A[i, r] * B[r, j], axis=r), name="C")
    D = te.compute((n, m), lambda i, j: tir.max(C[i, j], tir.const(0, "float32")), name="D")
    return [A, B, D]


def _conv2d(n, m):
    c, f = 3, 4
    X = te.placeholder((1, c, n + 2, m + 2), "float32", "X")
    W = te.placeholder((f, c, 3, 3), "float32", "W")
    rc = te.reduce_axis((0, c), "rc")
    ry = te.reduce_axis((0, 3), "ry")
    rx = te.reduce_axis((0, 3), "rx")
    Y = te.compute((1, f, n, m), lambda b, o, y, x: te.sum(
        X[b, rc, y + ry, x + rx] * W[o, rc, ry, rx], axis=[rc, ry, rx]), name="Y")
    return [X, W, Y]


def _pixels(n, m):
    """A convolution as default_schedule runs it: a product over flattened output pixels whose
    row count is padded to a tile of 4, the epilogue reading it back through the reshape
    h * m + w beside a residual input."""
    k, f = 5, 3
    hw = n * m
    X = te.placeholder((hw, k), "float32", "X")
    W = te.placeholder((k, f), "float32", "W")
    R = te.placeholder((n, m, f), "float32", "R")
    r = te.reduce_axis((0, k), "r")
    C = te.compute(((hw + 3) // 4 * 4, f), lambda q, o: te.sum(
        X[tir.min(q, hw - 1), r] * W[r, o], axis=r), name="C")
    D = te.compute((n, m, f), lambda h, w, o: C[h * m + w, o] + R[h, w, o], name="D")
    return [X, W, R, D]


PROGRAMS = {"ew": _ew, "reduce": _reduce, "matmul": _matmul, "conv2d": _conv2d, "pixels": _pixels}
PRIMITIVES = ["split", "fuse", "reorder", "parallel", "vectorize", "unroll", "cache_read",
              "cache_write", "compute_at", "reverse_compute_at", "compute_inline",
              "reverse_compute_inline", "decompose_reduction", "rfactor"]


def _blocks(sch):
    return sch.get_child_blocks(sch.get_block("root"))


def _apply(sch, data, prim):
    blocks = _blocks(sch)
    block = data.draw(st.sampled_from(blocks))
    loops = sch.get_loops(block)
    if prim == "split":
        if not loops:
            return
        n = data.draw(st.integers(2, 3))
        factors = [data.draw(st.integers(1, 8)) for _ in range(n)]
        factors[data.draw(st.integers(0, n - 1))] = None
        sch.split(data.draw(st.sampled_from(loops)), factors=factors)
    elif prim == "fuse":
        if len(loops) < 2:
            return
        start = data.draw(st.integers(0, len(loops) - 2))
        count = data.draw(st.integers(2, len(loops) - start))
        sch.fuse(*loops[start:start + count])
    elif prim == "reorder":
        if len(loops) < 2:
            return
        sub = data.draw(st.lists(st.sampled_from(loops), min_size=2, max_size=len(loops), unique_by=id))
        sch.reorder(*sub)
    elif prim in ("parallel", "vectorize"):
        if loops:
            getattr(sch, prim)(data.draw(st.sampled_from(loops)))
    elif prim == "unroll":
        # Unrolling is full (LLVM's unroll.full): only a short split-off inner loop, or the
        # compile time of a 2000-iteration body dominates the test.
        if loops:
            inner = sch.split(data.draw(st.sampled_from(loops)), factors=[None, data.draw(st.integers(1, 8))])[1]
            sch.unroll(inner)
    elif prim == "cache_read":
        sch.cache_read(block, data.draw(st.integers(0, 2)), "local")
    elif prim == "cache_write":
        sch.cache_write(block, 0, "local")
    elif prim in ("compute_at", "reverse_compute_at"):
        other = data.draw(st.sampled_from(blocks))
        other_loops = sch.get_loops(other)
        if other_loops:
            getattr(sch, prim)(block, data.draw(st.sampled_from(other_loops)))
    elif prim in ("compute_inline", "reverse_compute_inline"):
        getattr(sch, prim)(block)
    elif prim == "decompose_reduction":
        if loops:
            sch.decompose_reduction(block, data.draw(st.sampled_from(loops)))
    elif prim == "rfactor":
        if loops:
            sch.rfactor(data.draw(st.sampled_from(loops)), data.draw(st.integers(0, 1)))


def _inputs(tensors, seed):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal([int(s.value) for s in t.shape]).astype("float32") for t in tensors[:-1]]


def _run(mod, tensors, inputs):
    out = np.zeros([int(s.value) for s in tensors[-1].shape], "float32")
    tvm.compile(mod, jit=True)["main"](*inputs, out)
    return out


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(program=st.sampled_from(sorted(PROGRAMS)), n=st.integers(1, 9), m=st.integers(1, 20),
       steps=st.lists(st.sampled_from(PRIMITIVES), min_size=1, max_size=6),
       seed=st.integers(0, 2**31 - 1), data=st.data())
def test_random_schedules_keep_the_numbers(program, n, m, steps, seed, data):
    tensors = PROGRAMS[program](n, m)
    func = te.create_prim_func(tensors)
    inputs = _inputs(tensors, seed)
    want = _run(func, tensors, inputs)
    sch = tir.Schedule(func)
    applied = []
    for prim in steps:
        before = sch.func
        try:
            _apply(sch, data, prim)
            applied.append(prim)
        except tir.ScheduleError:
            assert sch.func.same_as(before), "a failed %s changed the schedule" % prim
    got = _run(sch.mod, tensors, inputs)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4, err_msg=str(sch.trace))


def _tile_then_inline(tensors, product, row_axis, epilogue, seed):
    """The product's cache write-back placed under its row loop split by 4 (a register tile's
    rows), then the epilogue inlined into it; with the unscheduled result and the inputs."""
    func = te.create_prim_func(tensors)
    inputs = _inputs(tensors, seed)
    want = _run(func, tensors, inputs)
    sch = tir.Schedule(func)
    block = sch.get_block(product)
    acc = sch.cache_write(block, 0, "local")
    rows_outer, _ = sch.split(sch.get_loops(block)[row_axis], factors=[None, 4])
    sch.reverse_compute_at(acc, rows_outer)
    sch.reverse_compute_inline(sch.get_block(epilogue))
    return sch, want, inputs


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(n=st.integers(1, 9), m=st.integers(1, 12), seed=st.integers(0, 2**31 - 1))
def test_reshape_epilogue_joins_a_padded_tile_write_back(n, m, seed):
    """The register tile's write-back takes an epilogue that reads the product through a
    reshape (h * m + w) although the product has more rows than pixels (padded to the tile):
    the inlined store is guarded, so padded rows write nothing, and the numbers are kept."""
    tensors = _pixels(n, m)
    sch, want, inputs = _tile_then_inline(tensors, "C", 0, "D", seed)
    text = str(sch.mod)
    assert 'T.block("D")' not in text
    assert ("T.where" in text) == ((n * m) % 4 != 0), text
    np.testing.assert_allclose(_run(sch.mod, tensors, inputs), want, rtol=1e-5, atol=1e-5)


@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
@given(m=st.integers(1, 9), n=st.integers(1, 6), seed=st.integers(0, 2**31 - 1))
def test_int32_epilogue_joins_an_int64_padded_product(m, n, seed):
    """A product over int64 rows padded to the tile of 4 (as the matmul kernels index it) read
    back by an epilogue whose extents came from Python ints (int32): the epilogue is inlined
    into the product's write-back, guarded by its int32 row count taken in the product's
    index type (this raised TypeError: int64 var < int32 extent), and the numbers are
    relu(X @ W)."""
    i64 = lambda v: tir.const(v, "int64")  # noqa: E731
    k = 5
    X = te.placeholder((i64(m), i64(k)), "float32", "X")
    W = te.placeholder((i64(k), i64(n)), "float32", "W")
    r = te.reduce_axis((i64(0), i64(k)), "r")
    C = te.compute((i64((m + 3) // 4 * 4), i64(n)), lambda q, o: te.sum(
        X[tir.min(q, i64(m - 1)), r] * W[r, o], axis=r), name="C")
    D = te.compute((m, n), lambda i, j: tir.max(C[i, j], tir.const(0, "float32")), name="D")
    tensors = [X, W, D]
    sch = tir.Schedule(te.create_prim_func(tensors))
    acc = sch.cache_write(sch.get_block("C"), 0, "local")
    rows_outer, _ = sch.split(sch.get_loops(sch.get_block("C"))[0], factors=[None, 4])
    sch.reverse_compute_at(acc, rows_outer)
    sch.reverse_compute_inline(sch.get_block("D"))
    text = str(sch.mod)
    assert 'T.block("D")' not in text
    assert ("T.where" in text) == (m % 4 != 0), text
    x, w = _inputs(tensors, seed)
    np.testing.assert_allclose(_run(sch.mod, tensors, [x, w]), np.maximum(x @ w, 0), rtol=1e-5, atol=1e-5)


def test_reshape_epilogue_that_is_not_a_fused_index_is_refused():
    X = te.placeholder((12, 4), "float32", "X")
    C = te.compute((12, 4), lambda q, o: X[q, o] * 2.0, name="C")
    # h * 5 + w with w < 4 skips points: not a reshape of C's rows
    D = te.compute((2, 4, 4), lambda h, w, o: C[h * 5 + w, o] + 1.0, name="D")
    sch = tir.Schedule(te.create_prim_func([X, D]))
    with pytest.raises(tir.ScheduleError, match="not a fused"):
        sch.reverse_compute_inline(sch.get_block("D"))
    # reading beyond the rows the producer writes
    E = te.compute((4, 4, 4), lambda h, w, o: C[h * 4 + w, o] + 1.0, name="E")
    sch = tir.Schedule(te.create_prim_func([X, E]))
    with pytest.raises(tir.ScheduleError, match="beyond what the producer writes"):
        sch.reverse_compute_inline(sch.get_block("E"))


@settings(max_examples=20, deadline=None, suppress_health_check=list(HealthCheck))
@given(n=st.integers(1, 6), m=st.integers(1, 7), groups=st.integers(1, 4), per_group=st.integers(1, 9),
       seed=st.integers(0, 2**31 - 1))
def test_grouped_epilogue_joins_the_write_back(n, m, groups, per_group, seed):
    """A grouped product (G, pixels padded to 4, channels per group padded to 8) read back as
    out[h, w, c] = P[c // K, h * m + w, c % K] + R[h, w, c]: the epilogue is inlined into
    the product's cache write-back, guarded against the padded pixels and channels."""
    hw, k = n * m, 3
    cpad = (per_group + 7) // 8 * 8
    X = te.placeholder((hw, groups * k), "float32", "X")
    W = te.placeholder((groups, k, cpad), "float32", "W")
    R = te.placeholder((n, m, groups * per_group), "float32", "R")
    r = te.reduce_axis((0, k), "r")
    P = te.compute((groups, (hw + 3) // 4 * 4, cpad), lambda g, q, o: te.sum(
        X[tir.min(q, hw - 1), g * k + r] * W[g, r, o], axis=r), name="P")
    D = te.compute((n, m, groups * per_group), lambda h, w, c: P[c // per_group, h * m + w, c % per_group]
                   + R[h, w, c], name="D")
    tensors = [X, W, R, D]
    sch, want, inputs = _tile_then_inline(tensors, "P", 1, "D", seed)
    assert 'T.block("D")' not in str(sch.mod)
    np.testing.assert_allclose(_run(sch.mod, tensors, inputs), want, rtol=1e-5, atol=1e-5)
