"""Shared by the torch.export converter tests (test_torch_sort, test_torch_scatter,
test_torch_detection, test_torch_tensor_ops): a function of tensors exported (torch.export),
imported with from_exported_program (core ATen or as exported), compiled for llvm and run,
compared with eager torch."""

import numpy as np
import torch

import tvm
from tvm import relax
from tvm.relax.frontend.torch import from_exported_program


class Fn(torch.nn.Module):
    """A module whose forward is `fn` (keyword arguments written the way torch users do live
    in the lambda)."""

    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *args):
        return self.fn(*args)


def compiled(fn, args, decompose=True, dynamic_shapes=None):
    """The VM of `fn` exported on `args`."""
    dyn = None if dynamic_shapes is None else {"args": tuple(dynamic_shapes)}  # Fn's *args
    ep = torch.export.export(Fn(fn), tuple(a.clone() for a in args), dynamic_shapes=dyn)
    mod = from_exported_program(ep, run_ep_decomposition=decompose)
    return relax.VirtualMachine(tvm.compile(mod, "llvm"), tvm.cpu())


def outputs(vm, args, n):
    out = vm["main"](*[tvm.runtime.tensor(a.numpy()) for a in args])
    return [out[i].numpy() for i in range(n)]


def _flat(v):
    if isinstance(v, torch.Tensor):
        return [v.numpy()]
    return [a for x in v for a in _flat(x)]


def check(fn, args, decompose=True, rtol=1e-6, atol=1e-6, dynamic_shapes=None, run_args=None):
    """Ours vs eager on `args` (and on each tuple of `run_args`, for dynamic shapes): shapes,
    dtypes and values. Returns our outputs of the last run."""
    vm = compiled(fn, args, decompose, dynamic_shapes)
    got = None
    for a in [args] + list(run_args or []):
        with torch.no_grad():
            want = fn(*[t.clone() for t in a])
        want = _flat(want)
        got = outputs(vm, a, len(want))
        for g, w in zip(got, want):
            assert g.shape == w.shape and g.dtype == w.dtype, (g.shape, w.shape, g.dtype, w.dtype)
            np.testing.assert_allclose(g, w, rtol=rtol, atol=atol)
    return got
