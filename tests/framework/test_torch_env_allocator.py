"""Calls with torch tensors run under torch's DLPack allocator (and stream), as with
apache-tvm-ffi: a kernel built against the reference headers allocates its output through
TVMFFIEnvTensorAlloc and the caller gets a torch tensor back; the allocator in force outside
the call is unchanged afterwards, from any thread."""

import os
import threading

import numpy as np
import pytest
import torch

import tvm_ffi

MODULE = os.environ["ENV_ALLOC_MODULE"]


@pytest.fixture(scope="module")
def mod():
    return tvm_ffi.load_module(MODULE)


def test_output_allocated_by_torch_comes_back_as_torch(mod):
    x = torch.arange(12, dtype=torch.float32).reshape(3, 4)
    before = mod["env_allocator_no_args"]()
    y = mod["twice"](x)
    assert isinstance(y, torch.Tensor)
    assert y.shape == (3, 4) and y.dtype == torch.float32
    np.testing.assert_array_equal(y.numpy(), 2 * x.numpy())
    y += 1  # torch owns and can write it
    assert mod["env_allocator_no_args"]() == before  # restored after the call


def test_torch_allocator_is_in_force_only_during_the_call(mod):
    x = torch.zeros(2)
    outside = mod["env_allocator_no_args"]()
    inside = mod["env_allocator"](x)
    assert inside != 0 and inside != outside
    assert mod["env_allocator_no_args"]() == outside


def test_without_torch_tensors_there_is_no_env_allocator(mod):
    a = tvm_ffi.from_dlpack(np.zeros(3, "float32"))
    with pytest.raises(RuntimeError, match="allocator is nullptr"):
        mod["twice"](a)


def test_from_threads(mod):
    errors = []

    def work(seed):
        try:
            for _ in range(50):
                x = torch.full((5,), float(seed))
                y = mod["twice"](x)
                assert isinstance(y, torch.Tensor) and float(y[0]) == 2 * seed
        except Exception as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors


def test_error_in_packing_restores_the_allocator(mod):
    x = torch.zeros(2)
    outside = mod["env_allocator_no_args"]()
    with pytest.raises(TypeError):
        mod["twice"](x, object())  # the torch argument installed torch's allocator first
    assert mod["env_allocator_no_args"]() == outside
