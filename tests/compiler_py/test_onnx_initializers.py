"""Large initializers read once (frontend/onnx/initializers.py): onnx's checker, given the copy
of the model with stand-ins, says what it says of the model itself (hypothesis corrupts the
initializer); from_onnx imports the same values and raises the same typed errors; the
constant weight packing (matmul_packed.pack_weight, copied a block of rows at a time) packs
as the whole-matrix formula does."""

import numpy as np
import onnx
from hypothesis import given, settings
from hypothesis import strategies as st
from onnx import TensorProto, helper, numpy_helper

from tvm.relax.frontend.onnx import from_onnx, initializers
from tvm.topi.matmul_packed import pack_weight


def _model(w, n_in):
    """y = x @ w.T + 1 (Gemm transB) for an initializer w of shape (n_out, n_in); y's shape
    is left to the importer (w's dims may be corrupt)."""
    one = numpy_helper.from_array(np.ones(1, "float32"), "one")
    nodes = [helper.make_node("Gemm", ["x", "w"], ["g"], transB=1),
             helper.make_node("Add", ["g", "one"], ["y"])]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, n_in])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["a", "b"])], [w, one])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def _verdict(model):
    try:
        onnx.checker.check_model(model)
        return None
    except onnx.checker.ValidationError as err:
        return str(err)


def _import(model):
    """('ok', {constant values}) or (error type, message) of from_onnx(model)."""
    try:
        mod = from_onnx(model)
    except (ValueError, TypeError, NotImplementedError) as err:
        return type(err).__name__, str(err)
    return "ok", str(mod)


_CORRUPTIONS = st.sampled_from([
    "none", "truncate", "extend", "dim_plus", "dim_zero", "dim_negative", "rank_up", "type_double",
    "type_string", "type_undefined", "type_int4", "type_unknown", "external", "float_data", "segment",
])


def _corrupt(t, how, draw):
    if how == "truncate":
        t.raw_data = t.raw_data[:draw(st.integers(0, len(t.raw_data) - 1))]
    elif how == "extend":
        t.raw_data = t.raw_data + b"\0" * draw(st.integers(1, 9))
    elif how == "dim_plus":
        t.dims[draw(st.integers(0, len(t.dims) - 1))] += draw(st.integers(1, 3))
    elif how == "dim_zero":
        t.dims[draw(st.integers(0, len(t.dims) - 1))] = 0
    elif how == "dim_negative":
        t.dims[draw(st.integers(0, len(t.dims) - 1))] = -1
    elif how == "rank_up":
        t.dims.append(1)
    elif how.startswith("type_"):
        t.data_type = {"type_double": TensorProto.DOUBLE, "type_string": TensorProto.STRING,
                       "type_undefined": TensorProto.UNDEFINED, "type_int4": TensorProto.INT4,
                       "type_unknown": 999}[how]
    elif how == "external":
        t.data_location = TensorProto.EXTERNAL
    elif how == "float_data":
        t.float_data.extend([1.0])
    elif how == "segment":
        t.segment.begin = 1


@settings(max_examples=120, deadline=None)
@given(st.integers(1, 6), st.integers(1, 6), _CORRUPTIONS, st.data())
def test_checker_and_import_see_what_they_saw(n_out, n_in, how, data):
    rng = np.random.default_rng(n_out * 7 + n_in)
    w = numpy_helper.from_array(rng.standard_normal((n_out, n_in)).astype("float32"), "w")
    _corrupt(w, how, data.draw)
    model = _model(w, n_in)
    old = initializers._LARGE
    try:
        initializers._LARGE = 1  # every initializer is "large": the stand-in path
        light, raws = initializers.split_large(model)
        fast = _verdict(light), _import(model)
        initializers._LARGE = 1 << 62  # none is: the checker and to_array see the model itself
        assert initializers.split_large(model) == (model, {})
        slow = _verdict(model), _import(model)
    finally:
        initializers._LARGE = old
    assert fast == slow
    if how == "none":
        assert list(raws) == [0, 1] and fast[1][0] == "ok"


def test_large_initializer_is_read_once_and_left_out_of_the_checked_copy():
    w = np.random.default_rng(0).standard_normal((640, 512)).astype("float32")  # 1.25 MB
    model = _model(numpy_helper.from_array(w, "w"), 512)
    light, raws = initializers.split_large(model)
    assert list(raws) == [0]  # "one" (4 bytes) stays as it is
    assert len(light.graph.initializer[0].raw_data) == 4 and list(light.graph.initializer[0].dims) == [1, 1]
    assert light.ByteSize() < 1000 and model.ByteSize() > w.nbytes
    assert light.graph.initializer[1] == model.graph.initializer[1]
    assert light.graph.node == model.graph.node and light.opset_import == model.opset_import
    arr = initializers.to_array(model.graph.initializer[0], raws[0])
    np.testing.assert_array_equal(arr, w)
    assert not arr.flags.writeable  # a view of the bytes, as onnx's to_array makes it
    mod = from_onnx(model)
    consts = [b.value for b in mod["main"].body.blocks[0].bindings if hasattr(b.value, "args")]
    weight = [a.data.numpy() for c in consts for a in c.args if hasattr(a, "data") and a.data.shape == (512, 640)]
    assert len(weight) == 1
    np.testing.assert_array_equal(weight[0], w.T)  # Gemm's transB, compacted into the constant


@settings(max_examples=150, deadline=None)
@given(st.integers(1, 300), st.integers(1, 70), st.sampled_from([16, 32, 48]), st.sampled_from(["float32", "int8"]))
def test_pack_weight_matches_the_whole_matrix_formula(k, n, cols, dtype):
    b = (np.random.default_rng(k * 100 + n).standard_normal((k, n)) * 50).astype(dtype)
    padded = np.concatenate([b, np.zeros((k, -n % cols), dtype)], axis=1)
    expect = padded.reshape(k, -1, cols).transpose(1, 0, 2)
    got = pack_weight(b, cols)
    assert got.dtype == b.dtype and got.flags.c_contiguous
    np.testing.assert_array_equal(got, expect)
    import tvm
    packed = pack_weight(tvm.runtime.tensor(b), cols)  # a Tensor: read in place, packed into a Tensor
    assert isinstance(packed, tvm.runtime.Tensor) and packed.dtype == dtype
    np.testing.assert_array_equal(packed.numpy(), expect)
