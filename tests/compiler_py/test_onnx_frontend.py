"""The ONNX frontend: the onnx package's node tests (exactly the failures documented in
docs/onnx_ops.md fail), models against onnxruntime, bad input."""

import os
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import onnx  # noqa: F401  (tools/install_deps.sh installs onnx and onnxruntime)
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

import tvm  # noqa: E402
from tvm import relax  # noqa: E402
from tvm.relax.frontend.onnx import OnnxOpError, from_onnx  # noqa: E402
from tvm.relax.frontend.onnx import conformance as C  # noqa: E402

DOC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs", "onnx_ops.md")


def test_suite_sample_matches_the_table():
    """docs/onnx_ops.md lists every case of the suite; a deterministic sample of them (every
    20th name, ~100 cases, in worker processes) passes or fails exactly as the table says. The
    full suite (tools/onnx_ops_report.py) takes too long for a unit test on 2 cores."""
    table = C.read_table(os.environ.get("ONNX_OPS_DOC", DOC))
    names = C.suite_names()
    assert sorted(table) == sorted(names), (
        "the table and the suite differ (regenerate docs/onnx_ops.md with tools/onnx_ops_report.py): "
        "missing %s, extra %s" % (sorted(set(names) - set(table))[:10], sorted(set(table) - set(names))[:10]))
    sample = C.sample_names(names)
    results = C.run_suite(sample, jobs=2)
    wrong = ["%s: table says %s, run gives %s (%s)" % (n, table[n][0], results[n][0], results[n][1])
             for n in sample if results[n][0] != table[n][0]]
    assert not wrong, "cases disagree with docs/onnx_ops.md:\n" + "\n".join(wrong)
    assert sum(r[0] == "pass" for r in results.values()) >= len(sample) // 4


def test_backend_api():
    """tvm.relax.frontend.onnx.backend is an onnx.backend.base.Backend: prepare/run with
    inputs as inputs (a parameter input stays an input), run_node, supports_device."""
    import onnx.backend.base
    from tvm.relax.frontend.onnx import backend

    assert issubclass(backend.TVMBackend, onnx.backend.base.Backend)
    assert backend.supports_device("CPU")
    assert backend.supports_device("CUDA") == bool(tvm.cuda(0).exist)
    node = helper.make_node("ReduceSum", ["x", "axes"], ["y"], keepdims=0)
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 4]),
                                           helper.make_tensor_value_info("axes", TensorProto.INT64, [1])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["a", "b"])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    assert backend.is_compatible(model)
    rep = backend.prepare(model, "CPU")
    x = np.arange(24, dtype="float32").reshape(2, 3, 4)
    for axis in (0, 1, 2, -1):
        (y,) = rep.run([x, np.array([axis], "int64")])
        np.testing.assert_allclose(y, x.sum(axis=axis), rtol=1e-6)
    (y,) = rep.run({"x": x, "axes": np.array([1], "int64")})
    np.testing.assert_allclose(y, x.sum(axis=1), rtol=1e-6)
    (z,) = backend.run_node(helper.make_node("Relu", ["a"], ["b"]), [x - 10])
    np.testing.assert_array_equal(z, np.maximum(x - 10, 0))
    with pytest.raises(ValueError, match="takes 2 inputs"):
        rep.run([x])


def _run_both(model, feeds):
    mod = from_onnx(model)
    ex = relax.build(mod, "llvm")
    vm = relax.VirtualMachine(ex, tvm.cpu())
    got = vm["main"](*[tvm.runtime.tensor(v) for v in feeds.values()])
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    want = sess.run(None, feeds)
    return got, want


def mlp_model(dims=(784, 512, 512, 10), seed=0):
    rng = np.random.default_rng(seed)
    inits, nodes, prev = [], [], "x"
    for k in range(len(dims) - 1):
        w = (rng.standard_normal((dims[k + 1], dims[k])) / np.sqrt(dims[k])).astype("float32")
        b = rng.standard_normal(dims[k + 1]).astype("float32") * 0.1
        inits += [numpy_helper.from_array(w, "w%d" % k), numpy_helper.from_array(b, "b%d" % k)]
        nodes.append(helper.make_node("Gemm", [prev, "w%d" % k, "b%d" % k], ["g%d" % k], transB=1))
        prev = "g%d" % k
        if k < len(dims) - 2:
            nodes.append(helper.make_node("Relu", [prev], ["r%d" % k]))
            prev = "r%d" % k
    nodes.append(helper.make_node("Softmax", [prev], ["y"], axis=-1))
    graph = helper.make_graph(nodes, "mlp", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", dims[0]])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", dims[-1]])], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


@settings(max_examples=5, deadline=None)
@given(batch=st.integers(1, 64))
def test_mlp_dynamic_batch_matches_onnxruntime(batch):
    model = mlp_model((64, 32, 32, 10))
    x = np.random.default_rng(batch).standard_normal((batch, 64)).astype("float32")
    got, want = _run_both(model, {"x": x})
    np.testing.assert_allclose(got.numpy(), want[0], rtol=1e-5, atol=1e-6)


def attention_block_model(seq=8, d=16, heads=2, seed=0):
    """A transformer encoder block as exporters write it at opset 17: MatMul/Add projections,
    Reshape/Transpose into heads, scaled scores + additive mask, Softmax, LayerNormalization,
    GELU through Erf, a residual."""
    rng = np.random.default_rng(seed)
    hd = d // heads

    def w(name, shape, scale=None):
        arr = (rng.standard_normal(shape) * (scale or 1 / np.sqrt(shape[0]))).astype("float32")
        return numpy_helper.from_array(arr, name)
    c = lambda name, v: numpy_helper.from_array(np.asarray(v), name)  # noqa: E731
    inits = [w("wq", (d, d)), w("wk", (d, d)), w("wv", (d, d)), w("wo", (d, d)), w("w1", (d, 4 * d)),
             w("w2", (4 * d, d)), c("bq", np.zeros(d, "float32")), c("shape_heads", np.array([1, seq, heads, hd])),
             c("shape_back", np.array([1, seq, d])), c("scale", np.array(1 / np.sqrt(hd), "float32")),
             c("g", np.ones(d, "float32")), c("b", np.zeros(d, "float32")), c("sqrt2", np.array(np.sqrt(2), "float32")),
             c("one", np.array(1.0, "float32")), c("half", np.array(0.5, "float32")),
             c("neg", np.array(-1e4, "float32"))]
    n = helper.make_node
    nodes = [
        n("MatMul", ["x", "wq"], ["q0"]), n("Add", ["q0", "bq"], ["q1"]),
        n("MatMul", ["x", "wk"], ["k0"]), n("MatMul", ["x", "wv"], ["v0"]),
        n("Reshape", ["q1", "shape_heads"], ["q2"]), n("Transpose", ["q2"], ["q"], perm=[0, 2, 1, 3]),
        n("Reshape", ["k0", "shape_heads"], ["k2"]), n("Transpose", ["k2"], ["kt"], perm=[0, 2, 3, 1]),
        n("Reshape", ["v0", "shape_heads"], ["v2"]), n("Transpose", ["v2"], ["v"], perm=[0, 2, 1, 3]),
        n("MatMul", ["q", "kt"], ["s0"]), n("Mul", ["s0", "scale"], ["s1"]),
        n("Sub", ["one", "mask"], ["m0"]), n("Mul", ["m0", "neg"], ["m1"]),
        n("Unsqueeze", ["m1", "axes01"], ["m2"]), n("Add", ["s1", "m2"], ["s2"]),
        n("Softmax", ["s2"], ["p"], axis=-1), n("MatMul", ["p", "v"], ["o0"]),
        n("Transpose", ["o0"], ["o1"], perm=[0, 2, 1, 3]), n("Reshape", ["o1", "shape_back"], ["o2"]),
        n("MatMul", ["o2", "wo"], ["o3"]), n("Add", ["o3", "x"], ["r0"]),
        n("LayerNormalization", ["r0", "g", "b"], ["ln0"], axis=-1, epsilon=1e-5),
        n("MatMul", ["ln0", "w1"], ["f0"]), n("Div", ["f0", "sqrt2"], ["f1"]), n("Erf", ["f1"], ["f2"]),
        n("Add", ["f2", "one"], ["f3"]), n("Mul", ["f0", "f3"], ["f4"]), n("Mul", ["f4", "half"], ["f5"]),
        n("MatMul", ["f5", "w2"], ["f6"]), n("Add", ["f6", "ln0"], ["r1"]),
        n("LayerNormalization", ["r1", "g", "b"], ["y"], axis=-1, epsilon=1e-5),
    ]
    inits.append(c("axes01", np.array([1, 2])))
    graph = helper.make_graph(nodes, "encoder",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, seq, d]),
                               helper.make_tensor_value_info("mask", TensorProto.FLOAT, [1, seq])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, seq, d])], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def test_attention_block_matches_onnxruntime():
    model = attention_block_model()
    rng = np.random.default_rng(1)
    x = rng.standard_normal((1, 8, 16)).astype("float32")
    mask = np.ones((1, 8), "float32")
    mask[0, 6:] = 0
    got, want = _run_both(model, {"x": x, "mask": mask})
    np.testing.assert_allclose(got.numpy(), want[0], rtol=1e-4, atol=1e-4)


def test_unsupported_ops_are_listed_in_one_error():
    nodes = [helper.make_node("Relu", ["x"], ["a"], name="r"),
             helper.make_node("MaxUnpool", ["a", "a"], ["b"], name="unpool1", kernel_shape=[2]),
             helper.make_node("Det", ["a"], ["c"], name="det"),
             helper.make_node("MaxUnpool", ["c", "c"], ["y"], name="unpool2", kernel_shape=[2])]
    graph = helper.make_graph(nodes, "bad", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 2])],
                              [helper.make_tensor_value_info("y", TensorProto.INT64, [1, 3])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    with pytest.raises(OnnxOpError) as info:
        from_onnx(model)
    msg = str(info.value)
    assert "2 operator type(s)" in msg and "Det: det" in msg and "MaxUnpool: unpool1, unpool2" in msg


def test_corrupt_and_invalid_models_raise(tmp_path):
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"\x08\x07this is not a protobuf\xff\xff")
    with pytest.raises(ValueError, match="cannot read|not valid"):
        from_onnx(str(bad))
    with pytest.raises(TypeError):
        from_onnx(42)
    graph = helper.make_graph([helper.make_node("Relu", ["missing"], ["y"])], "g", [],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])])
    with pytest.raises(ValueError, match="not valid"):
        from_onnx(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]))


def test_wrong_input_at_run_time_raises():
    ex = relax.build(from_onnx(mlp_model((8, 4, 4, 2))), "llvm")
    vm = relax.VirtualMachine(ex, tvm.cpu())
    with pytest.raises(ValueError, match="expected shape"):
        vm["main"](tvm.runtime.tensor(np.zeros((3, 9), "float32")))
    with pytest.raises(ValueError, match="dtype"):
        vm["main"](tvm.runtime.tensor(np.zeros((3, 8), "int32")))
    assert vm["main"](tvm.runtime.tensor(np.zeros((3, 8), "float32"))).numpy().shape == (3, 2)


def test_keep_params_in_input():
    model = mlp_model((8, 4, 2))
    mod, params = from_onnx(model, keep_params_in_input=True)
    assert int(mod["main"].attrs["num_input"]) == 1 and len(params["main"]) == 4
    ex = relax.build(mod, "llvm")
    vm = relax.VirtualMachine(ex, tvm.cpu())
    x = np.ones((2, 8), "float32")
    got = vm["main"](tvm.runtime.tensor(x), *[tvm.runtime.tensor(p) for p in params["main"]]).numpy()
    want = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, {"x": x})[0]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_import_tvm_does_not_import_onnx():
    code = "import sys, tvm, tvm.relax; assert 'onnx' not in sys.modules and 'torch' not in sys.modules"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)))
    assert proc.returncode == 0, proc.stderr


# ---------------------------------------------------------------- CNNs


class _Graph:
    """A small helper to write ONNX graphs: nodes, initializers, unique names."""

    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)
        self.nodes, self.inits, self.k = [], [], 0

    def name(self, base):
        self.k += 1
        return "%s%d" % (base, self.k)

    def init(self, arr):
        n = self.name("p")
        self.inits.append(numpy_helper.from_array(np.asarray(arr), n))
        return n

    def op(self, op_type, inputs, **attrs):
        out = self.name(op_type.lower())
        self.nodes.append(helper.make_node(op_type, inputs, [out], name=out, **attrs))
        return out

    def conv_bn_relu(self, x, cin, cout, k=3, stride=1, relu=True):
        w = self.init((self.rng.standard_normal((cout, cin, k, k)) / np.sqrt(cin * k * k)).astype("float32"))
        y = self.op("Conv", [x, w], kernel_shape=[k, k], strides=[stride, stride], pads=[k // 2] * 4)
        bn = [self.init(self.rng.uniform(0.5, 1.5, cout).astype("float32")),
              self.init(self.rng.standard_normal(cout).astype("float32") * 0.1),
              self.init(self.rng.standard_normal(cout).astype("float32") * 0.1),
              self.init(self.rng.uniform(0.5, 1.5, cout).astype("float32"))]
        y = self.op("BatchNormalization", [y] + bn, epsilon=1e-5)
        return self.op("Relu", [y]) if relu else y

    def model(self, out, in_shape, out_shape):
        self.nodes[-1].output[0] = "y"
        graph = helper.make_graph(self.nodes, "cnn", [helper.make_tensor_value_info("x", TensorProto.FLOAT, in_shape)],
                                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, out_shape)], self.inits)
        return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def resnet_model():
    g = _Graph(3)
    y = g.conv_bn_relu("x", 3, 8)
    y = g.op("MaxPool", [y], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
    for cin, cout, stride in ((8, 8, 1), (8, 16, 2)):
        h = g.conv_bn_relu(y, cin, cout, stride=stride)
        h = g.conv_bn_relu(h, cout, cout, relu=False)
        skip = y if (cin == cout and stride == 1) else g.conv_bn_relu(y, cin, cout, k=1, stride=stride, relu=False)
        y = g.op("Relu", [g.op("Add", [h, skip])])
    y = g.op("GlobalAveragePool", [y])
    y = g.op("Flatten", [y], axis=1)
    w = g.init((g.rng.standard_normal((10, 16)) * 0.2).astype("float32"))
    b = g.init(np.zeros(10, "float32"))
    g.op("Gemm", [y, w, b], transB=1)
    return g.model("y", ["N", 3, 16, 16], ["N", 10])


def densenet_model():
    g = _Graph(4)
    y = g.conv_bn_relu("x", 3, 8)
    feats = y
    channels = 8
    for _ in range(2):  # a dense block: each layer sees the concat of all before it
        new = g.conv_bn_relu(feats, channels, 4)
        feats = g.op("Concat", [feats, new], axis=1)
        channels += 4
    y = g.conv_bn_relu(feats, channels, 8, k=1)
    y = g.op("AveragePool", [y], kernel_shape=[2, 2], strides=[2, 2])
    y = g.op("GlobalAveragePool", [y])
    g.op("Flatten", [y], axis=1)
    return g.model("y", [2, 3, 12, 12], [2, 8])


def test_resnet_style_cnn_matches_onnxruntime_with_dynamic_batch():
    model = resnet_model()
    ex = relax.build(from_onnx(model), "llvm")
    vm = relax.VirtualMachine(ex, tvm.cpu())
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    for batch in (1, 3):
        x = np.random.default_rng(batch).standard_normal((batch, 3, 16, 16)).astype("float32")
        np.testing.assert_allclose(vm["main"](tvm.runtime.tensor(x)).numpy(), sess.run(None, {"x": x})[0],
                                   rtol=1e-4, atol=1e-4)


def test_densenet_style_cnn_matches_onnxruntime():
    model = densenet_model()
    x = np.random.default_rng(7).standard_normal((2, 3, 12, 12)).astype("float32")
    got, want = _run_both(model, {"x": x})
    np.testing.assert_allclose(got.numpy(), want[0], rtol=1e-4, atol=1e-4)


def test_command_line_compile_and_run(tmp_path):
    model_path, lib, inputs, outputs = (str(tmp_path / n) for n in ("m.onnx", "m.so", "in.npz", "out.npz"))
    onnx.save(mlp_model((8, 4, 4, 2)), model_path)
    x = np.random.default_rng(0).standard_normal((3, 8)).astype("float32")
    np.savez(inputs, x=x)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))

    def cli(*args):
        return subprocess.run([sys.executable, "-m", "tvm.driver"] + list(args), env=env,
                              capture_output=True, text=True, timeout=300)
    proc = cli("compile", model_path, "-o", lib)
    assert proc.returncode == 0, proc.stderr
    assert "compiling" in proc.stderr and "done" in proc.stderr
    proc = cli("run", lib, "--inputs", inputs, "--outputs", outputs)
    assert proc.returncode == 0, proc.stderr
    want = ort.InferenceSession(model_path, providers=["CPUExecutionProvider"]).run(None, {"x": x})[0]
    np.testing.assert_allclose(np.load(outputs)["output_0"], want, rtol=1e-5, atol=1e-6)
    bad = str(tmp_path / "bad.onnx")
    open(bad, "wb").write(b"not onnx")
    for args in (("compile", bad, "-o", lib), ("run", str(tmp_path / "missing.so")),
                 ("compile", model_path, "-o", lib, "--input-shapes", "x"), ("run", lib, "--inputs", bad)):
        proc = cli(*args)
        assert proc.returncode == 2 and proc.stderr.startswith("error:") or "error:" in proc.stderr, (args, proc.stderr)
        assert "Traceback" not in proc.stderr


def test_same_library_runs_in_cpp_app_and_runtime_only_python(tmp_path):
    """One compiled .so, run by examples/cpp_deploy/run_model (C++, runtime only) and by a
    runtime-only Python process: identical outputs."""
    app = os.environ.get("RUN_MODEL")
    assert app and os.path.exists(app), "RUN_MODEL (//examples/cpp_deploy:run_model) not given"
    lib = str(tmp_path / "resnet.so")
    relax.build(from_onnx(resnet_model()), "llvm").export_library(lib)
    x = np.random.default_rng(11).standard_normal((2, 3, 16, 16)).astype("float32")
    np.save(str(tmp_path / "x.npy"), x)
    proc = subprocess.run([app, lib, str(tmp_path / "cpp.npy"), str(tmp_path / "x.npy")],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    script = ("import sys, numpy as np, tvm, tvm_ffi\n"
              "from tvm.runtime.vm import VirtualMachine\n"
              "assert tvm.base.RUNTIME_ONLY\n"
              "vm = VirtualMachine(tvm_ffi.load_module(sys.argv[1]), tvm.cpu())\n"
              "np.save(sys.argv[3], vm['main'](tvm.runtime.tensor(np.load(sys.argv[2]))).numpy())\n")
    proc = subprocess.run([sys.executable, "-c", script, lib, str(tmp_path / "x.npy"), str(tmp_path / "py.npy")],
                          env=dict(os.environ, TVM_USE_RUNTIME_LIB="1", PYTHONPATH=os.pathsep.join(sys.path)),
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    np.testing.assert_array_equal(np.load(str(tmp_path / "cpp.npy")), np.load(str(tmp_path / "py.npy")))
    # bad input to the app: a clear message, exit status 1
    proc = subprocess.run([app, lib, str(tmp_path / "o.npy"), lib], capture_output=True, text=True)
    assert proc.returncode == 1 and "not a .npy file" in proc.stderr


def _range_model(elem):
    node = helper.make_node("Range", ["start", "limit", "delta"], ["y"])
    graph = helper.make_graph([node], "range", [helper.make_tensor_value_info(n, elem, []) for n in ("start", "limit", "delta")],
                              [helper.make_tensor_value_info("y", elem, ["n"])])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


@pytest.mark.parametrize("elem,dtype", [(TensorProto.INT64, "int64"), (TensorProto.FLOAT, "float32")])
def test_range_with_bounds_at_run_time_matches_onnxruntime(elem, dtype):
    # one compiled model, many lengths: the length is read from the data at run time
    model = _range_model(elem)
    vm = relax.VirtualMachine(relax.build(from_onnx(model), "llvm"), tvm.cpu())
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])

    @settings(max_examples=25, deadline=None)
    @given(start=st.integers(-20, 20), limit=st.integers(-20, 20),
           delta=st.integers(-6, 6).filter(lambda d: d != 0), frac=st.sampled_from([1, 2, 4]))
    def check(start, limit, delta, frac):
        div = 1 if dtype == "int64" else frac   # float bounds with fractions
        feeds = {k: np.array(v / div if div > 1 else v, dtype) for k, v in
                 (("start", start), ("limit", limit), ("delta", delta))}
        got = vm["main"](*[tvm.runtime.tensor(v) for v in feeds.values()]).numpy()
        want = sess.run(None, feeds)[0]
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-6)
    check()


def _pad_slice_model(mode):
    """x [n, m] (dynamic) padded by run-time pads, then sliced by run-time starts/ends/steps,
    and the Shape of the padded tensor: every output extent is known only from the data."""
    nodes = [helper.make_node("Pad", ["x", "pads", "value"], ["padded"], mode=mode),
             helper.make_node("Slice", ["padded", "starts", "ends", "axes", "steps"], ["y"]),
             helper.make_node("Shape", ["padded"], ["shape"])]
    ints = lambda name, n: helper.make_tensor_value_info(name, TensorProto.INT64, [n])  # noqa: E731
    graph = helper.make_graph(
        nodes, "pad_slice",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", "m"]), ints("pads", 4),
         helper.make_tensor_value_info("value", TensorProto.FLOAT, []), ints("starts", 2), ints("ends", 2),
         ints("steps", 2)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["p", "q"]),
         helper.make_tensor_value_info("shape", TensorProto.INT64, [2])],
        [numpy_helper.from_array(np.array([0, 1], "int64"), "axes")])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])


@pytest.mark.parametrize("mode", ["constant", "edge"])
def test_pad_slice_shape_at_run_time_match_onnxruntime(mode):
    model = _pad_slice_model(mode)
    vm = relax.VirtualMachine(relax.build(from_onnx(model), "llvm"), tvm.cpu())
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    small = st.integers(-7, 7)

    @settings(max_examples=25, deadline=None)
    @given(n=st.integers(1, 5), m=st.integers(1, 5), pads=st.lists(st.integers(-1, 3), min_size=4, max_size=4),
           starts=st.lists(small, min_size=2, max_size=2), ends=st.lists(small, min_size=2, max_size=2),
           steps=st.lists(st.sampled_from([1, 2, -1, -3]), min_size=2, max_size=2), seed=st.integers(0, 99))
    def check(n, m, pads, starts, ends, steps, seed):
        feeds = {"x": np.random.default_rng(seed).standard_normal((n, m)).astype("float32"),
                 "pads": np.array(pads, "int64"), "value": np.array(0.5, "float32"),
                 "starts": np.array(starts, "int64"), "ends": np.array(ends, "int64"),
                 "steps": np.array(steps, "int64")}
        if n + pads[0] + pads[2] < 0 or m + pads[1] + pads[3] < 0:
            with pytest.raises(ValueError, match="negative tensor extent"):
                vm["main"](*[tvm.runtime.tensor(v) for v in feeds.values()])
            return  # cropped below nothing: a typed error, not a bad allocation
        crop = [min(p, 0) for p in pads]
        if mode == "edge" and (n + crop[0] + crop[2] < 1 or m + crop[1] + crop[3] < 1):
            return  # cropped to nothing: nothing for edge mode to repeat (onnxruntime refuses it)
        got = vm["main"](*[tvm.runtime.tensor(v) for v in feeds.values()])
        want = sess.run(None, feeds)
        for g, w in zip(got, want):
            assert g.numpy().shape == w.shape and g.numpy().dtype == w.dtype
            np.testing.assert_array_equal(g.numpy(), w)
    check()


def test_pad_with_run_time_pads_in_reflect_mode_converts():
    # reflect (and wrap) gather mirrored (modular) positions since issue 20's third slice
    from_onnx(_pad_slice_model("reflect"))


@settings(max_examples=5, deadline=None)
@given(n=st.integers(1, 4), c=st.integers(1, 3), hw=st.integers(1, 4), momentum=st.floats(0.0, 1.0),
       seed=st.integers(0, 99))
def test_batchnorm_training_mode_matches_numpy(n, c, hw, momentum, seed):
    node = helper.make_node("BatchNormalization", ["x", "s", "b", "m", "v"], ["y", "rm", "rv"],
                            training_mode=1, momentum=momentum, epsilon=1e-3)
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, c, hw, hw)).astype("float32")
    s, b = rng.standard_normal(c).astype("float32"), rng.standard_normal(c).astype("float32")
    m, v = rng.standard_normal(c).astype("float32"), rng.random(c).astype("float32") + 0.5
    vi = lambda name, shape: helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)  # noqa: E731
    graph = helper.make_graph([node], "bn", [vi("x", list(x.shape))],
                              [vi("y", list(x.shape)), vi("rm", [c]), vi("rv", [c])],
                              [numpy_helper.from_array(a, k) for a, k in ((s, "s"), (b, "b"), (m, "m"), (v, "v"))])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 15)])
    got = relax.VirtualMachine(relax.build(from_onnx(model), "llvm"), tvm.cpu())["main"](tvm.runtime.tensor(x))
    mean, var = x.mean(axis=(0, 2, 3)), x.var(axis=(0, 2, 3))
    bc = lambda a: a.reshape(1, c, 1, 1)  # noqa: E731
    want = [bc(s) * (x - bc(mean)) / np.sqrt(bc(var) + 1e-3) + bc(b),
            m * momentum + mean * (1 - momentum), v * momentum + var * (1 - momentum)]
    for g, w in zip(got, want):
        np.testing.assert_allclose(g.numpy(), w, rtol=1e-4, atol=1e-4)
