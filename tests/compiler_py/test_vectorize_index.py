"""VectorizeLoop on the index arithmetic of reshapes and transposes: a contiguous axis split
by floordiv / floormod (`x // D`, `x % D`) stays a Ramp (one vector load) when no lane
crosses a multiple of D, and is computed lane by lane (a gather) when lanes do cross; the
values are numpy's either way."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import tvm
from tvm import relax, te, tir
from tvm.relax import op as R


def _merge_heads(heads, rows, dim):
    """main(x: (1, heads, rows, dim)) = reshape(permute_dims(x, [0, 2, 1, 3]), (1, rows,
    heads * dim)): an attention block's heads merged back into rows. TIR's reshape reads the
    source at (flat // dim) % heads, flat % dim of the output's flat position."""
    x = relax.Var("x", relax.TensorStructInfo([1, heads, rows, dim], "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        with bb.dataflow():
            out = bb.emit_output(R.reshape(R.permute_dims(x, [0, 2, 1, 3]), [1, rows, heads * dim]))
        bb.emit_func_output(out)
    return bb.get()


@settings(max_examples=20, deadline=None)
@given(heads=st.integers(1, 6), rows=st.integers(1, 9), dim=st.sampled_from([4, 8, 16, 24, 32, 40, 64]),
       seed=st.integers(0, 2**16))
def test_merged_heads_are_read_as_whole_vectors_when_no_lane_crosses(heads, rows, dim, seed):
    mod = _merge_heads(heads, rows, dim)
    target = tvm.target.Target("llvm")
    with target:
        scheduled = relax.get_pipeline("default")(mod)
        (kernel,) = [f for name, f in scheduled.functions.items()
                     if isinstance(f, tir.PrimFunc) and not str(name).startswith("__vm")]
        lowered = str(tvm.lower(kernel))
    if dim % target.fp32_lanes == 0:
        # every vector lies within one head's row: the load is one Ramp, no lane-wise
        # division (a gather)
        load = lowered.split(" = p0[", 1)[1].split("\n", 1)[0]
        assert load.startswith("T.Ramp(") and "T.Broadcast" not in load, lowered
    vm = relax.VirtualMachine(relax.build(mod, "llvm"), tvm.cpu())
    data = np.random.default_rng(seed).standard_normal((1, heads, rows, dim)).astype("float32")
    got = vm["main"](tvm.runtime.tensor(data)).numpy()
    np.testing.assert_array_equal(got, data.transpose(0, 2, 1, 3).reshape(1, rows, heads * dim))


def test_lanes_that_cross_a_row_are_computed_lane_by_lane():
    """16 lanes over rows of 24: the second vector of a row spans two rows of the source
    (lanes 16..23 and 0..7 of the next): the quotient differs between lanes, so it is not
    taken as one, and every value is numpy's."""
    a = te.placeholder((96,), "float32", name="a")
    out = te.compute((4, 24), lambda r, c: a[(r * 24 + c) // 24 * 24 + (r * 24 + c) % 24] * 2.0, name="out")
    sch = tir.Schedule(te.create_prim_func([a, out]))
    fused = sch.fuse(*sch.get_loops(sch.get_block("out")))
    _, inner = sch.split(fused, [None, 16])
    sch.vectorize(inner)
    func = sch.mod["main"]
    lib = tvm.tir.build(func, "llvm")
    x = np.arange(96, dtype="float32")
    got = tvm.runtime.tensor(np.zeros((4, 24), "float32"))
    lib(tvm.runtime.tensor(x), got)
    np.testing.assert_array_equal(got.numpy(), (x * 2).reshape(4, 24))
