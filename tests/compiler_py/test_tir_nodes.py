"""TIR nodes from Python: construction, operators, fields, printing, structural equality."""

import pytest

import tvm
from tvm import ir, te, tir


def test_var_and_operators():
    x = tir.Var("x", "int32")
    y = tir.Var("y", "int32")
    e = (x + 1) * y - x // 2 + x % 3
    assert isinstance(e, tir.Add)
    assert str(e.dtype) == "int32"
    assert isinstance(e.a, tir.Sub)
    assert str(e) == "((((x + 1) * y) - (x // 2)) + (x % 3))"
    assert isinstance(x < y, tir.LT)
    assert str((x < y).dtype) == "bool"
    assert isinstance(tir.floordiv(x, y), tir.FloorDiv)
    assert isinstance(tir.floormod(x, 4), tir.FloorMod)
    assert isinstance(tir.max(x, y), tir.Max)


def test_printer():
    x = tir.Var("x", "int32")
    assert str(x * 4 // 3) == "((x * 4) // 3)"
    f = tir.Var("f", "float32")
    assert str(tir.exp(f) + 1.5) == "(T.exp(f) + T.float32(1.5))"


def test_promotion_and_constants():
    x = tir.Var("x", "int32")
    f = tir.Var("f", "float64")
    e = x + f
    assert str(e.dtype) == "float64"
    assert isinstance(e.a, tir.Cast)
    w = x + tir.Var("w", "int64")
    assert str(w.dtype) == "int64"
    c = tir.const(3, "int64")
    assert isinstance(c, tir.IntImm) and c.value == 3 and str(c.dtype) == "int64"
    assert isinstance(x + 2.5, tir.Add) and str((x + 2.5).dtype) == "float32"


def test_dtype_errors():
    x = tir.Var("x", "int32")
    with pytest.raises(TypeError):
        tir.Not(x)
    with pytest.raises(TypeError):
        tir.Select(x, x, x)
    with pytest.raises(ValueError):
        bool(x < 1)


def test_structural_equal_and_hash():
    def make(name):
        A = te.placeholder((8, 8), "float32", "A")
        B = te.compute((8, 8), lambda i, j: A[i, j] + 1.0, name="B")
        return te.create_prim_func([A, B], name)

    f, g = make("main"), make("main")
    assert not f.same_as(g)
    assert ir.structural_equal(f, g)
    assert ir.structural_hash(f) == ir.structural_hash(g)
    ir.assert_structural_equal(f, g)
    h = make("other")
    assert not ir.structural_equal(f, h)
    x, y = tir.Var("x"), tir.Var("y")
    assert not ir.structural_equal(x + 1, y + 1)
    assert ir.structural_equal(x + 1, y + 1, map_free_vars=True)
    assert not ir.structural_equal(tir.const(1, "int32"), tir.const(1, "int64"))
    with pytest.raises(ValueError):
        ir.assert_structural_equal(x, y)


def test_buffer_primfunc_module():
    A = tir.decl_buffer((4,), "float32", "A")
    i = tir.Var("i", "int32")
    body = tir.For(i, 0, 4, tir.ForKind.SERIAL, tir.BufferStore(A, A[i] * 2.0, [i]))
    f = tir.PrimFunc([A], body).with_attr("global_symbol", "double")
    assert len(f.params) == 1
    assert f.buffer_map[f.params[0]].same_as(A)
    text = str(f)
    assert "def double(A: T.Buffer((4,), \"float32\")):" in text
    assert "A[i] = (A[i] * T.float32(2))" in text
    mod = ir.IRModule({"double": f})
    assert mod["double"].same_as(f)
    assert "double" in mod


def test_te_structure():
    n = 16
    A = te.placeholder((n, n), "float32", "A")
    k = te.reduce_axis((0, n), "k")
    B = te.compute((n,), lambda i: te.sum(A[i, k], axis=k), name="B")
    assert B.shape[0].value == n and str(B.dtype) == "float32"
    assert isinstance(B.body, tir.Reduce)
    f = te.create_prim_func([A, B])
    text = str(f)
    assert 'with T.block("B"):' in text and "v_k = T.axis.reduce(16, k)" in text, text
    assert "with T.init():" in text and "B[v_i] = T.float32(0)" in text
    assert "B[v_i] = (B[v_i] + A[v_i, v_k])" in text


def test_json_round_trip():
    A = te.placeholder((8, 4), "float32", "A")
    k = te.reduce_axis((0, 4), "k")
    B = te.compute((8,), lambda i: te.max(A[i, k] * 0.5, axis=k), name="B")
    C = te.compute((8,), lambda i: tir.Select(B[i] > 0.1, B[i], tir.const(1e-300, "float64").astype("float32")), name="C")
    f = te.create_prim_func([A, C], "fn")
    text = ir.save_json(f)
    g = ir.load_json(text)
    assert isinstance(g, tir.PrimFunc) and not g.same_as(f)
    ir.assert_structural_equal(f, g)
    assert ir.structural_hash(f) == ir.structural_hash(g)
    assert ir.save_json(g) == text
    # Shared nodes stay shared: the buffer's data var is the parameter.
    assert g.params[0].same_as(g.buffer_map[g.params[0]].data)
    mod = ir.IRModule({"fn": g})
    assert ir.structural_equal(ir.load_json(ir.save_json(mod)), mod)
    x = tir.Var("x", "int64")
    e = ir.load_json(ir.save_json(x * 3 + tir.const(-(2**62), "int64")))
    assert str(e) == "((x * T.int64(3)) + T.int64(%d))" % -(2**62)
    with pytest.raises(ValueError):
        ir.load_json("{\"format\": \"other\"}")
