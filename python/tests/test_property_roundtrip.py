"""Property: values echoed through a C function and through a Python callback invoked from C
keep their value and type (the ABI-stability guard)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tvm_ffi
from strategies import ByteOffsetProducer, np_arrays, same_value, tensor_matches, values

SETTINGS = settings(max_examples=200, deadline=None)
HAS_CONTAINERS = tvm_ffi.get_global_func("ffi.Array", allow_missing=True) is not None


@SETTINGS
@given(values(containers=HAS_CONTAINERS))
def test_echo_through_c(mod, value):
    assert same_value(value, mod.echo(value))


@SETTINGS
@given(values(containers=HAS_CONTAINERS))
def test_echo_through_python_callback(mod, value):
    seen = []

    def identity(x):
        seen.append(x)
        return x

    out = mod.apply(identity, value)
    assert same_value(value, seen[0])  # what the callback received
    assert same_value(value, out)  # what came back through C


@SETTINGS
@given(st.lists(values(containers=False), min_size=0, max_size=8))
def test_many_arguments_through_callback(mod, args):
    out = []
    mod.apply(lambda *xs: out.extend(xs), *args)
    assert len(out) == len(args) and all(same_value(a, b) for a, b in zip(args, out))


@SETTINGS
@given(np_arrays(), st.booleans())
def test_tensors(mod, arr, byte_offset):
    source = ByteOffsetProducer(arr) if byte_offset else arr
    t = tvm_ffi.from_dlpack(source)
    assert tensor_matches(arr, t)
    assert mod.tensor_ndim(t) == arr.ndim
    if arr.size:
        assert mod.tensor_data_ptr(t) == arr.ctypes.data
    # Through C and through a Python callback: the very same Tensor object comes back.
    assert mod.echo(t).same_as(t)
    assert mod.apply(lambda x: x, t).same_as(t)
    # A numpy array passed directly converts on the fly to an equal view.
    assert tensor_matches(arr, mod.echo(arr))


@SETTINGS
@given(np_arrays(dtypes=("float32",)), st.booleans())
def test_tensor_write_through(mod, arr, via_tensor):
    """C writes through the tensor; the original numpy view sees it (zero copy)."""
    before = arr.copy()
    mod.add_one_f32(tvm_ffi.from_dlpack(arr) if via_tensor else arr)
    with np.errstate(invalid="ignore", over="ignore"):  # random bits: nan and inf included
        expected = before + np.float32(1)
    assert np.array_equal(arr, expected, equal_nan=True)


def _argument(mod, kind, n):
    """A value of `kind` for the two-argument calls below (objects of three classes, scalars)."""
    if kind == "pair":
        return mod.make_pair(n, -n, False)
    if kind == "tensor":
        return tvm_ffi.from_dlpack(np.arange(n % 7 + 1, dtype="float32"))
    if kind == "array":
        return tvm_ffi.get_global_func("ffi.Array")(n, n + 1)
    if kind == "int":
        return n
    return "s%d" % n


def _same_argument(expected, got):
    if isinstance(expected, tvm_ffi.Object):
        return got.same_as(expected)
    return same_value(expected, got)


@SETTINGS
@given(st.sampled_from(["pair", "tensor", "array", "int", "str"]),
       st.sampled_from(["pair", "tensor", "array", "int", "str"]),
       st.integers(-1000, 1000), st.sampled_from([None, 0, 1]))
def test_two_arguments(mod, kind_a, kind_b, n, released):
    """Function.__call__ writes two ints or two objects into the frame inline (a VM's f(x, w));
    every mix of kinds arrives in order, and a released object is refused (ValueError) in
    either place, the frame left usable."""
    make_array = tvm_ffi.get_global_func("ffi.Array")
    a, b = _argument(mod, kind_a, n), _argument(mod, kind_b, n + 1)
    pair = (a, b)
    if released is not None and isinstance(pair[released], tvm_ffi.Object):
        pair[released].__del__()
        with pytest.raises(ValueError, match="released"):
            make_array(a, b)
    else:
        out = make_array(a, b)
        assert len(out) == 2 and _same_argument(a, out[0]) and _same_argument(b, out[1])
    assert mod.num_args(1, 2) == 2  # the frames still work
