"""Runtime tensors from Python: allocation, numpy round trips, copies, bad input."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import tvm

_DTYPES = ["float32", "float64", "int8", "int32", "int64", "uint8", "float16", "bool"]


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(_DTYPES).flatmap(
    lambda dt: hnp.arrays(np.dtype(dt) if dt != "bool" else np.bool_,
                          hnp.array_shapes(min_dims=0, max_dims=4, max_side=6))))
def test_numpy_round_trip(arr):
    t = tvm.runtime.tensor(arr, tvm.cpu())
    assert tuple(t.shape) == arr.shape
    back = t.numpy()
    assert back.dtype == arr.dtype
    np.testing.assert_array_equal(back, arr)


@settings(max_examples=200, deadline=None)
@given(hnp.arrays(np.float32, hnp.array_shapes(min_dims=2, max_dims=3, max_side=5)),
       st.data())
def test_strided_source_copies_like_numpy(arr, data):
    # A transposed (non-compact) view imported by DLPack, copied into a compact tensor.
    perm = data.draw(st.permutations(range(arr.ndim)))
    view = np.transpose(arr, perm)
    imported = tvm_from_dlpack(view)
    out = tvm.runtime.empty(view.shape, "float32")
    out.copyfrom(imported)
    np.testing.assert_array_equal(out.numpy(), view)


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(["float32", "int8", "float64"]).flatmap(
    lambda dt: hnp.arrays(np.dtype(dt), hnp.array_shapes(min_dims=1, max_dims=3, max_side=600 // 3))),
    st.data())
def test_strided_numpy_source_is_compacted(arr, data):
    # tensor() / copyfrom() of a transposed, sliced or reversed numpy view: written into the
    # tensor in place (2-D transposes tile by tile, tiles of _TILE rows and columns)
    perm = data.draw(st.permutations(range(arr.ndim)))
    step = data.draw(st.sampled_from([1, 2, -1]))
    view = np.transpose(arr, perm)[::step]
    t = tvm.runtime.tensor(view)
    assert tuple(t.shape) == view.shape and t.dtype == str(view.dtype)
    np.testing.assert_array_equal(t.numpy(), view)
    with pytest.raises(ValueError):
        tvm.runtime.empty(view.shape + (1,), str(view.dtype)).copyfrom(view)


def test_transpose_across_tiles():
    from tvm.runtime.tensor import _TILE

    arr = np.arange(3 * _TILE * (_TILE + 7), dtype=np.float32).reshape(3 * _TILE, _TILE + 7)
    np.testing.assert_array_equal(tvm.runtime.tensor(arr.T).numpy(), arr.T)
    np.testing.assert_array_equal(tvm.runtime.tensor(arr.T[::-1]).numpy(), arr.T[::-1])


def tvm_from_dlpack(x):
    import tvm_ffi

    return tvm_ffi.from_dlpack(x)


def test_results_are_runtime_tensors():
    import tvm_ffi

    # Tensors returned by functions come back as tvm.runtime.Tensor once tvm is imported.
    t = tvm_ffi.get_global_func("runtime.TensorEmpty")(tvm_ffi.Shape([3]), tvm_ffi.dtype("float32"),
                                                       tvm.cpu())
    assert isinstance(t, tvm.runtime.Tensor)
    assert t.device == tvm.cpu()
    assert t.numpy().shape == (3,)
    # ... and so do tensors imported by DLPack.
    imported = tvm_ffi.from_dlpack(np.arange(4, dtype=np.float32))
    assert isinstance(imported, tvm.runtime.Tensor)
    np.testing.assert_array_equal(imported.numpy(), np.arange(4, dtype=np.float32))


def test_bad_input_raises_typed_errors():
    with pytest.raises(ValueError):
        tvm.runtime.empty((-1, 2))
    with pytest.raises(RuntimeError):
        tvm.runtime.empty((2,), "float32", tvm.cuda())
    t = tvm.runtime.empty((2, 2), "float32")
    with pytest.raises(ValueError):
        t.copyfrom(np.zeros((3, 3), np.float32))
    with pytest.raises(ValueError):  # no complex dtype in the ABI
        tvm.runtime.tensor(np.zeros(2, np.complex64))

