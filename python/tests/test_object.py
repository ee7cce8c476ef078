"""Objects: registration by type key, isinstance through the type table, reflection, refcounts."""

import pytest

import tvm_ffi
from conftest import collect


class Pair(tvm_ffi.Object):
    """Python class of the C++ testing.Pair (fields a, b), registered once the module that
    defines the type is loaded."""

    __slots__ = ()


@pytest.fixture(scope="module", autouse=True)
def _register_pair(mod):
    tvm_ffi.register_object("testing.Pair")(Pair)


def test_registered_class_and_fields(mod):
    p = mod.make_pair(1, 2, False)
    assert type(p) is Pair and p.__tvm_ffi_type_key__ == "testing.Pair"
    assert p.a == 1 and p.b == 2
    assert mod.pair_sum(p) == 3


def test_unregistered_subtype_uses_nearest_registered_ancestor(mod):
    d = mod.make_pair(3, 4, True)
    assert d.__tvm_ffi_type_key__ == "testing.PairDerived"
    assert isinstance(d, Pair) and isinstance(d, tvm_ffi.Object)
    assert (d.a, d.b) == (3, 4)


def test_writable_field(mod):
    p = mod.make_pair(1, 2, False)
    p.b = 40
    assert p.b == 40 and mod.pair_sum(p) == 41
    with pytest.raises(AttributeError):
        p.a = 5
    with pytest.raises(TypeError):
        p.b = "not an int"


def test_missing_attribute(mod):
    with pytest.raises(AttributeError):
        mod.make_pair(1, 2, False).no_such_field


def test_identity_equality_hash(mod):
    p = mod.make_pair(1, 2, False)
    q = mod.echo(p)
    assert p == q and p.same_as(q) and hash(p) == hash(q) and p is not q
    assert p != mod.make_pair(1, 2, False)


def test_use_count(mod):
    p = mod.make_pair(1, 2, False)
    assert tvm_ffi.testing.object_use_count(p) == 1 == p.__tvm_ffi_use_count__
    q = mod.echo(p)
    assert tvm_ffi.testing.object_use_count(p) == 2
    assert mod.use_count(p) == 2
    del q
    collect()
    assert tvm_ffi.testing.object_use_count(p) == 1


def test_handles_released_exactly_once(mod):
    p = mod.make_pair(5, 6, False)
    copies = [mod.echo(p) for _ in range(50)]
    assert p.__tvm_ffi_use_count__ == 51
    del copies
    collect()
    assert p.__tvm_ffi_use_count__ == 1


def test_register_unknown_type_key_fails():
    with pytest.raises(ValueError):
        @tvm_ffi.register_object("testing.NoSuchType")
        class Nope(tvm_ffi.Object):
            pass


def test_registered_type_keys(mod):
    keys = tvm_ffi.get_registered_type_keys()
    assert "ffi.Tensor" in keys and "testing.Pair" in keys


def test_object_cannot_be_constructed_directly():
    with pytest.raises(TypeError):
        tvm_ffi.Object()
