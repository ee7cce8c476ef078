"""DefaultSchedule: a schedule for every PrimFunc that has none, with no tuning.

A kernel whose stages are all row-wise (reductions over the last axis feeding a last
spatial stage over the same rows: softmax, layer norm) runs as one parallel loop over the
rows with every stage computed at it (_row_fusion_rule). Otherwise, rules per block, first
that applies:
  - a reduction over the contiguous last axis of its input (softmax, layer norm, ReduceSum
    over the last axis): vector-width partial results (rfactor) read whole vectors of a row,
    a short step combines them (_row_reduction_rule);
  - a product of one or two rows with a right operand read row by row (B[k, j], a run-time
    matrix): the reduction outside the columns, an accumulator chunk of the output row in
    cache per task (_row_vector_rule);
  - a reduction nest [spatial..., reduction...] with two or more spatial loops (matmul,
    conv, pooling): a register tile (cache_write "local", its shape by tile_shape: 8 x 32
    with AVX-512) over the last two spatial loops, the reduction loops outside the tile, columns vectorized, rows unrolled, the outer
    loops fused and parallel (the schedule of benchmarks/matmul_bench.py, ~0.9x OpenBLAS on
    square matrices), with an elementwise epilogue folded into the tile's write-back;
  - otherwise (_loop_rule) the innermost loop is vectorized when it is spatial and a
    multiple of the vector width, and the outer spatial loops are fused into one parallel
    loop of enough iterations (a batch-1 nest's N = 1 alone would leave it serial); a block
    whose outer loop is a reduction keeps it serial, and so does a nest of fewer than
    _MIN_PARALLEL_WORK iterations in all (the tile rule too).
A rule that does not apply to a block's shape (ScheduleError) falls back to the next one.
Functions with the attr "tir.is_scheduled" are left alone; the result carries it. A kernel
that keeps a block of more than a few microseconds of work (_MIN_PARALLEL_WORK iterations)
with neither a parallel nor a vectorized loop is named in a warning (logger
"tvm.relax.transform"): it runs at scalar speed on one core.
Structurally equal PrimFuncs are merged first (dedup_prim_funcs.py): a network's repeated
layers are scheduled and compiled once.
"""

import logging

from ... import ir, tir
from ...ir import IRModule, _api
from ...target import Target


def tile_shape(lanes, ext_i, ext_j, product=True):
    """(rows, cols) of the register tile for a nest whose last two spatial loops have static
    extents ext_i, ext_j (None when symbolic), on a CPU with `lanes` float32 lanes.

    Columns: 16 (one AVX-512 vector, two AVX ones, four NEON ones); 32 with AVX-512 when the
    static column count divides 32 (two vectors a row); 8 for 8 or 24 columns on AVX2
    (narrow_cols). Rows: as many as keep the
    accumulators within half to three quarters of the vector registers (8 rows with AVX-512,
    6 with AVX2, 4 with NEON), preferring a count that divides the row extent so no tile is
    predicated.
    A symbolic row extent (a dynamic batch) always leaves a predicated tail; wider tiles
    amortize that test: 8 x 32 with AVX-512, as for static rows. Measured on the 784x512
    matmul of the MLP (benchmarks: ~100 GFLOP/s static 8x16 vs 90 for 4x16; symbolic 73 for
    6x32 vs 54 on an AVX2 host); on Zen 5 the MLP at batch 64 took 0.375 ms with 8 x 32
    against 0.402 with 6 x 32 (one thread; 0.208 / 0.219 at two: medians of 15 alternations
    in one process, identical outputs)."""
    # AVX-512: two vectors a row when the columns divide 32 (16 accumulators, 8 x 32): a
    # one-vector row (8 x 16) reads a broadcast per FMA, and Zen 4/5 and Intel's AVX-512
    # cores load fewer vectors a cycle than they multiply.
    cols = 32 if lanes >= 16 and ext_j is not None and ext_j % 32 == 0 else 16
    budget = _accumulators(lanes)
    rows = _tile_rows(lanes, cols)
    if ext_i is not None and 1 <= ext_i <= 2 and ext_j is not None:
        # One or two rows (a matrix-vector product, batch-1 layers): the accumulators go to
        # columns instead, so each reduction step reads several consecutive cache lines of
        # a weight row (1x1024x1024 with a run-time B: 9 GFLOP/s at 16 columns, 16 at 64).
        for wide in range(min(256, budget // ext_i * lanes) // 16 * 16, 16, -16):
            if ext_j % wide == 0:
                return ext_i, wide
    if ext_i is None:
        if lanes >= 16 and (ext_j is None or ext_j % 32 == 0):
            return 8, 32
        return rows, cols
    narrow = narrow_cols(lanes, ext_j)
    if not product and lanes == 16 and ext_j is not None and ext_j % 16 == 8:
        # Not a product (pooling over 8k channels, k odd: ShuffleNet's 136 and 272): its sum
        # or max per element is one vector op, so half-width vectors cost little, while
        # 16-column panels guard the last one's lanes, and LLVM versions guarded loops
        # (three of ShuffleNet's pools were 17% of its LLVM time).
        narrow = 8
    if narrow:
        for r in (budget, 8, 6, 4, 2):
            if ext_i % r == 0:
                return r, narrow
        return min(rows, 4), narrow
    for r in (rows, 4, 2):
        if r <= rows and ext_i % r == 0:
            return r, cols
    return min(rows, 4), cols


def narrow_cols(lanes, ext_j):
    """8 when a product's static column count is 8 or 24 on an AVX2 or AVX-512 CPU
    (ShuffleNet's 24-channel stem and pooling; on AVX-512 its pooling only, a 16 x 8 tile of
    half-width vectors: max pool 76 -> 17 us and a third of ShuffleNet's LLVM time less, the
    24 channels were padded to 32 and every lane guarded), else None: a 16-column tile
    would compute a third of padding and guard its last panel; a 12 x 8 tile keeps the
    twelve accumulators and divides the columns (ShuffleNet 6.1 -> 5.8 ms at one thread). At 40 columns (34 channels
    a group, padded) it measured no better than 48: its twelve broadcasts per step load
    more than the 6 x 16 tile's six."""
    if lanes in (8, 16) and ext_j is not None and ext_j % 16 == 8 and ext_j <= 24:
        return 8
    return None


def _accumulators(lanes):
    return 12 if lanes == 8 else 16  # AVX2 has 16 vector registers, the others 32


def _tile_rows(lanes, cols=16):
    """The register tile's rows for `cols` columns when nothing else constrains them."""
    return min(8, _accumulators(lanes) // max(1, cols // lanes))


def row_padding(lanes, ext_i):
    """The multiple to round a product's static row count up to (the extra rows re-read the
    last one; a guarded copy takes the real ones) when the best register tile does not
    divide it and the padding wastes at most an eighth of the rows (1024 rows: 1026 for a
    6-row AVX2 tile, ~11% faster than the 4-row tile that divides 1024), else None."""
    rows = _tile_rows(lanes)
    if ext_i is None or ext_i <= 2 or ext_i % rows == 0:
        return None
    if (-ext_i % rows) * 8 > ext_i:
        return None
    return rows


def _tile_rule(sch, block, rows=None, cols=None, rows_at_run_time=None):
    """A register tile for a reduction nest [spatial..., reduction...] with at least two
    spatial loops (matmul [batch..., i, j, k]; conv [n, c, h, w, rc, ry, rx]; pooling): the
    last two spatial loops are split into rows x cols, the tile accumulates in a "local"
    cache written back after the reduction, the reduction loops run outside the tile, columns
    are vectorized, rows unrolled, the outer spatial loops fused and parallel.

    rows_at_run_time (a RowsAtRunTime, or None): for a product whose symbolic row count was
    rounded up to the tile (matmul_packed's pad_rows_to) the rule records the real count
    there, and when the record says `few` it makes the variant for one or two rows instead:
    a serial loop over rows outermost (its loop var recorded), one row by the widest column
    strip, the strips parallel."""
    loops = sch.get_loops(block)
    kinds = _loop_kinds(sch, block, loops)
    nsp = kinds.index(True) if True in kinds else len(kinds)
    if nsp < 2 or nsp == len(loops) or not all(kinds[nsp:]):
        raise tir.ScheduleError("not a [spatial..., reduction...] nest")
    *outer, i, j = loops[:nsp]
    red = loops[nsp:]
    # Rows shorter than a tile (a late conv stage's 2x2 outputs) would leave most of it
    # predicated off: fuse the row loop with the spatial loop above it (a conv's H with its
    # W) so a tile covers whole rows of both. Only when the tile then covers a rectangle (the
    # row extent divides 4, the fused extent is a multiple of 4): the cache's write-back is
    # placed by region, and a tile straddling rows would write back points it did not compute.
    ext_i = _static_extent(sch, i)
    ext_o = _static_extent(sch, outer[-1]) if outer else None
    if ext_i and ext_o and ext_i < 4 and 4 % ext_i == 0 and (ext_o * ext_i) % 4 == 0:
        i = sch.fuse(outer.pop(), i)
        ext_i *= ext_o
    few = False
    if ext_i is None and rows_at_run_time is not None and not outer:
        rows_at_run_time.extent = _padded_rows(sch, block)
        few = rows_at_run_time.few and rows_at_run_time.extent is not None
    if rows is None or cols is None:
        target = Target.current() or Target("llvm")
        rows, cols = tile_shape(target.fp32_lanes, 1 if few else ext_i, _static_extent(sch, j),
                                product=_is_product(sch.get(block)))
        rows = 1 if few else rows
    if ext_i and ext_i < rows:
        rows = ext_i  # a short row loop that could not be fused: a tile of exactly its rows
    ext_j = _static_extent(sch, j)
    acc = sch.cache_write(block, 0, "local")
    io, ii = sch.split(i, [None, rows])
    jo, ji = sch.split(j, [None, cols])
    # Which tile loop runs outside: rows (the default) or columns when there are more
    # columns than rows (a 1x1 convolution late in a CNN, 13x13 pixels x 1000 channels; a
    # matrix-vector product): each column panel of the weights is then read once while the
    # smaller row operand stays in cache, and the parallel loop has the longer extent.
    pack = _pack_stage(sch, block)
    cols_outer = bool(ext_i and ext_j and ext_j > ext_i) or pack is not None
    first, second = (jo, io) if cols_outer else (io, jo)
    sch.reorder(*outer, first, second, ii, ji)
    sch.reverse_compute_at(acc, second)
    if pack is not None:
        _pack_at_use(sch, pack, first)
    init = sch.decompose_reduction(block, ii)
    sch.reorder(*red, ii, ji)
    # A symbolic row count (a dynamic batch) may be a single row tile at run time (batch 1):
    # the tasks are then (row tile, column panel) pairs, so a second thread has work.
    par_loops = [*outer, first] + ([second] if ext_i is None and not outer else [])
    if few:
        par_loops = [second]  # the strips; the row loop stays serial, outermost
        rows_at_run_time.row_loop = sch.get(first).loop_var
    par = sch.fuse(*par_loops) if len(par_loops) > 1 else par_loops[0]
    _parallel_if_worth(sch, par, block)
    sch.unroll(ii)
    if few and cols > 16:
        # the weights were packed in 16-column panels for the tiled variant: the strip reads
        # several panels, 16 contiguous columns of each per step (one 64-wide vector would
        # gather across panels)
        panels, ji = sch.split(ji, [None, 16])
        sch.unroll(panels)
        init_loops = sch.get_loops(init)
        _, init_ji = sch.split(init_loops[-1], [None, 16])
        sch.vectorize(init_ji)
    else:
        init_loops = sch.get_loops(init)
        sch.unroll(init_loops[-2])
        sch.vectorize(init_loops[-1])
    sch.vectorize(ji)
    return acc


# Most columns of a row-vector product's accumulator per task (32 KB of float32: L1 or L2).
# A task takes whole rows of B up to this: measured on 1x1024x1024 at one thread, chunks of
# 256 / 512 / 1024 columns took 117 / 94 / 74 us (numpy 78): a pass over part of a row
# leaves the rest of its 4 KB page for a later pass, and the prefetcher starts over. With
# B in DRAM the partial rows cost even more: at 2048 columns (Zen 4, best of 300, ours
# 1t / 2t) 1x4096x4096 took 4551 / 1979 us, at 8192 (whole rows, split over B's rows
# instead) 2231 / 1293 (numpy 1829-1929 / 881-1335); 1x1024x8192 1854 / 359 vs 656 / 364;
# 1x1024x4096 329 / 153 vs 240 / 124; 1x768x3072 (the register tile before, 3072 not being
# whole 2048-chunks) 125 / 69 vs 129 / 72.
_ROW_VECTOR_CHUNK = 8192


def _row_vector_rule(sch, block):
    """A product of one or two rows with a right operand read as it is, B[k, j] with the
    output column j its contiguous last index (a matrix-vector product whose matrix is a
    run-time input, so not packed): the register tile would walk B down a column strip, a
    row of B (another page) per reduction step, which no prefetcher follows. Here the
    reduction runs outside the columns instead: each task keeps a chunk of the output row
    as an accumulator in cache and streams B's rows through it one row per pass, so B is
    read in address order, one stream (the hardware prefetcher's case). This form keeps one
    row a pass: four rows (each accumulator vector loaded and stored once per four FMAs)
    took 1.17x numpy's time at one thread on Zen 4 on 1x1024x1024, 1.03x one row (best of
    200, B in L3; 1.24x vs 0.91x with B evicted between calls), measured before the code
    generator's alias scopes let LLVM drop the stores between the FMAs. The single-chunk form
    (_row_vector_k_split) takes four rows a pass (see there); whether this one now gains as
    well is unmeasured. ScheduleError when the block is not such a product."""
    loops = sch.get_loops(block)
    kinds = _loop_kinds(sch, block, loops)
    if kinds.count(True) != 1 or not kinds[-1] or len(loops) < 3:
        raise tir.ScheduleError("not a [spatial..., i, j, k] product")
    *outer, i, j, k = loops
    if any(_static_extent(sch, l) != 1 for l in outer):
        raise tir.ScheduleError("a batch of products")
    ext_i, ext_j, ext_k = (_static_extent(sch, l) for l in (i, j, k))
    lanes = (Target.current() or Target("llvm")).fp32_lanes
    chunk = min(ext_j or 0, _ROW_VECTOR_CHUNK)
    if not ext_i or ext_i > 2 or not chunk or ext_j % chunk or chunk % lanes or not ext_k:
        raise tir.ScheduleError("not a one- or two-row product of whole chunks")
    stmt = sch.get(block)
    jv, kv = stmt.iter_vars[-2].var, stmt.iter_vars[-1].var
    streams = False
    for r in stmt.reads:
        idx = [rng.min for rng in r.region]
        if len(idx) >= 2 and idx[-1].same_as(jv) and _uses_var(idx[-2], kv):
            streams = True  # B[k, j]: rows of B are contiguous along the output's columns
    if not streams:
        raise tir.ScheduleError("the right operand is not read row by row")
    work = ext_i * ext_j * ext_k
    if ext_j // chunk < 2 and work >= _ROW_VECTOR_SPLIT_MIN_WORK and ext_k % _ROW_VECTOR_K_PARTS == 0:
        return _row_vector_k_split(sch, block, k, lanes)
    acc = sch.cache_write(block, 0, "local")
    jo, ji = sch.split(j, [None, chunk])
    jvo, jvi = sch.split(ji, [None, lanes])
    sch.reorder(*outer, jo, k, i, jvo, jvi)
    sch.reverse_compute_at(acc, jo)
    init = sch.decompose_reduction(block, k)
    if (ext_i * ext_j * ext_k) >= _MIN_PARALLEL_WORK and ext_j // chunk > 1:
        sch.parallel(sch.fuse(*outer, jo) if outer else jo)
    sch.vectorize(jvi)
    sch.vectorize(sch.get_loops(init)[-1])  # the jvi loop, lanes long
    wb = sch.get_loops(acc)[-1]
    sch.split(wb, [None, lanes])
    return acc


# A row-vector product whose columns make one chunk (1 x 1024 x 1024) has no column tasks to
# run in parallel: its rows of B are split into this many blocks instead, each task streaming
# whole rows of its block into a partial output row, and a short step adds the partials.
# At one thread the tasks run in turn, each still reading whole 4 KB rows (the prefetcher's
# pattern). Only from this much work (multiply-adds): below it a launch costs more.
# 1 x 1024 x 1024 with B an input, ours / numpy time (Zen 5, best of 50, three runs):
# 2 threads 1.37x before (one task), 0.84-0.97x with four parts (two parts: 0.86-1.06x);
# 1 thread 0.97-1.00x either way.
_ROW_VECTOR_K_PARTS = 4
# Rows of B a pass of the partial row (when a part's rows divide by it): each accumulator
# vector loaded and stored once per four FMAs, the four x values broadcast once a pass. The
# four rows are a quarter of the part apart (four long runs in address order): four
# consecutive rows a pass made four streams that each ended after one 4 KB row, and the
# kernel alone took 48.3 us instead of 45.7 (1x1024x1024, one thread, Zen 4, B in L3; a C
# loop reading B alone 41.6, four rows at once consecutive 43.9 and far apart 42.0).
# That needs LLVM to know the partial row (a workspace) from B and x, which the code
# generator's alias scopes for fresh memory say (codegen_llvm.h, ScopeFreshBuffers); without
# them it stored the vector after every FMA. 1x1024x1024 at one thread, the kernel alone, B in
# L3 between other products (Zen 4): 57 us one row a pass, 52 four; a C loop doing either,
# 56.4 and 51.5.
_ROW_VECTOR_ROWS_A_PASS = 4
_ROW_VECTOR_SPLIT_MIN_WORK = 1 << 18


def _row_vector_k_split(sch, block, k, lanes):
    """_row_vector_rule's form for a single column chunk: rfactor over blocks of B's rows
    (parallel), each partial row accumulated in place, _ROW_VECTOR_ROWS_A_PASS rows of B a
    pass (unrolled, a quarter of the part apart); the sum of the partials is a cache-written
    reduction whose write-back, per vector, takes the epilogue."""
    kp, kr = sch.split(k, [_ROW_VECTOR_K_PARTS, None])
    rf = sch.rfactor(kp, 0)
    rf_loops = sch.get_loops(rf)
    *rf_outer, ri, rj, rkp, rkr = rf_loops
    rjo, rji = sch.split(rj, [None, lanes])
    if _static_extent(sch, rkr) % _ROW_VECTOR_ROWS_A_PASS == 0:
        # The rows of a pass are a quarter of the part apart (k = part + q * quarter + r, q
        # the unrolled loop), not consecutive: each of the four streams then reads on through
        # a quarter of the part's rows in address order, a run the prefetcher follows, where
        # consecutive rows made four streams that each ended after one 4 KB row.
        rkrq, rkro = sch.split(rkr, [_ROW_VECTOR_ROWS_A_PASS, None])
        sch.reorder(*rf_outer, rkp, rkro, ri, rjo, rkrq, rji)
        sch.unroll(rkrq)
    else:
        rkro = rkr
        sch.reorder(*rf_outer, rkp, rkr, ri, rjo, rji)
    init = sch.decompose_reduction(rf, rkro)
    sch.parallel(sch.fuse(*rf_outer, rkp) if rf_outer else rkp)
    sch.vectorize(rji)
    init_inner = sch.get_loops(init)[-1]
    _, init_vec = sch.split(init_inner, [None, lanes])
    sch.vectorize(init_vec)
    # the sum of the partials: out[i, j] = sum over parts of rf[part, i, j]
    acc = sch.cache_write(block, 0, "local")
    *f_outer, fi, fj, fkp = sch.get_loops(block)
    fjo, fji = sch.split(fj, [None, lanes])
    sch.reorder(*f_outer, fi, fjo, fkp, fji)
    # The write-back (and the epilogue it takes) runs per vector of the sum, right after it:
    # the sum is a vector in a register, not a row in a workspace read back by a loop of its own.
    sch.reverse_compute_at(acc, fjo)
    finit = sch.decompose_reduction(block, fkp)
    sch.vectorize(fji)
    sch.vectorize(sch.get_loops(finit)[-1])
    sch.vectorize(sch.get_loops(acc)[-1])
    return acc


def _pack_stage(sch, block):
    """The stage packing a run-time right operand into column panels (matmul_packed.pack_stage,
    a block named "*_pack") when it feeds `block`, else None."""
    for producer in sch.get_producers(block):
        if str(producer).endswith("_pack"):
            return producer
    return None


def _pack_at_use(sch, pack, panel_loop):
    """Packs each column panel of the right operand just before the tiles that read it
    (GotoBLAS's packing at use: the K x cols panel stays in cache for every row tile),
    instead of packing the whole operand first and reading it back from memory: the tile
    loop over column panels runs outside the one over rows. The panel's copy stores whole
    vectors."""
    try:
        sch.compute_at(pack, panel_loop)
    except tir.ScheduleError:
        return  # the pack stays a nest of its own (it was scheduled as one)
    loops = sch.get_loops(pack)
    lanes = (Target.current() or Target("llvm")).fp32_lanes
    ext = _static_extent(sch, loops[-1])
    if ext and ext % lanes == 0:
        _, vec = sch.split(loops[-1], [None, lanes])
        sch.vectorize(vec)


def _row_reduction_rule(sch, name):
    """A reduction over the contiguous last axis of what it reads (softmax's max and sum,
    layer norm's sums, a ReduceSum over the last axis): the tile rule would vectorize across
    rows, each lane gathered from another row. Here the reduction is split into vector-width
    partial results instead (rfactor): each row is read as contiguous vectors into `lanes`
    partials, and a short step combines them; both run parallel over the rows. Needs the
    reduced extent static, a multiple of the vector width and at least two vectors;
    ScheduleError otherwise (the tile rule is tried next)."""
    block = sch.get_block(name)
    loops = sch.get_loops(block)
    stmt = sch.get(block)
    if len(stmt.iter_vars) != len(loops) or len(loops) < 2:
        raise tir.ScheduleError("not a plain nest")
    kinds = [int(iv.kind) == 2 for iv in stmt.iter_vars]
    if kinds.count(True) != 1 or not kinds[-1]:
        raise tir.ScheduleError("not a reduction over the innermost loop alone")
    _check_reduces_along_rows(stmt)
    lanes = (Target.current() or Target("llvm")).fp32_lanes
    ext = _static_extent(sch, loops[-1])
    if not ext or ext % lanes or ext < 2 * lanes:
        raise tir.ScheduleError("the reduced extent is not whole vectors")
    rf = _vector_partials(sch, loops[-1], len(loops) - 1, lanes)
    _parallel_outer(sch, rf, sch.get_loops(rf)[:len(loops) - 1])
    combine = sch.get_block(name)
    _parallel_outer(sch, combine, sch.get_loops(combine)[:len(loops) - 1])


def _vector_partials(sch, k, factor_axis, lanes):
    """The reduction loop `k` (static, whole vectors) split into `lanes` partial results
    (rfactor at factor_axis), computed as vectors with their init before the loop over
    vectors; returns the partials' block. The original block then combines them."""
    _, ki = sch.split(k, [None, lanes])
    rf = sch.rfactor(ki, factor_axis)
    init = sch.decompose_reduction(rf, sch.get_loops(rf)[-2])  # at the loop over vectors
    sch.vectorize(sch.get_loops(rf)[-1])
    sch.vectorize(sch.get_loops(init)[-1])
    return rf


def _check_reduces_along_rows(stmt):
    """ScheduleError unless every read of the block that depends on its (last) reduction
    variable k has k as its last index alone (a matmul's B[k, j] does not: its reduction is
    the tile rule's), and at least one read does."""
    k = stmt.iter_vars[-1].var
    along = False
    for r in stmt.reads:
        uses = [_uses_var(rng.min, k) for rng in r.region]
        if any(uses[:-1]):
            raise tir.ScheduleError("the reduction reads across rows")
        if uses and uses[-1]:
            if not r.region[-1].min.same_as(k):
                raise tir.ScheduleError("the reduction does not run along a contiguous axis")
            along = True
    if not along:
        raise tir.ScheduleError("the reduction does not run along a contiguous axis")


def _row_fusion_rule(sch):
    """A kernel whose stages all work row by row: reductions over the last axis feeding a last
    spatial stage over the same rows (softmax: max, sum of exponentials, output; layer norm:
    sum, sum of squares, output). One parallel loop over the rows computes each row whole,
    every stage at it (compute_at): one launch of the thread pool instead of one per stage
    (five for a vectorized softmax), the row read while it is in L1, and the per-row results
    scalars of the loop body. Reductions over whole vectors keep their vector-width partial
    results (rfactor, as _row_reduction_rule). LLVM also gets one parallel body to compile
    instead of three to five (the encoder's softmax was its largest kernel to compile).
    ScheduleError when a stage is anything else (the per-block rules run then)."""
    blocks = sch.get_child_blocks(sch.get_block("root"))
    if len(blocks) < 2:
        raise tir.ScheduleError("a single stage")
    *producers, out = blocks
    # the rows: the reductions' spatial axes (all the same), which the last stage's first
    # loops run over; the last stage may have one loop more (the row's elements) or none
    # (a mean with keepdims: one value a row)
    n_rows = None
    for block in producers:
        stmt = sch.get(block)
        kinds = [int(iv.kind) for iv in stmt.iter_vars]
        if len(sch.get_loops(block)) != len(kinds) or kinds[-1:] != [2] or any(kinds[:-1]):
            raise tir.ScheduleError("a stage is not a reduction over the last axis alone")
        if n_rows not in (None, len(kinds) - 1):
            raise tir.ScheduleError("stages over different rows")
        _check_reduces_along_rows(stmt)
        n_rows = len(kinds) - 1
    out_loops = sch.get_loops(out)
    out_stmt = sch.get(out)
    if not n_rows or len(out_loops) not in (n_rows, n_rows + 1) \
            or len(out_stmt.iter_vars) != len(out_loops) or any(int(iv.kind) for iv in out_stmt.iter_vars):
        raise tir.ScheduleError("the last stage is not a plain spatial nest over the rows")
    row_exts = [sch.get(loop).extent for loop in out_loops[:n_rows]]
    for block in producers:
        stmt = sch.get(block)
        if not all(ir.structural_equal(sch.get(loop).extent, ext)
                   for loop, ext in zip(sch.get_loops(block), row_exts)):
            raise tir.ScheduleError("a stage runs over other rows")
        if len(stmt.writes) != 1 or not _indexed_by(stmt.writes[0], stmt.iter_vars[:-1]):
            raise tir.ScheduleError("a stage writes more than one value a row")
    # every later stage reads a stage's result at its own row (softmax over axis 0 reads
    # column j's maximum from every row i: not row-wise)
    stages = producers + [out]
    for i, block in enumerate(producers):
        buf = sch.get(block).writes[0].buffer
        for later in stages[i + 1:]:
            stmt = sch.get(later)
            for region in stmt.reads:
                if region.buffer.same_as(buf) and not _indexed_by(region, stmt.iter_vars[:n_rows]):
                    raise tir.ScheduleError("a stage reads another row's result")
    lanes = (Target.current() or Target("llvm")).fp32_lanes
    rows = sch.fuse(*out_loops[:n_rows]) if n_rows > 1 else out_loops[0]
    if len(out_loops) > n_rows:
        inner_ext = _static_extent(sch, out_loops[-1])
        width = _vector_width(lanes, inner_ext)
        if width:
            sch.vectorize(sch.split(out_loops[-1], [None, width])[1])
    for block in reversed(producers):
        sch.compute_at(block, rows)
        inner = sch.get_loops(block)[1:]
        if not inner:
            continue  # a reduction over one element: compute_at left no loop
        if len(inner) != 1:
            raise tir.ScheduleError("a stage is computed over more than its row")
        (k,) = inner
        ext = _static_extent(sch, k)
        if ext and ext % lanes == 0 and ext >= 2 * lanes:
            _vector_partials(sch, k, n_rows, lanes)
        else:
            sch.decompose_reduction(block, k)  # the init before the loop (see _hoist_init)
    _parallel_if_worth(sch, rows, out)


def _indexed_by(region, iter_vars):
    """True when a buffer region is one element at exactly these iter vars, in order."""
    return len(region.region) == len(iter_vars) and all(
        rng.min.same_as(iv.var) and isinstance(rng.extent, tir.IntImm) and int(rng.extent) == 1
        for rng, iv in zip(region.region, iter_vars))


def _is_product(block):
    """Whether `block` (a reduction) accumulates products of two values (a matmul, a conv),
    not single values (pooling, sums)."""
    from ...tir import expr as _te

    def walk(e):
        if isinstance(e, _te.Mul):
            return not isinstance(e.a, (_te.IntImm, _te.FloatImm)) and not isinstance(e.b, (_te.IntImm, _te.FloatImm))
        if isinstance(e, (_te.Add, _te.Sub, _te.Min, _te.Max)):
            return walk(e.a) or walk(e.b)
        if isinstance(e, _te.Cast):
            return walk(e.value)
        return False

    body = block.body
    while isinstance(body, tir.IfThenElse):
        body = body.then_case
    return not isinstance(body, tir.BufferStore) or walk(body.value)


def _uses_var(expr, var):
    """Whether the index expression `expr` depends on `var` (True for node kinds not known
    here: the caller then leaves the block to another rule)."""
    from ...tir import expr as _te

    if isinstance(expr, tir.Var):
        return expr.same_as(var)
    if isinstance(expr, (_te.IntImm, _te.FloatImm)):
        return False
    if isinstance(expr, (_te.Add, _te.Sub, _te.Mul, _te.FloorDiv, _te.FloorMod, _te.Div, _te.Mod,
                         _te.Min, _te.Max)):
        return _uses_var(expr.a, var) or _uses_var(expr.b, var)
    if isinstance(expr, _te.Cast):
        return _uses_var(expr.value, var)
    return True


def _vectorize_write_back(sch, acc):
    """The tile's write-back (with its epilogue) stores whole vectors: its inner loop runs
    over the tile's columns, a multiple of the vector width."""
    loops = sch.get_loops(acc)
    ext = _static_extent(sch, loops[-1]) if loops else None
    target = Target.current() or Target("llvm")
    if ext and ext % target.fp32_lanes == 0:
        try:
            sch.vectorize(loops[-1])
        except tir.ScheduleError:
            pass  # a write-back whose inner loop is not a plain spatial loop stays scalar


def _inline_elementwise(sch):
    """Stages after the kernel's first reduction (a fused kernel's bias add / normalization /
    activation chain) are inlined into their consumers, so the epilogue becomes one expression.
    Stages before it (padding, layout transposes feeding a conv or matmul) stay loop nests of
    their own: inlined, they would be recomputed in the reduction's innermost loop. A kernel
    with no reduction at all (a fused elementwise chain: GELU's divide, erf, add, multiply)
    becomes one nest: each stage otherwise wrote a whole intermediate tensor and took its own
    parallel launch."""
    names = [str(b) for b in sch.get_child_blocks(sch.get_block("root"))]
    # No reduction anywhere: every stage but the last is inlined.
    seen_reduction = not any(_is_reduction_block(sch, name) for name in names)
    for name in names[:-1]:
        if not seen_reduction:
            seen_reduction = _is_reduction_block(sch, name)
            continue
        try:
            sch.compute_inline(sch.get_block(name))
        except tir.ScheduleError:
            pass  # a reduction, or a stage with several consumers that cannot take it


def _is_reduction_block(sch, name):
    return any(int(iv.kind) == 2 for iv in sch.get(sch.get_block(name)).iter_vars)


def _static_extent(sch, loop):
    ext = sch.get(loop).extent
    return int(ext.value) if isinstance(ext, tir.IntImm) else None


def _loop_kinds(sch, block, loops):
    """True for each loop of `block` that binds a reduction variable. A block as TE or
    FuseTIR made it has one loop per iter var, in order: the kinds are the iter vars'."""
    ivs = sch.get(block).iter_vars
    if len(ivs) == len(loops):
        return [int(iv.kind) == 2 for iv in ivs]
    return [_is_reduction_loop(sch, l) for l in loops]


def _is_reduction_loop(sch, loop):
    """True when `loop` binds a reduction variable (parallel refuses those); nothing changes."""
    trial = tir.Schedule(sch.mod)
    try:
        trial.parallel(loop)
        return False
    except tir.ScheduleError:
        return True


class RowsAtRunTime:
    """What the tile rule saw of a product whose symbolic row count (a dynamic batch) was
    padded to the tile: `extent`, the real count, and in the one-row variant `row_loop`, the
    var of its serial loop over the padded rows; `few`, asked of it: make that variant."""

    def __init__(self, few):
        self.few = few
        self.extent = None
        self.row_loop = None


def _padded_rows(sch, block):
    """M when `block` is matmul_packed's product over rows padded past M (its left operand
    read at row min(i, M - 1)), else None."""
    stmt = sch.get(block)
    spatial = [iv.var for iv in stmt.iter_vars if int(iv.kind) == tir.IterVar.DataPar]
    if len(spatial) < 2:
        return None
    row = spatial[-2]
    for r in stmt.reads:
        idx = r.region[-2].min if len(r.region) >= 2 else None
        if isinstance(idx, tir.Min) and idx.a.same_as(row) and isinstance(idx.b, tir.Sub) \
                and isinstance(idx.b.b, tir.IntImm) and int(idx.b.b.value) == 1:
            return idx.b.a
    return None


# At most this many rows at run time take the one-row variant of a kernel whose row count is
# symbolic: the 6 x 16 AVX2 tile computes all six rows (the missing ones re-read the last),
# so a batch-1 784x512 layer did six times its work: 49 us, vs 28 us streaming its weights.
_FEW_ROWS = 2


def _schedule_kernel(func, name_hint=None):
    """_schedule, and for a kernel with a symbolic row count two schedules in one function:
    the register tile, and for one or two rows at run time (batch 1) a one-row tile over wide
    column strips, chosen by an `if` on the row count before any loop."""
    probe = RowsAtRunTime(few=False)
    tiled = _schedule(func, name_hint, probe)
    if probe.extent is None:
        return tiled
    record = RowsAtRunTime(few=True)
    few = _schedule(func, None, record)
    top = few.body.block.body
    if record.row_loop is None or not isinstance(top, tir.For) or not top.loop_var.same_as(record.row_loop) \
            or not (len(few.params) == len(tiled.params) and all(a.same_as(b) for a, b in zip(few.params, tiled.params))):
        return tiled
    # The padded rows past the real ones re-read the last row and their results are dropped
    # (the write-back is guarded): the variant's loop over rows stops at the real count.
    rows = _api("tir.For")(top.loop_var, top.min, probe.extent, int(top.kind), top.body, "", top.annotations)
    cond = tir.LE(probe.extent, tir.const(_FEW_ROWS, probe.extent.dtype))
    return _branch(cond, few, tiled, then_body=rows)


def _branch(cond, then_func, else_func, then_body=None):
    """One function of two schedules of the same PrimFunc: `if cond` runs the first's body
    (or then_body in its place), else the second's; their root blocks' buffers are allocated
    side by side (each is used on one side only; the lowering places it there)."""
    then_root, else_root = then_func.body.block, else_func.body.block
    body = _api("tir.IfThenElse")(cond, then_body or then_root.body, else_root.body)
    allocs = list(then_root.alloc_buffers) + list(else_root.alloc_buffers)
    root = _api("tir.Block")([], [], [], "root", body, None, allocs, {})
    realize = _api("tir.BlockRealize")([], tir.const(True, "bool"), root)
    return tir.PrimFunc(list(else_func.params), realize, dict(else_func.buffer_map), dict(else_func.attrs))


def _schedule(func, name_hint=None, rows_at_run_time=None):
    """`func` with the rules above applied; a warning names it when a block of it is left a
    serial scalar nest of more than a few microseconds of work. rows_at_run_time: see
    _tile_rule."""
    sch = tir.Schedule(func)
    if not _has_root(sch):
        return func
    if len(sch.get_child_blocks(sch.get_block("root"))) > 1:
        _inline_elementwise(sch)
        trial = tir.Schedule(sch.mod)
        try:
            _row_fusion_rule(trial)
            return _scheduled_func(trial)
        except tir.ScheduleError:
            pass
    for block in sch.get_child_blocks(sch.get_block("root")):
        name = str(block)  # a BlockRV is the block's name
        if name not in [str(b) for b in sch.get_child_blocks(sch.get_block("root"))]:
            continue  # inlined above
        trial = tir.Schedule(sch.mod)
        try:
            _row_reduction_rule(trial, name)
            sch = trial
            continue
        except tir.ScheduleError:
            pass
        trial = tir.Schedule(sch.mod)
        try:
            try:
                acc = _row_vector_rule(trial, trial.get_block(name))
            except tir.ScheduleError:
                trial = tir.Schedule(sch.mod)
                acc = _tile_rule(trial, trial.get_block(name), rows_at_run_time=rows_at_run_time)
            sch = trial
            # An elementwise epilogue (bias, activation) joins the tile's write-back.
            for consumer in sch.get_consumers(acc):
                try:
                    sch.reverse_compute_inline(consumer)
                except tir.ScheduleError:
                    pass
            _vectorize_write_back(sch, acc)
            continue
        except tir.ScheduleError:
            pass
        loops = sch.get_loops(sch.get_block(name))
        if not loops:
            continue
        _hoist_init(sch, name, loops)
        trial = tir.Schedule(sch.mod)
        try:
            _loop_rule(trial, name)
            sch = trial
            continue
        except tir.ScheduleError:
            pass
        try:
            sch.parallel(loops[0])
        except tir.ScheduleError:
            continue  # the outer loop is a reduction (or binds one): leave it serial
    serial = _serial_scalar_blocks(sch)
    if serial and name_hint:
        _LOG.warning("DefaultSchedule: kernel %s stays a serial scalar nest (block %s): no rule "
                     "vectorized or parallelized it", name_hint, ", ".join(serial))
    return _scheduled_func(sch)


def _scheduled_func(sch):
    return sch.mod["main"] if "main" in sch.mod else list(sch.mod.functions.values())[0]


def _serial_scalar_blocks(sch):
    """Blocks of the scheduled function with neither a parallel nor a vectorized loop around
    them although their nest has _MIN_PARALLEL_WORK iterations or more (or a symbolic extent):
    the kernels a user would want to know run at scalar speed on one core."""
    out = []
    for block in _all_blocks(sch):
        loops = sch.get_loops(block)
        if not loops:
            continue
        kinds = {int(sch.get(loop).kind) for loop in loops}
        if kinds & {tir.ForKind.PARALLEL, tir.ForKind.VECTORIZED, tir.ForKind.THREAD_BINDING}:
            continue
        if _total_iterations(sch, loops) >= _MIN_PARALLEL_WORK:
            out.append(str(block))
    return out


def _all_blocks(sch):
    blocks, todo = [], list(sch.get_child_blocks(sch.get_block("root")))
    while todo:
        b = todo.pop(0)
        blocks.append(b)
        todo.extend(sch.get_child_blocks(b))
    return blocks


_LOG = logging.getLogger("tvm.relax.transform")

# Parallel loops are fused until they have at least this many iterations (several per
# thread, so threads finish together), or until the first reduction loop.
_MIN_PARALLEL_ITERS = 64


def _loop_rule(sch, name):
    """Any other nest (copies, layout changes, elementwise chains, pooling or reductions the
    tile rule refused): the innermost loop vectorized when it is spatial, static and a
    multiple of the vector width or of half of it (split into vectors), and the outer spatial loops fused
    until the parallel loop has _MIN_PARALLEL_ITERS iterations. A batch-1 nest whose outer
    loop is N = 1 was otherwise serial. ScheduleError when the outer loop is a reduction."""
    block = sch.get_block(name)
    loops = sch.get_loops(block)
    kinds = _loop_kinds(sch, block, loops)
    nsp = kinds.index(True) if True in kinds else len(kinds)
    if nsp == 0:
        raise tir.ScheduleError("the outer loop is a reduction")
    target = Target.current() or Target("llvm")
    lanes = target.fp32_lanes
    inner_ext = _static_extent(sch, loops[-1])
    spatial = list(loops[:nsp])
    # A row of 8 or 24 floats on an AVX-512 CPU: half-width vectors (still one instruction
    # each) rather than scalar code.
    width = _vector_width(lanes, inner_ext)
    if nsp == len(loops) and width and inner_ext >= width:
        outer, vec = sch.split(spatial[-1], [None, width])
        sch.vectorize(vec)
        spatial[-1] = outer
        if inner_ext == width:
            spatial.pop()  # the outer part has one iteration
    _parallel_outer(sch, block, spatial)


def _vector_width(lanes, ext):
    """The vector width for an innermost loop of static extent `ext` (None: symbolic): the
    CPU's lanes, or half of them (a row of 8 or 24 floats on AVX-512: still one instruction
    each), dividing ext; None when neither does."""
    return next((w for w in (lanes, lanes // 2) if w >= 4 and ext and ext % w == 0), None)


def _parallel_outer(sch, block, spatial):
    """Fuses the leading loops of `spatial` (a block's outer spatial loops, in order) until
    they make _MIN_PARALLEL_ITERS iterations and runs them parallel, when the block's whole
    nest has _MIN_PARALLEL_WORK iterations."""
    par, iters = [], 1
    for loop in spatial:
        par.append(loop)
        ext = _static_extent(sch, loop)
        iters = iters * ext if ext else _MIN_PARALLEL_ITERS
        if iters >= _MIN_PARALLEL_ITERS:
            break
    if not par:
        return
    fused = sch.fuse(*par) if len(par) > 1 else par[0]
    _parallel_if_worth(sch, fused, block)


def _parallel_if_worth(sch, loop, block):
    """`loop` made parallel when `block`'s nest has _MIN_PARALLEL_WORK iterations and the loop
    more than one (a loop of one task has nothing for a second thread, and the launch still
    costs: the one-row variant of a product of one column strip, the MLP's 10 outputs)."""
    if _total_iterations(sch, sch.get_loops(block)) >= _MIN_PARALLEL_WORK and _static_extent(sch, loop) != 1:
        sch.parallel(loop)


# Below this many innermost iterations (a few microseconds) a nest stays on the calling
# thread: waking the pool would cost more than the work (symbolic extents count as large).
_MIN_PARALLEL_WORK = 8192


def _total_iterations(sch, loops):
    total = 1
    for loop in loops:
        ext = _static_extent(sch, loop)
        if ext is None:
            return _MIN_PARALLEL_WORK
        total *= ext
    return total


def _hoist_init(sch, name, loops):
    """A reduction's init moves before its first reduction loop (decompose_reduction): left in
    the block it runs at the loop's first iteration, i.e. never when the reduced extent is 0
    at run time (a symbolic axis), and the output would keep whatever the memory held."""
    block = sch.get_block(name)
    if sch.get(block).init is None:
        return
    kinds = _loop_kinds(sch, block, loops)
    if True not in kinds:
        return
    try:
        sch.decompose_reduction(block, loops[kinds.index(True)])
    except tir.ScheduleError:
        pass  # loops the primitive cannot split at: the init stays in the block


def _has_root(sch):
    try:
        sch.get_block("root")
        return True
    except Exception:  # noqa: BLE001 - a function without the root block has nothing to do
        return False


def DefaultSchedule():  # noqa: N802 (TVM's naming of passes)
    from ...ir.transform import ModulePass, PassInfo
    from .. import expr as _expr

    def run(mod, ctx):
        from .dedup_prim_funcs import deduplicate_prim_funcs
        from .generalize_prim_funcs import generalize_prim_funcs

        mod = deduplicate_prim_funcs(mod)  # repeated layers scheduled and compiled once
        out = {}
        for name, f in mod.functions.items():
            if isinstance(f, _expr.Function) or "tir.is_scheduled" in f.attrs:
                out[str(name)] = f
                continue
            out[str(name)] = _schedule_kernel(f, str(name)).with_attr("tir.is_scheduled", True)
        # kernels scheduled alike but for one dimension (an MLP's layers): compiled once
        return generalize_prim_funcs(IRModule(out))
    return ModulePass(run, PassInfo(0, "relax.DefaultSchedule"))
