"""Symbolic values that no tensor carries: a kernel (single or fused) whose extents are computed from a
variable no buffer binds takes it as a scalar argument (call_tir's tir_vars; MakePackedAPI
binds scalars before checking buffer shapes), shape expressions with comparisons and Select
are computed on the VM's shape heap, and torch.export's SymInt operands (x + x.shape[0])
and legacy empty tensors in torch.cat convert."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import torch
import torch.nn as nn
from torch.export import Dim

import tvm  # noqa: E402
from tvm import relax, tir  # noqa: E402
from tvm.relax import expr as E  # noqa: E402
from tvm.relax import op as R  # noqa: E402
from tvm.relax.block_builder import BlockBuilder  # noqa: E402
from tvm.relax.frontend.torch import from_exported_program  # noqa: E402


def _arange_module(extent_of):
    """main(x: [n]) -> arange(extent_of(n)) (int64), legalized: the arange kernel has no
    input buffer, so n reaches it only as a scalar argument."""
    n = tir.Var("n", "int64")
    x = E.Var("x", E.TensorStructInfo([n], "float32"))
    bb = BlockBuilder()
    with bb.function("main", [x]):
        with bb.dataflow():
            out = bb.emit_output(bb.emit(R.arange(0, extent_of(n), 1, "int64")))
        bb.emit_func_output(out)
    return relax.VirtualMachine(tvm.compile(bb.get(), "llvm"), tvm.cpu())


@settings(max_examples=3, deadline=None)
@given(k=st.integers(0, 5), sizes=st.lists(st.integers(0, 9), min_size=1, max_size=3))
def test_extent_from_an_unbound_variable(k, sizes):
    vm = _arange_module(lambda n: n * 2 + k)
    for s in sizes:
        got = vm["main"](tvm.runtime.tensor(np.zeros(s, "float32"))).numpy()
        np.testing.assert_array_equal(got, np.arange(2 * s + k))


def test_select_in_a_shape_expression():
    # ONNX exporters' "-1 means 1" guards, when they do not fold: Select(n == 4, 1, n + 1)
    one = tir.const(1, "int64")
    vm = _arange_module(lambda n: tir.Select(tir.EQ(n, tir.const(4, "int64")), one, n + 1))
    for s, want in ((4, 1), (2, 3), (0, 1), (7, 8)):
        got = vm["main"](tvm.runtime.tensor(np.zeros(s, "float32"))).numpy()
        np.testing.assert_array_equal(got, np.arange(want))


class _AddLength(nn.Module):
    def forward(self, x):
        return x * 2 + x.shape[1], torch.cat([torch.tensor([]), x.reshape(-1)])


def test_symint_operand_and_empty_cat_match_torch():
    m = _AddLength()
    with torch.no_grad():
        ep = torch.export.export(m, (torch.randn(2, 5),), dynamic_shapes=({1: Dim("n", min=2, max=16)},))
    vm = relax.VirtualMachine(tvm.compile(from_exported_program(ep), "llvm"), tvm.cpu())
    for n in (2, 7):
        x = torch.randn(2, n)
        got = vm["main"](tvm.runtime.tensor(x.numpy()))
        for g, w in zip(got, m(x)):
            np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-6)


@settings(max_examples=3, deadline=None)
@given(sizes=st.lists(st.integers(1, 6), min_size=1, max_size=3))
def test_fused_kernels_on_computed_extents(sizes):
    """y: [n + 3] (int) and x: [n]: (y * 2 + 1) fuses to a kernel whose buffers carry only
    n + 3 (n comes as a tir_var), and y[None, :] + x[:, None] to one whose first buffer's
    extent n + 3 is checked after the second binds n."""
    n = tir.Var("n", "int64")
    x = E.Var("x", E.TensorStructInfo([n], "float32"))
    y = E.Var("y", E.TensorStructInfo([n + 3], "int64"))
    bb = BlockBuilder()
    with bb.function("main", [x, y]):
        with bb.dataflow():
            a = bb.emit(R.add(R.multiply(y, E.const(np.array(2, "int64"))), E.const(np.array(1, "int64"))))
            b = bb.emit(R.add(R.expand_dims(R.astype(y, "float32"), [0]), R.expand_dims(x, [1])))
            out = bb.emit_output(E.Tuple([a, b]))
        bb.emit_func_output(out)
    vm = relax.VirtualMachine(tvm.compile(bb.get(), "llvm"), tvm.cpu())
    for s in sizes:
        xv = np.arange(s, dtype="float32")
        yv = np.arange(s + 3, dtype="int64") * 5
        got_a, got_b = vm["main"](tvm.runtime.tensor(xv), tvm.runtime.tensor(yv))
        np.testing.assert_array_equal(got_a.numpy(), yv * 2 + 1)
        np.testing.assert_array_equal(got_b.numpy(), yv[None, :].astype("float32") + xv[:, None])
