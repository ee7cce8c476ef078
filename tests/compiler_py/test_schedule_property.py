"""Differential property: random sequences of schedule primitives on random TE programs
(elementwise chains, reductions, matmul, conv2d) compute what the unscheduled program
computes; a primitive whose preconditions fail raises ScheduleError and leaves the schedule
as it was. Anything else (another exception, a crash, wrong numbers) is a failure."""

import numpy as np
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


PROGRAMS = {"ew": _ew, "reduce": _reduce, "matmul": _matmul, "conv2d": _conv2d}
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
