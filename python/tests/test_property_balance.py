"""Property: after many calls and a gc, live object counts return to their baseline.

Counted two ways: the strong refcount word of long-lived objects (Object.__tvm_ffi_use_count__)
and the number of Python callback closures and DLPack managed tensors alive.
"""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import tvm_ffi
from conftest import collect
from strategies import ByteOffsetProducer, np_arrays, produced_alive, values
from tvm_ffi import function as ffi_function

SETTINGS = settings(max_examples=200, deadline=None)
HAS_CONTAINERS = tvm_ffi.get_global_func("ffi.Array", allow_missing=True) is not None


def _baseline(objs):
    collect()
    return [o.__tvm_ffi_use_count__ for o in objs], len(ffi_function._CALLBACKS)


@SETTINGS
@given(values(containers=HAS_CONTAINERS), st.integers(1, 5))
def test_refcounts_return_to_baseline(mod, value, repeat):
    pair = mod.make_pair(1, 2, False)
    tensor = tvm_ffi.from_dlpack(np.arange(4.0))
    keep = [pair, tensor]
    before = _baseline(keep)
    for _ in range(repeat):
        # The same objects travel inside fresh values, through C and through callbacks.
        payload = [value, pair, tensor] if HAS_CONTAINERS else value
        mod.echo(payload)
        mod.apply(lambda *xs: xs[-1], value, pair, tensor)
        mod.apply(lambda v: v, payload)
        mod.echo(lambda: value)  # a temporary Function wrapping a closure
        mod.call_repeat0(lambda: (pair, tensor) if HAS_CONTAINERS else pair, 2)
    assert _baseline(keep) == before


@SETTINGS
@given(np_arrays(), st.booleans())
def test_dlpack_managed_tensors_are_freed(mod, arr, byte_offset):
    source = ByteOffsetProducer(arr) if byte_offset else arr
    t = tvm_ffi.from_dlpack(source)
    mod.echo(t)
    mod.apply(lambda x: x, t)
    cap = t.__dlpack__()
    del cap  # unconsumed export: its destructor must free it
    del t, source
    collect()
    assert produced_alive() == 0


def test_no_wrapper_leak_over_many_calls(mod):
    pair = mod.make_pair(1, 2, False)
    collect()
    start = pair.__tvm_ffi_use_count__, len(ffi_function._CALLBACKS)
    for i in range(2000):
        mod.echo(pair)
        mod.apply(lambda p: p, pair)
        mod.echo("x" * (i % 20))
    collect()
    assert (pair.__tvm_ffi_use_count__, len(ffi_function._CALLBACKS)) == start
