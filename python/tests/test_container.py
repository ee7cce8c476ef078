"""Array, List, Map, Dict: Python views of the FFI containers."""

import pytest

import tvm_ffi

pytestmark = pytest.mark.usefixtures("need_containers")


def test_array_basics(mod):
    a = tvm_ffi.Array([1, "two", 3.0, None])
    assert len(a) == 4 and a[0] == 1 and a[1] == "two" and a[-1] is None
    assert list(a) == [1, "two", 3.0, None] and a == [1, "two", 3.0, None]
    assert a[1:3] == ["two", 3.0]
    assert "two" in a and 5 not in a
    with pytest.raises(IndexError):
        a[4]
    assert mod.echo(a).same_as(a)


def test_list_and_tuple_become_arrays(mod):
    out = mod.echo([1, [2, 3], (4,)])
    assert isinstance(out, tvm_ffi.Array)
    assert out[0] == 1 and isinstance(out[1], tvm_ffi.Array) and list(out[1]) == [2, 3]
    assert list(out[2]) == [4]


def test_dict_becomes_map(mod):
    m = mod.echo({"a": 1, "b": [1, 2], 3: "c"})
    assert isinstance(m, tvm_ffi.Map) and len(m) == 3
    assert m["a"] == 1 and list(m["b"]) == [1, 2] and m[3] == "c"
    assert "a" in m and "z" not in m and m.get("z", 9) == 9
    with pytest.raises(KeyError):
        m["z"]
    assert sorted(map(str, m.keys())) == ["3", "a", "b"]


def test_map_insertion_order():
    keys = ["k%d" % i for i in range(40)]
    m = tvm_ffi.Map({k: i for i, k in enumerate(keys)})
    assert list(m.keys()) == keys
    assert [v for _, v in m.items()] == list(range(40))


def test_list_mutation_is_shared(mod):
    lst = tvm_ffi.List([1, 2])
    same = mod.echo(lst)
    lst.append(3)
    lst.insert(0, 0)
    lst[1] = 10
    assert list(same) == [0, 10, 2, 3]
    del lst[0]
    assert list(same) == [10, 2, 3]
    lst.clear()
    assert len(same) == 0


def test_dict_mutation_is_shared(mod):
    d = tvm_ffi.Dict({"a": 1})
    same = mod.echo(d)
    d["b"] = 2
    assert same["b"] == 2 and len(same) == 2
    del d["a"]
    assert "a" not in same
    assert d.pop("b") == 2 and len(same) == 0


def test_nested_callback(mod):
    out = mod.apply(lambda arr: [x * 2 for x in arr], [1, 2, 3])
    assert list(out) == [2, 4, 6]
