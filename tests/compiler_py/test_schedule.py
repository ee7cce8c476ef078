"""tvm.tir.Schedule primitives: the transformed functions compute the same results."""

import numpy as np
import pytest

from tvm import te, tir
from tvm.driver import compile as tvm_compile
from tvm.driver import lower as tvm_lower


def _matmul(n=64, m=48, k=32):
    A = te.placeholder((n, k), "float32", "A")
    B = te.placeholder((k, m), "float32", "B")
    r = te.reduce_axis((0, k), "r")
    C = te.compute((n, m), lambda i, j: te.sum(A[i, r] * B[r, j], axis=r), name="C")
    return te.create_prim_func([A, B, C]), (n, m, k)


def _check(func, shape):
    n, m, k = shape
    mod = tvm_compile(func)
    a = np.random.randn(n, k).astype("float32")
    b = np.random.randn(k, m).astype("float32")
    c = np.zeros((n, m), "float32")
    mod["main"](a, b, c)
    np.testing.assert_allclose(c, a @ b, rtol=1e-4, atol=1e-4)
    return mod


def test_get_loops():
    f, _ = _matmul()
    sch = tir.Schedule(f)
    loops = sch.get_loops(sch.get_block("C"))
    assert [str(v.name) for v in loops] == ["i", "j", "r"]
    with pytest.raises(tir.ScheduleError):
        sch.get_block("nope")


def test_split_reorder_parallel_vectorize_unroll():
    f, shape = _matmul()
    sch = tir.Schedule(f)
    i, j, _ = sch.get_loops(sch.get_block("C"))
    io, ii = sch.split(i, factors=[None, 8])
    jo, ji = sch.split(j, factors=[None, 16])
    sch.reorder(io, jo, ii, ji)
    sch.parallel(io)
    sch.unroll(ii)
    text = str(sch.func)
    assert "for i_0 in T.parallel(8):" in text
    assert "for i_1 in T.unroll(8):" in text
    mod = _check(sch.mod, shape)
    assert "TVMBackendParallelLaunch" in mod.llvm_ir
    # UnrollLoop repeats the body 8 times in TIR (constant rows); no loop is left for ii.
    lowered = str(tvm_lower(sch.mod))
    assert "i_1" not in lowered and lowered.count("C[") >= 8, lowered


def test_long_unrolled_loops_keep_the_llvm_hint():
    f, shape = _matmul(72, 2, 2)
    sch = tir.Schedule(f)
    i, _, _ = sch.get_loops(sch.get_block("C"))
    sch.unroll(i)                       # 72 iterations: above UnrollLoop's limit (64)
    mod = _check(sch.mod, shape)
    assert "llvm.loop.unroll.full" in mod.llvm_ir


@pytest.mark.parametrize("n", [1, 5, 6, 13])
def test_split_of_a_symbolic_extent_rounded_up_needs_no_predicate(n):
    """A symbolic extent written floordiv(m + 5, 6) * 6 (a dynamic batch padded to a tile's
    rows) splits by 6, 3 or 2 without a predicate; by 4 it keeps one. Same numbers both ways."""
    m = tir.Var("m", "int64")
    A = te.placeholder((m, 4), "float32", "A")
    B = te.compute(((m + 5) // 6 * 6, 4), lambda i, j: A[tir.min(i, m - 1), j] * 2.0, name="B")
    for factor, predicated in ((6, False), (3, False), (2, False), (4, True)):
        sch = tir.Schedule(te.create_prim_func([A, B]))
        i, _ = sch.get_loops(sch.get_block("B"))
        sch.split(i, factors=[None, factor])
        text = str(sch.func)
        assert ("T.where(" in text) == predicated, (factor, text)
        mod = tvm_compile(sch.mod)
        a = np.random.randn(n, 4).astype("float32")
        rows = (n + 5) // 6 * 6
        b = np.zeros((rows, 4), "float32")
        mod["main"](a, b)
        np.testing.assert_allclose(b, 2 * a[np.minimum(np.arange(rows), n - 1)])


def test_split_with_tail_and_fuse():
    A = te.placeholder((37, 5), "float32", "A")
    B = te.compute((37, 5), lambda i, j: A[i, j] * 3.0, name="B")
    sch = tir.Schedule(te.create_prim_func([A, B]))
    i, j = sch.get_loops(sch.get_block("B"))
    fused = sch.fuse(i, j)
    outer, inner = sch.split(fused, factors=[None, 8])  # 185 = 23 * 8 + 1: a guarded tail
    sch.vectorize(inner)
    text = str(sch.func)
    assert "T.where(" in text and "T.vectorized(8)" in text  # the tail is a block predicate
    mod = tvm_compile(sch.mod)
    assert "llvm.loop.vectorize.enable" in mod.llvm_ir
    a = np.random.randn(37, 5).astype("float32")
    b = np.zeros((37, 5), "float32")
    mod["main"](a, b)
    np.testing.assert_allclose(b, a * 3, rtol=1e-6)


def test_reorder_moves_the_reduction_loop_past_the_init():
    # The init belongs to the block, so the reduction loop can go anywhere (TVM semantics).
    f, shape = _matmul()
    sch = tir.Schedule(f)
    i, j, r = sch.get_loops(sch.get_block("C"))
    sch.reorder(r, j, i)
    assert [v.name for v in sch.get_loops(sch.get_block("C"))] == ["r", "j", "i"]
    _check(sch.mod, shape)


def test_reorder_errors():
    A = te.placeholder((8,), "float32", "A")
    B = te.compute((8,), lambda i: A[i] + 1.0, name="B")
    C = te.compute((8,), lambda i: B[i] * 2.0, name="C")
    sch = tir.Schedule(te.create_prim_func([A, C]))
    (bi,) = sch.get_loops(sch.get_block("B"))
    (ci,) = sch.get_loops(sch.get_block("C"))
    with pytest.raises(tir.ScheduleError, match="not on one path"):
        sch.reorder(bi, ci)
    with pytest.raises(tir.ScheduleError, match="given twice"):
        sch.reorder(bi, bi)


@pytest.mark.parametrize("dtype", ["float32", "int32", "float64", "int64"])
def test_vectorize_emits_vector_types(dtype):
    A = te.placeholder((16, 32), dtype, "A")
    B = te.placeholder((16, 32), dtype, "B")
    C = te.compute((16, 32), lambda i, j: tir.max(A[i, j] * B[i, j], A[i, j]) + B[i, j], name="C")
    sch = tir.Schedule(te.create_prim_func([A, B, C]))
    _, j = sch.get_loops(sch.get_block("C"))
    _, ji = sch.split(j, factors=[None, 8])
    sch.vectorize(ji)
    mod = tvm_compile(sch.mod)
    elem = {"float32": "float", "float64": "double", "int32": "i32", "int64": "i64"}[dtype]
    assert "load <8 x %s>" % elem in mod.llvm_ir
    assert "store <8 x %s>" % elem in mod.llvm_ir
    a = (np.random.randn(16, 32) * 10).astype(dtype)
    b = (np.random.randn(16, 32) * 10).astype(dtype)
    c = np.zeros((16, 32), dtype)
    mod["main"](a, b, c)
    np.testing.assert_allclose(c, np.maximum(a * b, a) + b, rtol=1e-6)


def test_vectorize_strided_access_gathers():
    A = te.placeholder((8, 8), "float32", "A")
    B = te.compute((8, 8), lambda i, j: A[j, i] + tir.Cast("float32", j), name="B")  # transpose
    sch = tir.Schedule(te.create_prim_func([A, B]))
    _, j = sch.get_loops(sch.get_block("B"))
    sch.vectorize(j)
    mod = tvm_compile(sch.mod)
    assert "extractelement" in mod.llvm_ir and "store <8 x float>" in mod.llvm_ir
    a = np.random.randn(8, 8).astype("float32")
    b = np.zeros((8, 8), "float32")
    mod["main"](a, b)
    np.testing.assert_allclose(b, a.T + np.arange(8, dtype="float32")[None, :], rtol=1e-6)


def test_fast_matmul_schedule():
    f, shape = _matmul(128, 128, 128)
    sch = tir.Schedule(f)
    i, j, _ = sch.get_loops(sch.get_block("C"))
    io, ii = sch.split(i, factors=[None, 4])
    jo, ji = sch.split(j, factors=[None, 16])
    sch.reorder(io, jo, ii, ji)
    sch.parallel(io)
    sch.vectorize(ji)
    mod = _check(sch.mod, shape)
    assert "<16 x float>" in mod.llvm_ir


def test_cache_write_reverse_compute_at_matmul():
    f, shape = _matmul(64, 64, 32)
    sch = tir.Schedule(f)
    block = sch.get_block("C")
    C_local = sch.cache_write(block, 0, "local")
    i, j, _ = sch.get_loops(block)           # still the computation
    io, ii = sch.split(i, factors=[None, 4])
    jo, ji = sch.split(j, factors=[None, 16])
    sch.reorder(io, jo, ii, ji)
    sch.reverse_compute_at(C_local, jo)
    sch.parallel(io)
    sch.unroll(ii)
    sch.vectorize(ji)
    text = str(tvm_lower(sch.mod))  # CompactBufferAllocation shrinks the cache to the tile
    assert "C_local = T.alloc_buffer((T.int64(64),)" in text, text  # 4 x 16
    mod = _check(sch.mod, shape)
    assert "TVMBackendAllocWorkspace" not in mod.llvm_ir  # the 256-byte tile is on the stack


def test_cache_write_without_compute_at():
    f, shape = _matmul(8, 8, 8)
    sch = tir.Schedule(f)
    sch.cache_write(sch.get_block("C"), 0, "local")
    assert len(sch.get_loops(sch.get_block("C"))) == 3
    _check(sch.mod, shape)


def test_compute_at_stencil_producer_shrinks_to_the_tile():
    n = 37
    A = te.placeholder((n + 2,), "float32", "A")
    B = te.compute((n + 2,), lambda i: A[i] * 2.0, name="B")
    C = te.compute((n,), lambda i: B[i] + B[i + 1] + B[i + 2], name="C")
    sch = tir.Schedule(te.create_prim_func([A, C]))
    (i,) = sch.get_loops(sch.get_block("C"))
    io, _ = sch.split(i, factors=[None, 8])
    sch.compute_at(sch.get_block("B"), io)
    assert "B = T.alloc_buffer((T.int64(10),)" in str(tvm_lower(sch.mod))
    mod = tvm_compile(sch.mod)
    a = np.random.rand(n + 2).astype("float32")
    c = np.zeros(n, "float32")
    mod["main"](a, c)
    b = a * 2
    np.testing.assert_allclose(c, b[:-2] + b[1:-1] + b[2:], rtol=1e-6)


def test_compute_at_reduction_producer():
    n = 32
    A = te.placeholder((n, n), "float32", "A")
    B = te.placeholder((n, n), "float32", "B")
    k = te.reduce_axis((0, n), "k")
    C = te.compute((n, n), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    D = te.compute((n, n), lambda i, j: tir.max(C[i, j], 0.0), name="D")
    sch = tir.Schedule(te.create_prim_func([A, B, D]))
    i, j = sch.get_loops(sch.get_block("D"))
    io, ii = sch.split(i, factors=[None, 4])
    jo, ji = sch.split(j, factors=[None, 8])
    sch.reorder(io, jo, ii, ji)
    sch.compute_at(sch.get_block("C"), jo)
    sch.parallel(io)
    assert "C = T.alloc_buffer((T.int64(32),)" in str(tvm_lower(sch.mod))  # 4 x 8
    mod = tvm_compile(sch.mod)
    assert "TVMBackendAllocWorkspace" not in mod.llvm_ir
    a = np.random.randn(n, n).astype("float32")
    b = np.random.randn(n, n).astype("float32")
    d = np.zeros((n, n), "float32")
    mod["main"](a, b, d)
    np.testing.assert_allclose(d, np.maximum(a @ b, 0), rtol=1e-4, atol=1e-5)


def test_compute_at_errors():
    A = te.placeholder((8,), "float32", "A")
    B = te.compute((8,), lambda i: A[i] + 1.0, name="B")
    C = te.compute((8,), lambda i: B[i] * 2.0, name="C")
    sch = tir.Schedule(te.create_prim_func([A, C]))
    (i,) = sch.get_loops(sch.get_block("B"))
    sch.split(i, factors=[None, 4])  # B no longer has its TE loop nest
    (ci,) = sch.get_loops(sch.get_block("C"))
    with pytest.raises(tir.ScheduleError, match="comes after loop"):
        sch.compute_at(sch.get_block("C"), sch.get_loops(sch.get_block("B"))[0])
    with pytest.raises(tir.ScheduleError, match="comes before loop"):
        sch.reverse_compute_at(sch.get_block("B"), ci)
    sch.compute_at(sch.get_block("B"), ci)  # a split producer moves too (its blocks do)
    assert sch.get_child_blocks(ci) == ["B", "C"]


def test_decompose_reduction_hoists_init():
    f, shape = _matmul()
    sch = tir.Schedule(f)
    blk = sch.get_block("C")
    i, j, r = sch.get_loops(blk)
    init = sch.decompose_reduction(blk, i)
    text = str(sch.func)
    assert "for i_init in" in text and "for j_init in" in text
    assert [str(v.name) for v in sch.get_loops(init)] == ["i_init", "j_init"]
    assert [str(v.name) for v in sch.get_loops(blk)] == ["i", "j", "r"]
    # The update nest is now perfectly nested: the reduction loop can move outwards.
    sch.reorder(r, i, j)
    _check(sch.mod, shape)


@pytest.mark.parametrize("n,m,k,ti,tj", [(64, 48, 32, 4, 16), (32, 64, 17, 4, 32),
                                          (16, 8, 1, 2, 8), (32, 40, 9, 4, 16)])
def test_decompose_reduction_register_tile(n, m, k, ti, tj):
    f, shape = _matmul(n, m, k)
    sch = tir.Schedule(f)
    blk = sch.get_block("C")
    acc = sch.cache_write(blk, 0, "local")
    i, j, r = sch.get_loops(blk)
    io, ii = sch.split(i, factors=[None, ti])
    jo, ji = sch.split(j, factors=[None, tj])
    sch.reorder(io, jo, ii, ji)
    sch.reverse_compute_at(acc, jo)
    init = sch.decompose_reduction(blk, ii)
    sch.reorder(r, ii, ji)   # across j's tail guard when tj does not divide m
    sch.unroll(ii)
    sch.vectorize(ji)
    _, _, ii0, ji0 = sch.get_loops(init)
    sch.unroll(ii0)
    sch.vectorize(ji0)
    sch.parallel(io)
    _check(sch.mod, shape)


def test_decompose_reduction_with_tails_and_split_reduction():
    f, shape = _matmul(37, 24, 23)
    sch = tir.Schedule(f)
    blk = sch.get_block("C")
    i, j, r = sch.get_loops(blk)
    io, ii = sch.split(i, factors=[None, 8])     # tail: 37 = 4 * 8 + 5
    ro, ri = sch.split(r, factors=[None, 5])     # tail in the reduction
    sch.decompose_reduction(blk, io)
    assert "i_1_init" in str(sch.func)
    _check(sch.mod, shape)


def test_decompose_reduction_errors():
    f, shape = _matmul()
    sch = tir.Schedule(f)
    blk = sch.get_block("C")
    i, j, r = sch.get_loops(blk)
    sch.reorder(r, i, j)
    with pytest.raises(tir.ScheduleError, match="must be above the reduction loop r"):
        sch.decompose_reduction(blk, i)   # the reduction loop r is above i
    sch.decompose_reduction(blk, r)       # at the reduction loop itself: fine
    with pytest.raises(tir.ScheduleError, match="no init"):
        sch.decompose_reduction(blk, r)
    _check(sch.mod, shape)


def test_cache_read_whole_buffer_then_a_tile_per_iteration():
    f, shape = _matmul(64, 48, 32)
    sch = tir.Schedule(f)
    blk = sch.get_block("C")
    a_local = sch.cache_read(blk, 0)          # A: the first buffer C reads
    assert str(a_local) == "A_local"
    _check(sch.mod, shape)                    # a full copy before C
    i, j, r = sch.get_loops(blk)
    io, ii = sch.split(i, factors=[None, 8])
    sch.compute_at(a_local, io)               # 8 rows of A per iteration of io
    text = str(tvm_lower(sch.mod))
    assert "A_local = T.alloc_buffer((T.int64(256),)" in text, text  # 8 x 32
    _check(sch.mod, shape)


def test_cache_read_of_both_inputs_with_a_register_tile():
    f, shape = _matmul(32, 64, 24)
    sch = tir.Schedule(f)
    blk = sch.get_block("C")
    b_local = sch.cache_read(blk, 1)          # B
    acc = sch.cache_write(blk, 0, "local")
    i, j, r = sch.get_loops(blk)
    io, ii = sch.split(i, factors=[None, 4])
    jo, ji = sch.split(j, factors=[None, 16])
    sch.reorder(io, jo, ii, ji)
    sch.compute_at(b_local, jo)               # a 24 x 16 panel of B per tile
    sch.reverse_compute_at(acc, jo)
    sch.vectorize(ji)
    _check(sch.mod, shape)


def test_cache_read_bad_index_and_names():
    f, _ = _matmul()
    sch = tir.Schedule(f)
    blk = sch.get_block("C")
    with pytest.raises(tir.ScheduleError, match="reads 2 buffer"):
        sch.cache_read(blk, 2)
    with pytest.raises(tir.ScheduleError, match="storage scope"):
        sch.cache_read(blk, 0, "texture")
    first = sch.cache_read(blk, 0)
    second = sch.cache_read(blk, 0)           # a cache of the cache: a fresh name
    assert str(first) == "A_local" and str(second) == "A_local_local"


def test_rfactor_parallel_partial_sums():
    f, shape = _matmul(16, 8, 96)
    sch = tir.Schedule(f)
    blk = sch.get_block("C")
    _, _, r = sch.get_loops(blk)
    ro, _ = sch.split(r, factors=[2, None])
    rf = sch.rfactor(ro, factor_axis=0)
    assert str(rf) == "C_rf"
    i, j, r0, r1 = sch.get_loops(rf)           # the rf block stays in the original nest
    sch.reorder(r0, i, j, r1)
    sch.parallel(r0)                          # one half of the k range per thread
    text = str(sch.func)
    assert "C_rf = T.alloc_buffer((2, 16, 8)" in text, text
    _check(sch.mod, shape)


def test_rfactor_errors():
    f, _ = _matmul()
    sch = tir.Schedule(f)
    blk = sch.get_block("C")
    i, _, r = sch.get_loops(blk)
    with pytest.raises(tir.ScheduleError, match="spatial var"):
        sch.rfactor(i, 0)
    with pytest.raises(tir.ScheduleError, match="factor_axis"):
        sch.rfactor(r, factor_axis=3)   # C has 2 dimensions: positions 0..2
    ro, _ = sch.split(r, factors=[4, None])
    sch.decompose_reduction(blk, i)
    with pytest.raises(tir.ScheduleError, match="not a reduction with an init"):
        sch.rfactor(ro, 0)


def test_rfactor_twice_threads_then_vector_lanes():
    # A long dot-product-like sum: partials per thread (parallel), then per vector lane inside
    # each thread's part, laid out thread-major (factor_axis=1) so each thread's lanes are
    # contiguous.
    n = 4096 + 7
    A = te.placeholder((n,), "float32", "A")
    k = te.reduce_axis((0, n), "k")
    B = te.compute((1,), lambda i: te.sum(A[k] * A[k], axis=k), name="B")
    sch = tir.Schedule(te.create_prim_func([A, B]))
    _, kk = sch.get_loops(sch.get_block("B"))
    ko, kl = sch.split(kk, factors=[None, 8])
    kp, _ = sch.split(ko, factors=[2, None])
    rf = sch.rfactor(kp, factor_axis=0)
    i, kp_, km, kl_ = sch.get_loops(rf)
    lanes = sch.rfactor(kl_, factor_axis=1)
    assert str(lanes) == "B_rf_rf"
    assert "B_rf_rf = T.alloc_buffer((2, 8, 1)" in str(sch.func)
    i, kp_, km, kl_ = sch.get_loops(lanes)
    sch.reorder(kp_, i, km, kl_)
    sch.decompose_reduction(lanes, i)
    sch.parallel(kp_)
    sch.vectorize(kl_)
    lib = tvm_compile(sch.mod)
    a = np.random.rand(n).astype("float32")
    b = np.zeros(1, "float32")
    lib["main"](a, b)
    np.testing.assert_allclose(b[0], np.dot(a, a), rtol=1e-4)


def test_rfactor_of_a_block_moved_under_its_consumer():
    # B (a row sum) computed at C's row loop, then rfactored: the write-back must come before
    # C inside the shared row loop, not after the whole nest.
    n, m = 3, 10
    A = te.placeholder((n, m), "float32", "A")
    k = te.reduce_axis((0, m), "k")
    B = te.compute((n,), lambda i: te.sum(A[i, k], axis=k), name="B")
    C = te.compute((n,), lambda i: B[i] * 0.5, name="C")
    sch = tir.Schedule(te.create_prim_func([A, C]))
    (ci,) = sch.get_loops(sch.get_block("C"))
    sch.compute_at(sch.get_block("B"), ci)
    _, kk = sch.get_loops(sch.get_block("B"))
    ko, _ = sch.split(kk, factors=[2, None])
    sch.rfactor(ko, 0)
    assert sch.get_child_blocks(ci) == ["B_rf", "B", "C"]
    lib = tvm_compile(sch.mod)
    a = np.random.rand(n, m).astype("float32")
    c = np.zeros(n, "float32")
    lib["main"](a, c)
    np.testing.assert_allclose(c, a.sum(axis=1) * 0.5, rtol=1e-5)


def test_rfactor_refuses_a_loop_fused_across_spatial_and_reduction():
    f, _ = _matmul(8, 8, 8)
    sch = tir.Schedule(f)
    blk = sch.get_block("C")
    i, j, r = sch.get_loops(blk)
    r0, r1 = sch.split(r, factors=[2, None])
    sch.fuse(j, r0)                      # one loop now drives v_j and part of v_r
    with pytest.raises(tir.ScheduleError, match="both the spatial var v_j and a reduction var"):
        sch.rfactor(r1, 0)
