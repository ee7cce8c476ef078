"""Property: hypothesis-generated elementwise expression trees over random shapes and dtypes
compile, run and match numpy."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tvm import te, tir
from tvm.driver import compile as tvm_compile

DTYPES = ["int32", "int64", "float32", "float64"]
N_INPUTS = 3


def _leaf(dtype):
    """(build(tensors, idx) -> PrimExpr, eval(arrays) -> ndarray) pairs."""
    is_float = dtype.startswith("float")
    consts = st.floats(-4, 4, allow_nan=False, width=32) if is_float else st.integers(-9, 9)
    return st.one_of(
        st.integers(0, N_INPUTS - 1).map(
            lambda k: (lambda ts, idx: ts[k][idx], lambda arrs: arrs[k])),
        consts.map(lambda c: (lambda ts, idx: tir.const(c, dtype),
                              lambda arrs: np.array(c, dtype=dtype))),
    )


def _tree(dtype):
    is_float = dtype.startswith("float")
    np_t = np.dtype(dtype).type

    def extend(children):
        binops = [
            (lambda a, b: a + b, np.add),
            (lambda a, b: a - b, np.subtract),
            (lambda a, b: a * b, np.multiply),
            (tir.min, np.minimum),
            (tir.max, np.maximum),
        ]
        out = [
            st.tuples(st.sampled_from(binops), children, children).map(
                lambda t: (lambda ts, idx: t[0][0](t[1][0](ts, idx), t[2][0](ts, idx)),
                           lambda arrs: t[0][1](t[1][1](arrs), t[2][1](arrs)).astype(dtype))),
            st.tuples(children, children, children, children).map(
                lambda t: (lambda ts, idx: tir.Select(t[0][0](ts, idx) < t[1][0](ts, idx),
                                                      t[2][0](ts, idx), t[3][0](ts, idx)),
                           lambda arrs: np.where(t[0][1](arrs) < t[1][1](arrs),
                                                 t[2][1](arrs), t[3][1](arrs)).astype(dtype))),
        ]
        if not is_float:
            divisors = st.sampled_from([-7, -3, -2, 2, 3, 5, 8])
            out.append(st.tuples(st.sampled_from([(tir.floordiv, np.floor_divide),
                                                  (tir.floormod, np.mod)]), children, divisors).map(
                lambda t: (lambda ts, idx: t[0][0](t[1][0](ts, idx), tir.const(t[2], dtype)),
                           lambda arrs: t[0][1](t[1][1](arrs), np_t(t[2])).astype(dtype))))
        else:
            out.append(children.map(
                lambda c: (lambda ts, idx: tir.sqrt(tir.abs(c[0](ts, idx))),
                           lambda arrs: np.sqrt(np.abs(c[1](arrs))).astype(dtype))))
        return st.one_of(*out)

    return st.recursive(_leaf(dtype), extend, max_leaves=8)


@st.composite
def cases(draw):
    dtype = draw(st.sampled_from(DTYPES))
    shape = tuple(draw(st.lists(st.integers(1, 6), min_size=1, max_size=3)))
    expr = draw(_tree(dtype))
    return dtype, shape, expr


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(case=cases(), seed=st.integers(0, 2**31 - 1), vectorize=st.booleans(),
       parallel=st.booleans())
def test_elementwise_trees_match_numpy(case, seed, vectorize, parallel):
    dtype, shape, (build, evaluate) = case
    inputs = [te.placeholder(shape, dtype, "in%d" % k) for k in range(N_INPUTS)]
    out = te.compute(shape, lambda *idx: build(inputs, tuple(idx)), name="out")
    sch = tir.Schedule(te.create_prim_func(inputs + [out]))
    loops = sch.get_loops(sch.get_block("out"))
    if vectorize:
        sch.vectorize(loops[-1])  # vector types with 1..6 lanes
    if parallel and len(loops) > 1:
        sch.parallel(loops[0])
    mod = tvm_compile(sch.mod, jit=True)
    rng = np.random.default_rng(seed)
    if dtype.startswith("float"):
        arrs = [rng.uniform(-10, 10, shape).astype(dtype) for _ in range(N_INPUTS)]
    else:
        arrs = [rng.integers(-1000, 1000, shape).astype(dtype) for _ in range(N_INPUTS)]
    got = np.zeros(shape, dtype)
    mod["main"](*arrs, got)
    want = np.broadcast_to(np.asarray(evaluate(arrs)).astype(dtype), shape)
    if dtype.startswith("float"):
        np.testing.assert_allclose(got, want, rtol=1e-6 if dtype == "float64" else 1e-5, atol=1e-6)
    else:
        np.testing.assert_array_equal(got, want)


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(dtype=st.sampled_from(DTYPES), combiner=st.sampled_from(["sum", "max", "min"]),
       n=st.integers(1, 9), m=st.integers(1, 40), split=st.sampled_from([None, 1, 3, 4, 8]),
       vectorize=st.booleans(), parallel=st.booleans(), seed=st.integers(0, 2**31 - 1))
def test_reductions_match_numpy(dtype, combiner, n, m, split, vectorize, parallel, seed):
    A = te.placeholder((n, m), dtype, "A")
    k = te.reduce_axis((0, m), "k")
    B = te.compute((n,), lambda i: getattr(te, combiner)(A[i, k] * 2, axis=k), name="B")
    sch = tir.Schedule(te.create_prim_func([A, B]))
    (i,) = sch.get_loops(sch.get_block("B"))[:1]
    if split:
        io, ii = sch.split(i, factors=[None, split])
        if parallel:
            sch.parallel(io)
        if vectorize:
            sch.vectorize(ii)  # the reduction loop sits inside: vector accumulators
    elif parallel:
        sch.parallel(i)
    mod = tvm_compile(sch.mod, jit=True)
    rng = np.random.default_rng(seed)
    if dtype.startswith("float"):
        a = rng.uniform(-10, 10, (n, m)).astype(dtype)
    else:
        a = rng.integers(-1000, 1000, (n, m)).astype(dtype)
    b = np.zeros(n, dtype)
    mod["main"](a, b)
    want = getattr(np, combiner)(a * np.asarray(2, dtype), axis=1).astype(dtype)
    if dtype.startswith("float"):
        np.testing.assert_allclose(b, want, rtol=1e-5, atol=1e-4)
    else:
        np.testing.assert_array_equal(b, want)


def _identity(combiner, dtype):
    if combiner == "sum":
        return 0
    if dtype.startswith("float"):
        return -np.inf if combiner == "max" else np.inf
    info = np.iinfo(dtype)
    return info.min if combiner == "max" else info.max


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(dtype=st.sampled_from(DTYPES), combiner=st.sampled_from(["sum", "max", "min"]),
       n=st.integers(1, 24), w=st.integers(1, 7), data=st.data(), seed=st.integers(0, 2**31 - 1))
def test_reductions_with_where_visit_only_the_points_it_allows(dtype, combiner, n, w, data, seed):
    # A window of w points centred by `pad`, reading A[i + k - pad]: `where` keeps the reads in
    # bounds (the other points must not even be read) and also drops k >= limit, so some
    # outputs may have no point at all (the combiner's identity).
    pad = data.draw(st.integers(0, w - 1))
    limit = data.draw(st.integers(0, w))
    A = te.placeholder((n,), dtype, "A")
    k = te.reduce_axis((0, w), "k")

    def body(i):
        j = i + k - pad
        ok = tir.all(j >= 0, j < n, k < limit)
        return getattr(te, combiner)(A[j], axis=k, where=ok)

    B = te.compute((n,), body, name="B")
    mod = tvm_compile(te.create_prim_func([A, B]), jit=True)
    rng = np.random.default_rng(seed)
    a = (rng.uniform(-10, 10, n) if dtype.startswith("float")
         else rng.integers(-1000, 1000, n)).astype(dtype)
    got = np.zeros(n, dtype)
    mod["main"](a, got)
    want = np.empty(n, dtype)
    for i in range(n):
        pts = [a[i + kk - pad] for kk in range(min(w, limit)) if 0 <= i + kk - pad < n]
        want[i] = getattr(np, combiner)(pts) if pts else _identity(combiner, dtype)
    if dtype.startswith("float"):
        np.testing.assert_allclose(got, want, rtol=1e-5)
    else:
        np.testing.assert_array_equal(got, want)


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(dtype=st.sampled_from(DTYPES), combiner=st.sampled_from(["sum", "max", "min"]),
       n=st.integers(1, 6), m=st.integers(1, 300), parts=st.integers(1, 9),
       parallel=st.booleans(), vectorize_rows=st.booleans(), masked=st.booleans(),
       factor_axis=st.sampled_from([-2, -1, 0, 1]), seed=st.integers(0, 2**31 - 1))
def test_rfactor_matches_numpy(dtype, combiner, n, m, parts, parallel, vectorize_rows, masked,
                               factor_axis, seed):
    # Reduce each row in `parts` independent partial reductions, then combine them.
    A = te.placeholder((n, m), dtype, "A")
    k = te.reduce_axis((0, m), "k")
    where = tir.NE(k % 3, 1) if masked else None
    B = te.compute((n,), lambda i: getattr(te, combiner)(A[i, k], axis=k, where=where), name="B")
    sch = tir.Schedule(te.create_prim_func([A, B]))
    _, kk = sch.get_loops(sch.get_block("B"))
    ko, _ = sch.split(kk, factors=[parts, None])
    rf = sch.rfactor(ko, factor_axis=factor_axis)
    loops = sch.get_loops(rf)
    if parallel:
        sch.parallel(loops[0])
    if vectorize_rows:
        sch.vectorize(loops[1])  # the rows: partial results as vector lanes
    mod = tvm_compile(sch.mod, jit=True)
    rng = np.random.default_rng(seed)
    a = (rng.uniform(-10, 10, (n, m)) if dtype.startswith("float")
         else rng.integers(-1000, 1000, (n, m))).astype(dtype)
    got = np.zeros(n, dtype)
    mod["main"](a, got)
    kept = a[:, [j for j in range(m) if not masked or j % 3 != 1]]
    if kept.shape[1]:
        want = getattr(np, combiner)(kept, axis=1).astype(dtype)
    else:
        want = np.full(n, _identity(combiner, dtype), dtype)
    if dtype.startswith("float"):
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-3)
    else:
        np.testing.assert_array_equal(got, want)


def test_where_rejects_a_python_bool():
    A = te.placeholder((4,), "float32", "A")
    k = te.reduce_axis((0, 4), "k")
    with pytest.raises(TypeError, match="tir.EQ/tir.NE"):
        te.sum(A[k], axis=k, where=(k % 2 != 0))  # identity comparison: a Python bool
