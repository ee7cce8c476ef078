"""Direction 2: the real apache-tvm-ffi Python package loads a module built with *our*
headers (our_module.so) and calls it. The module's inline code then works on objects made
by the reference library, which the real package loaded first (our module's NEEDED
libtvm_ffi.so resolves to it by SONAME).

The reference package has the same import name as ours (tvm_ffi), so the calls run in a
separate interpreter with only the reference on its path.
"""

import os
import subprocess
import sys
import textwrap

MODULE = os.path.abspath(os.environ["OUR_MODULE"])
REFERENCE_DIR = os.environ["TVM_FFI_REFERENCE_DIR"]

SCRIPT = textwrap.dedent(
    r"""
    import math, sys
    import numpy as np
    import tvm_ffi
    assert "apache" in tvm_ffi.__file__ or "tvm-stack" in tvm_ffi.__file__, tvm_ffi.__file__
    m = tvm_ffi.load_module(sys.argv[1])

    assert m.add_int(40, 2) == 42
    assert m.mul_float(1.5, 4.0) == 6.0
    assert math.isnan(m.mul_float(float("nan"), 1.0))
    assert m.not_bool(True) is False
    assert m.is_none(None) is True and m.is_none(0) is False
    assert m.echo(None) is None
    assert m.echo(2**62) == 2**62
    assert m.echo(-(2**63)) == -(2**63)
    big = 2**100 + 12345
    assert m.echo(big) == big            # BigInt object passes through our header code
    assert m.echo(1.25) == 1.25
    for n in (0, 1, 6, 7, 8, 9, 31, 1000):
        s = "x" * n
        assert m.concat(s, "y") == s + "y"
        assert m.str_len(s) == n
        assert m.echo(s) == s
    assert m.concat("héllo wörld", "!") == "héllo wörld!"
    raw = b"\x00a\x00bcdefghij"
    assert bytes(m.reverse_bytes(raw)) == raw[::-1]

    x = np.arange(6, dtype="float32").reshape(2, 3)
    assert m.tensor_sum(tvm_ffi.from_dlpack(x)) == 15.0
    m.tensor_scale(tvm_ffi.from_dlpack(x), 2.0)
    assert x[1, 2] == 10.0                # zero copy: written through the module

    assert m.array_sum([1, 2, 3, 4, 5]) == 15
    made = m.array_of_strings(10)
    assert len(made) == 10 and made[9] == "item-9-with-a-long-tail"
    appended = m.array_append([1, "two", 3.0], "four")
    assert list(appended) == [1, "two", 3.0, "four"]

    for n in (0, 1, 4, 5, 100, 3000):
        d = {"key%d" % i: i * 7 for i in range(n)}
        for i in range(0, n, max(1, n // 50)):
            assert m.map_get(d, "key%d" % i) == i * 7
        assert m.map_size(d) == n
        made = m.map_make(n)
        assert len(made) == n
        assert [k for k in made.keys()] == ["key%d" % i for i in range(n)]
        for i in range(0, n, max(1, n // 50)):
            assert made["key%d" % i] == i * i
    try:
        m.map_get({"a": 1}, "absent")
        raise AssertionError("no error")
    except KeyError:
        pass
    mp = m.map_set({1: "int"}, "k", "v")
    assert m.map_count(mp, True) == 0 and m.map_count(mp, 1) == 1 and m.map_count(mp, "k") == 1
    d = tvm_ffi.Dict()
    for i in range(50):
        m.dict_set(d, "entry%d" % i, i)
    assert len(d) == 50 and d["entry49"] == 49

    assert m.call_callback(lambda v: v * 2, 21) == 42
    def raising(v):
        raise IndexError("from a python callback")
    try:
        m.call_callback(raising, 1)
        raise AssertionError("no error")
    except IndexError as e:
        assert "from a python callback" in str(e)
    for fn, exc in ((lambda: m.throw_value_error("bad value"), ValueError),
                    (lambda: m.throw_key_error("k"), KeyError),
                    (lambda: m.throw_std(), RuntimeError),
                    (lambda: m.add_int("x", 1), TypeError)):
        try:
            fn()
            raise AssertionError("no error")
        except exc:
            pass

    # A ModuleObj subclass compiled with our headers, used by the reference library's code
    # (ffi.ModuleGetKind, GetFunction(name, query_imports), ImportModule) through its vtable.
    c = m.make_custom("py")
    assert c.kind == "interop.custom"
    assert c.greet("me") == "hello me from py"
    assert c.get_function_doc("greet") == "says hello (py)"
    assert c.inspect_source() == "source of py"
    assert c.implements_function("greet") and not c.implements_function("nope")
    assert c.is_runnable() and not c.is_binary_serializable()
    chain = m.make_custom_chain("outer", "inner")
    assert [x.kind for x in chain.imports] == ["interop.custom"]
    assert chain.get_function("tag_inner", query_imports=True)() == "inner"
    c.import_module(m)
    assert list(m.import_kinds(c)) == ["library"] and [x.kind for x in c.imports] == ["library"]
    assert m.find_function(c, "add_int", False) is None
    assert m.find_function(c, "add_int", True)(1, 2) == 3
    assert c.get_function("add_int", query_imports=True)(2, 3) == 5
    assert m.cycle_refused(chain, c)
    c.clear_imports()
    assert len(c.imports) == 0 and m["clear_imports"](chain) == 0
    del c, chain
    print("OK")
    """
)


def test_reference_python_package_calls_our_module():
    env = dict(os.environ)
    env["PYTHONPATH"] = REFERENCE_DIR
    env.pop("PYTHONSAFEPATH", None)
    proc = subprocess.run(
        [sys.executable, "-c", SCRIPT, MODULE],
        env=env, capture_output=True, text=True, cwd=os.environ.get("TEST_TMPDIR", "/tmp"),
        timeout=120,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.strip().endswith("OK")
