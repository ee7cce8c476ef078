"""Property: the same values through a module built against apache-tvm-ffi's headers and
through one built against ours (one source, diff_module.cc) give equal results."""

import math

from hypothesis import given, settings
from hypothesis import strategies as st
import pytest

import tvm_ffi
from conftest import module_path
from strategies import ByteOffsetProducer, binaries, keys, np_arrays, same_value, texts, values

SETTINGS = settings(max_examples=200, deadline=None)
HAS_CONTAINERS = tvm_ffi.get_global_func("ffi.Array", allow_missing=True) is not None


@pytest.fixture(scope="module")
def mods():
    ours = tvm_ffi.load_module(module_path("TVM_FFI_DIFF_MODULE"))
    ref = tvm_ffi.load_module(module_path("TVM_FFI_DIFF_MODULE_REF"))
    return ours, ref


def _same(a, b):
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a):
        return math.isnan(b)
    if isinstance(a, tvm_ffi.Object) or isinstance(b, tvm_ffi.Object):
        return same_value(a, b) if not isinstance(a, (tvm_ffi.Array, tvm_ffi.Map)) else True
    return type(a) is type(b) and a == b


@SETTINGS
@given(values(containers=HAS_CONTAINERS))
def test_echo_and_type_index(mods, value):
    ours, ref = mods
    a, b = ours.echo(value), ref.echo(value)
    assert same_value(value, a) and same_value(value, b)
    assert ours.type_index_of(value) == ref.type_index_of(value)


@SETTINGS
@given(values(containers=HAS_CONTAINERS))
def test_callback(mods, value):
    ours, ref = mods
    seen = []

    def f(x):
        seen.append(x)
        return x

    assert same_value(value, ours.call_callback(f, value))
    assert same_value(value, ref.call_callback(f, value))
    assert same_value(seen[0], seen[1]) if not isinstance(seen[0], tvm_ffi.Object) else True


@SETTINGS
@given(st.integers(-(1 << 62), (1 << 62) - 1), st.integers(-(1 << 62), (1 << 62) - 1),
       st.floats(allow_nan=True), st.floats(allow_nan=True), st.booleans())
def test_numbers(mods, a, b, x, y, flag):
    ours, ref = mods
    assert ours.add_int(a, b) == ref.add_int(a, b) == a + b
    assert _same(ours.mul_float(x, y), ref.mul_float(x, y))
    assert ours.not_bool(flag) is ref.not_bool(flag) is (not flag)


@SETTINGS
@given(texts, texts, binaries)
def test_strings(mods, s1, s2, raw):
    ours, ref = mods
    assert ours.concat(s1, s2) == ref.concat(s1, s2) == s1 + s2
    assert ours.str_len(s1) == ref.str_len(s1) == len(s1.encode("utf-8", "surrogatepass"))
    assert ours.reverse_bytes(raw) == ref.reverse_bytes(raw) == raw[::-1]


@SETTINGS
@given(np_arrays(), st.booleans())
def test_tensors(mods, arr, byte_offset):
    ours, ref = mods
    t = tvm_ffi.from_dlpack(ByteOffsetProducer(arr) if byte_offset else arr)
    assert ours.tensor_digest(t) == ref.tensor_digest(t)
    assert ours.tensor_digest(arr) == ref.tensor_digest(arr)


@SETTINGS
@given(st.sampled_from(["int", "str", "float"]), st.integers(0, 3))
def test_type_errors_agree(mods, kind, which):
    ours, ref = mods
    bad = {"int": "not an int", "str": 1.5, "float": "x"}[kind]
    fn = {"int": "add_int", "str": "concat", "float": "mul_float"}[kind]
    args = [bad, bad]
    for mod in (ours, ref):
        with pytest.raises(TypeError):
            getattr(mod, fn)(*args)


@SETTINGS
@given(st.lists(values(containers=False), max_size=8), values(containers=False))
def test_arrays(mods, items, extra):
    ours, ref = mods
    arr = tvm_ffi.Array(items)
    for mod in (ours, ref):
        assert mod.array_len(arr) == len(items)
        for i, v in enumerate(items):
            assert same_value(v, mod.array_get(arr, i))
        grown = mod.array_append(arr, extra)
        assert same_value(list(items) + [extra], grown)
        assert len(arr) == len(items)  # copy-on-write left the original alone


@SETTINGS
@given(st.dictionaries(keys, values(containers=False), max_size=12), keys,
       values(containers=False))
def test_maps(mods, content, key, value):
    ours, ref = mods
    m = tvm_ffi.Map(content)
    for mod in (ours, ref):
        assert mod.map_len(m) == len(content)
        for k in content:
            assert mod.map_count(m, k) == 1
        assert mod.map_count(m, key) == (1 if key in content else 0)
        updated = mod.map_set(m, key, value)
        expected = dict(content)
        expected[key] = value
        assert same_value(expected, updated)
        assert len(m) == len(content)
