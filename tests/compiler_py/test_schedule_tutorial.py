"""TVM tutorial-style schedules, written the way a TVM user writes them (tvm.tir.Schedule on a
TE program, tvm.compile, tvm.runtime tensors), checked against numpy."""

import re

import numpy as np
import pytest

import tvm
from tvm import te, tir


def _matmul(n=128, m=96, k=64, dtype="float32"):
    A = te.placeholder((n, k), dtype, name="A")
    B = te.placeholder((k, m), dtype, name="B")
    r = te.reduce_axis((0, k), name="k")
    C = te.compute((n, m), lambda i, j: te.sum(A[i, r] * B[r, j], axis=r), name="C")
    return te.create_prim_func([A, B, C]), (n, m, k)


def _run(mod, shape, b_layout=None):
    n, m, k = shape
    rng = np.random.default_rng(0)
    a = rng.standard_normal((n, k)).astype("float32")
    b = rng.standard_normal((k, m)).astype("float32")
    lib = tvm.compile(mod, target="llvm")
    dev = tvm.cpu()
    b_in = b_layout(b) if b_layout else b
    args = [tvm.runtime.tensor(x, dev) for x in (a, b_in)] + [tvm.runtime.tensor(np.zeros((n, m), "float32"), dev)]
    lib["main"](*args)
    np.testing.assert_allclose(args[2].numpy(), a @ b, rtol=1e-4, atol=1e-4)
    return lib


def test_three_factor_split_and_reorder():
    func, shape = _matmul()
    sch = tvm.tir.Schedule(func)
    block_c = sch.get_block("C")
    i, j, k = sch.get_loops(block_c)
    i0, i1, i2 = sch.split(i, factors=[None, 4, 8])
    j0, j1 = sch.split(j, factors=[None, 16])
    k0, k1 = sch.split(k, factors=[None, 4])
    sch.reorder(i0, j0, k0, i1, k1, i2, j1)
    sch.parallel(i0)
    sch.vectorize(j1)
    assert len(sch.get_loops(block_c)) == 7
    _run(sch.mod, shape)


def test_cache_write_local_and_reverse_compute_at():
    func, shape = _matmul()
    sch = tvm.tir.Schedule(func)
    block_c = sch.get_block("C")
    c_local = sch.cache_write(block_c, 0, "local")
    i, j, k = sch.get_loops(block_c)
    io, ii = sch.split(i, factors=[None, 4])
    jo, ji = sch.split(j, factors=[None, 16])
    sch.reorder(io, jo, k, ii, ji)
    sch.reverse_compute_at(c_local, jo)
    sch.decompose_reduction(block_c, k)
    sch.vectorize(ji)
    sch.parallel(io)
    assert sch.get_consumers(block_c) == ["C_local"] or sch.get_consumers(block_c) == []
    _run(sch.mod, shape)


def test_compute_inline_of_an_elementwise_producer():
    n = 64
    A = te.placeholder((n, n), name="A")
    B = te.compute((n, n), lambda i, j: A[i, j] * 2.0, name="B")
    C = te.compute((n, n), lambda i, j: B[i, j] + 1.0, name="C")
    sch = tvm.tir.Schedule(te.create_prim_func([A, C]))
    with pytest.raises(tvm.tir.ScheduleError, match="argument of the function"):
        sch.compute_inline(sch.get_block("C"))  # C is the output
    sch.compute_inline(sch.get_block("B"))
    text = str(sch.mod)
    assert 'T.block("B")' not in text and "B = T.alloc_buffer" not in text
    lib = tvm.compile(sch.mod)
    a = np.random.rand(n, n).astype("float32")
    c = np.zeros((n, n), "float32")
    lib["main"](a, c)
    np.testing.assert_allclose(c, a * 2 + 1, rtol=1e-6)


def test_reverse_compute_inline_of_a_relu_epilogue():
    A = te.placeholder((64, 32), name="A")
    B = te.placeholder((32, 48), name="B")
    k = te.reduce_axis((0, 32), name="k")
    C = te.compute((64, 48), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    D = te.compute((64, 48), lambda i, j: C[i, j] * 2.0, name="D")
    E = te.compute((64, 48), lambda i, j: tir.max(D[i, j], tir.const(0, "float32")), name="E")
    sch = tvm.tir.Schedule(te.create_prim_func([A, B, E]))
    sch.reverse_compute_inline(sch.get_block("E"))   # E into D
    assert 'T.block("E")' not in str(sch.mod)
    with pytest.raises(tvm.tir.ScheduleError, match="reduction"):
        sch.reverse_compute_inline(sch.get_block("D"))  # its producer C is a reduction
    lib = tvm.compile(sch.mod)
    a = np.random.randn(64, 32).astype("float32")
    b = np.random.randn(32, 48).astype("float32")
    e = np.zeros((64, 48), "float32")
    lib["main"](a, b, e)
    np.testing.assert_allclose(e, np.maximum((a @ b) * 2, 0), rtol=1e-4, atol=1e-5)


def test_rfactor_of_a_row_sum():
    n, m = 16, 1024
    A = te.placeholder((n, m), name="A")
    k = te.reduce_axis((0, m), name="k")
    B = te.compute((n,), lambda i: te.sum(A[i, k], axis=k), name="B")
    sch = tvm.tir.Schedule(te.create_prim_func([A, B]))
    _, kk = sch.get_loops(sch.get_block("B"))
    ko, ki = sch.split(kk, factors=[None, 16])
    rf = sch.rfactor(ki, factor_axis=0)
    i, ko_, ki_ = sch.get_loops(rf)
    sch.reorder(i, ki_, ko_)     # 16 independent partial sums per row...
    sch.decompose_reduction(rf, ko_)
    sch.vectorize(ki_)           # ...as the lanes of one vector
    lib = tvm.compile(sch.mod)
    a = np.random.rand(n, m).astype("float32")
    b = np.zeros(n, "float32")
    lib["main"](a, b)
    np.testing.assert_allclose(b, a.sum(axis=1), rtol=1e-4)
    assert "B_rf" in str(sch.mod)


def test_transform_layout_prepacks_a_weight():
    # B (k, m) packed into 16-column panels Bp[j // 16, k, j % 16]: the caller passes the
    # packed weight (the signature changes, as in TVM).
    func, shape = _matmul(64, 64, 32)
    sch = tvm.tir.Schedule(func)
    block_c = sch.get_block("C")
    sch.transform_layout(block_c, ("read", 1), lambda kk, j: (j // 16, kk, j % 16))
    assert "B: T.Buffer((4, 32, 16)" in str(sch.mod)
    i, j, k = sch.get_loops(block_c)
    jo, ji = sch.split(j, factors=[None, 16])
    sch.reorder(i, jo, k, ji)
    sch.vectorize(ji)

    def pack(b):
        return np.ascontiguousarray(b.reshape(32, 4, 16).transpose(1, 0, 2))
    _run(sch.mod, shape, b_layout=pack)


def test_transform_layout_in_the_buffers_index_type():
    """An int64-shaped buffer's index map computes in int64 (as TVM's IndexMap): no casts in
    the accesses, so a split column's `(jo * 16 + ji) // 16` simplifies and the vectorized
    access stays one contiguous vector (reversed vector order, lanes in order)."""
    n = tir.const(256, "int64")
    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda i: A[i] * 2.0, name="B")
    sch = tvm.tir.Schedule(te.create_prim_func([A, B]))
    block = sch.get_block("B")
    # TVM's keyword, as its users pass it for maps they know are one to one
    sch.transform_layout(block, ("write", 0), lambda j: ((15 - j // 16) * 16 + j % 16,),
                         assume_injective_transform=True)
    (j,) = sch.get_loops(block)
    _, ji = sch.split(j, factors=[None, 16])
    sch.vectorize(ji)
    assert "Cast" not in str(sch.mod)
    from tvm.tir.build import lower

    lowered = str(lower(sch.mod, tvm.target.Target("llvm"))[0])
    # each vector one contiguous 16-lane store at a descending base, no lanes gathered
    stores = re.findall(r"B\[(.*)\] = ", lowered)
    assert len(stores) == 1 and re.fullmatch(r"T\.Ramp\(\(\(\w+ \* T\.int64\(-16\)\) \+ T\.int64\(240\)\), "
                                              r"T\.int64\(1\), 16\)", stores[0]), lowered
    lib = tvm.compile(sch.mod)
    a = np.random.rand(256).astype("float32")
    b = np.zeros(256, "float32")
    lib["main"](a, b)
    want = (a * 2).reshape(16, 16)[::-1].reshape(256)  # vector v of the result at 15 - v
    np.testing.assert_allclose(b, want, rtol=1e-6)


def test_errors_are_schedule_errors():
    func, _ = _matmul()
    sch = tvm.tir.Schedule(func)
    block_c = sch.get_block("C")
    i, j, k = sch.get_loops(block_c)
    with pytest.raises(tvm.tir.ScheduleError, match="reduction var"):
        sch.parallel(k)
    with pytest.raises(tvm.tir.ScheduleError, match="at most one factor may be None"):
        sch.split(i, factors=[None, None])
    with pytest.raises(tvm.tir.ScheduleError, match="multiply to 8, less than its extent 128"):
        sch.split(i, factors=[2, 4])
    with pytest.raises(tvm.tir.ScheduleError, match="only child"):
        sch.fuse(i, k)
    with pytest.raises(tvm.tir.ScheduleError, match="is a reduction"):
        sch.compute_inline(block_c)
    with pytest.raises(tvm.tir.ScheduleError, match="no block named"):
        sch.get_block("D")
    with pytest.raises(tvm.tir.ScheduleError, match="unknown thread axis"):
        sch.bind(i, "threadIdx.w")
    # Nothing changed: the schedule still compiles to the right numbers.
    _run(sch.mod, (128, 96, 64))


def test_trace_prints_python():
    func, _ = _matmul()
    sch = tvm.tir.Schedule(func)
    b0 = sch.get_block("C")
    i, j, k = sch.get_loops(b0)
    sch.split(i, factors=[None, 4])
    text = str(sch.trace)
    assert "b0 = sch.get_block(name='C', func_name='main')" in text
    assert "sch.split(loop=l1, factors=[None, 4])" in text
    compile(text, "<trace>", "exec")  # it is Python


def test_storage_align_pads_a_cache_row():
    func, shape = _matmul(64, 64, 32)
    sch = tvm.tir.Schedule(func)
    block_c = sch.get_block("C")
    b_shared = sch.cache_read(block_c, 1, "shared")
    sch.storage_align(b_shared, 0, axis=0, factor=32, offset=8)   # rows of 64 -> stride 72
    assert "buffer_dim_align" in str(sch.mod)
    text = str(tvm.lower(sch.mod))
    assert "B_shared = T.alloc_buffer((T.int64(2296),)" in text, text  # 31 * 72 + 64
    _run(sch.mod, shape)
    with pytest.raises(tvm.tir.ScheduleError, match="other than the last"):
        sch.storage_align(b_shared, 0, axis=1, factor=32, offset=8)
    with pytest.raises(tvm.tir.ScheduleError, match="argument of the function"):
        sch.storage_align(block_c, 0, axis=0, factor=32, offset=8)
    with pytest.raises(tvm.tir.ScheduleError, match="offset < factor"):
        sch.storage_align(b_shared, 0, axis=0, factor=8, offset=8)
