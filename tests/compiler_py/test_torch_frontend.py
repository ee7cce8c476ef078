"""The torch.export frontend (tvm.relax.frontend.torch.from_exported_program): four small
real architectures (an MLP, a ResNet-style CNN with batch norm and pooling, a DenseNet /
Inception-style CNN with concat and split, a BERT-style encoder with embeddings, masked
attention, layer norm and GELU) exported with torch.export.export, converted, built for llvm
and run on the Relax VM, compared with the eager module in eval mode.

Tolerance: float32 everywhere, rtol=1e-4 and atol=1e-4 (measured differences are below 1e-6:
our kernels compute in float32 in another order than torch's, nothing is approximated). Both
decomposition modes are checked (run_ep_decomposition=True: core ATen, addmm/convolution/
_native_batch_norm_legit_no_training/native_layer_norm/_softmax/bmm...; False: linear/conv2d/
batch_norm/layer_norm/scaled_dot_product_attention as exported); a dynamic batch
(torch.export.Dim) runs with two batch sizes; unsupported ops give one TorchOpError naming
every op overload and node; keep_params_as_input; `import tvm` does not import torch.
"""

import os
import subprocess
import sys

import numpy as np
import pytest

import torch  # requirements-test.txt (CPU wheel)
import torch.nn as nn
import torch.nn.functional as F
from torch.export import Dim

import tvm  # noqa: E402
from tvm import relax  # noqa: E402
from tvm.relax.frontend.torch import TorchOpError, from_exported_program  # noqa: E402

RTOL = ATOL = 1e-4


# ---------------------------------------------------------------- the four architectures

class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(784, 64)
        self.fc2 = nn.Linear(64, 10)

    def forward(self, x):
        return self.fc2(F.relu(self.fc1(x)))


class BasicBlock(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.down = None
        if stride != 1 or cin != cout:
            self.down = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        y = F.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        return F.relu(y + (x if self.down is None else self.down(x)))


class ResNetish(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, 1, 1, bias=False), nn.BatchNorm2d(16), nn.ReLU(),
                                  nn.MaxPool2d(3, 2, 1))
        self.layer1 = BasicBlock(16, 16, 1)
        self.layer2 = BasicBlock(16, 32, 2)
        self.fc = nn.Linear(32, 10)

    def forward(self, x):
        x = self.layer2(self.layer1(self.stem(x)))
        return self.fc(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))


class DenseInceptionish(nn.Module):
    """A dense block (each layer's output concatenated to its input), a transition with ReLU6
    and average pooling, then an inception-style block (1x1, 3x3, max-pool branches and a
    split) concatenated, global mean, linear."""

    def __init__(self, growth=4):
        super().__init__()
        self.stem = nn.Conv2d(3, 8, 3, padding=1)
        self.dense = nn.ModuleList([
            nn.Sequential(nn.BatchNorm2d(8 + growth * i), nn.ReLU(), nn.Conv2d(8 + growth * i, growth, 3, padding=1))
            for i in range(3)])
        self.trans = nn.Sequential(nn.BatchNorm2d(20), nn.ReLU6(), nn.Conv2d(20, 16, 1), nn.AvgPool2d(2))
        self.b1 = nn.Conv2d(16, 8, 1)
        self.b3 = nn.Conv2d(16, 8, 3, padding=1)
        self.pool = nn.MaxPool2d(3, 1, 1)
        self.fc = nn.Linear(32, 10)

    def forward(self, x):
        x = self.stem(x)
        for layer in self.dense:
            x = torch.cat([x, layer(x)], 1)
        x = self.trans(x)
        a, b = torch.split(x, [8, 8], dim=1)
        x = torch.cat([self.b1(x), self.b3(x), self.pool(a), b], 1)
        return self.fc(x.mean(dim=(2, 3)))


class BertLayer(nn.Module):
    def __init__(self, d, heads, use_sdpa):
        super().__init__()
        self.q, self.k, self.v, self.o = (nn.Linear(d, d) for _ in range(4))
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.ff1, self.ff2 = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)
        self.heads, self.d, self.use_sdpa = heads, d, use_sdpa

    def forward(self, x, mask):
        b, t, _ = x.shape
        h, dh = self.heads, self.d // self.heads

        def split(y):
            return y.view(b, t, h, dh).transpose(1, 2)
        q, k, v = split(self.q(x)), split(self.k(x)), split(self.v(x))
        if self.use_sdpa:
            a = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        else:
            a = torch.softmax(q @ k.transpose(-1, -2) / dh ** 0.5 + mask, dim=-1) @ v
        a = a.transpose(1, 2).reshape(b, t, self.d)
        x = self.ln1(x + self.o(a))
        return self.ln2(x + self.ff2(F.gelu(self.ff1(x))))


class BertEncoder(nn.Module):
    """Token + position + segment embeddings, layer norm, 2 layers of masked multi-head
    attention and a GELU feed-forward, the [CLS] row out."""

    def __init__(self, vocab=100, seq=16, d=32, heads=2, layers=2, use_sdpa=True):
        super().__init__()
        self.tok, self.pos, self.seg = nn.Embedding(vocab, d), nn.Embedding(seq, d), nn.Embedding(2, d)
        self.ln = nn.LayerNorm(d)
        self.layers = nn.ModuleList([BertLayer(d, heads, use_sdpa) for _ in range(layers)])

    def forward(self, ids, attention_mask):
        b, t = ids.shape
        pos = torch.arange(t).unsqueeze(0).expand(b, t)
        x = self.ln(self.tok(ids) + self.pos(pos) + self.seg(torch.zeros_like(ids)))
        mask = (1.0 - attention_mask[:, None, None, :].to(torch.float32)) * -10000.0
        for layer in self.layers:
            x = layer(x, mask)
        return x[:, 0]


def _inputs(name, batch, seed=0):
    g = torch.Generator().manual_seed(seed + batch)
    if name == "mlp":
        return (torch.randn(batch, 784, generator=g),)
    if name == "resnet":
        return (torch.randn(batch, 3, 32, 32, generator=g),)
    if name == "dense":
        return (torch.randn(batch, 3, 16, 16, generator=g),)
    ids = torch.randint(0, 100, (batch, 16), generator=g)
    lengths = torch.randint(4, 17, (batch,), generator=g)
    mask = (torch.arange(16)[None, :] < lengths[:, None]).to(torch.int64)
    return (ids, mask)


def _model(name, **kw):
    torch.manual_seed(0)
    m = {"mlp": MLP, "resnet": ResNetish, "dense": DenseInceptionish, "bert": BertEncoder}[name](**kw)
    for mod in m.modules():  # non-trivial batch-norm statistics
        if isinstance(mod, nn.BatchNorm2d):
            mod.running_mean.uniform_(-0.5, 0.5)
            mod.running_var.uniform_(0.5, 2.0)
    return m.eval()


def _run(mod, inputs):
    ex = relax.build(mod, "llvm")
    vm = relax.VirtualMachine(ex, tvm.cpu())
    return vm["main"](*[tvm.runtime.tensor(x.numpy()) for x in inputs])


def _check(model, inputs, mod):
    out = _run(mod, inputs)
    got = out[0].numpy()  # the result is a tuple (TVM's convention)
    with torch.no_grad():
        want = model(*inputs).numpy()
    np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("decompose", [True, False], ids=["core_aten", "undecomposed"])
@pytest.mark.parametrize("name", ["mlp", "resnet", "dense", "bert"])
def test_architecture_matches_torch(name, decompose):
    model = _model(name)
    inputs = _inputs(name, 2)
    ep = torch.export.export(model, inputs)
    _check(model, inputs, from_exported_program(ep, run_ep_decomposition=decompose))


def test_bert_without_sdpa_matches_torch():
    """Attention written out (matmul, scale, mask add, softmax) rather than through SDPA."""
    model = _model("bert", use_sdpa=False)
    inputs = _inputs("bert", 3)
    _check(model, inputs, from_exported_program(torch.export.export(model, inputs)))


def test_core_aten_ops_are_what_the_converters_see():
    """The decomposed CNN and encoder graphs use the core ATen overloads (so the converters
    keyed by them are exercised), the undecomposed encoder uses linear and SDPA."""
    def ops(ep):
        return {str(n.target) for n in ep.graph.nodes if n.op == "call_function"}
    ep = torch.export.export(_model("resnet"), _inputs("resnet", 2))
    dec = ops(ep.run_decompositions())
    assert {"aten.convolution.default", "aten._native_batch_norm_legit_no_training.default",
            "aten.max_pool2d_with_indices.default", "aten.addmm.default"} <= dec
    ep = torch.export.export(_model("bert"), _inputs("bert", 2))
    assert {"aten.linear.default", "aten.scaled_dot_product_attention.default"} <= ops(ep)
    assert {"aten.native_layer_norm.default", "aten._softmax.default", "aten.bmm.default",
            "aten.embedding.default", "aten.gelu.default"} <= ops(ep.run_decompositions())


@pytest.mark.parametrize("decompose", [True, False], ids=["core_aten", "undecomposed"])
@pytest.mark.parametrize("name", ["mlp", "resnet"])
def test_dynamic_batch(name, decompose):
    model = _model(name)
    batch = Dim("batch", min=1, max=64)
    ep = torch.export.export(model, _inputs(name, 2), dynamic_shapes={"x": {0: batch}})
    mod = from_exported_program(ep, run_ep_decomposition=decompose)
    (param,) = mod["main"].params
    assert isinstance(param.struct_info.shape[0], tvm.tir.Var)
    ex = relax.build(mod, "llvm")
    vm = relax.VirtualMachine(ex, tvm.cpu())
    for b in (1, 5):
        inputs = _inputs(name, b)
        got = vm["main"](*[tvm.runtime.tensor(x.numpy()) for x in inputs])[0].numpy()
        with torch.no_grad():
            want = model(*inputs).numpy()
        assert got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("decompose", [True, False], ids=["core_aten", "undecomposed"])
def test_dynamic_batch_encoder(decompose):
    """Core ATen flattens (b, t, d) to (b*t, d) around addmm and (b, h, t, e) to (b*h, t, e)
    around bmm: the frontend keeps those reshapes deferred and matmuls the un-flattened
    tensors, so no dimension is computed from the symbolic batch."""
    model = _model("bert")
    batch = Dim("batch", min=1, max=32)
    ep = torch.export.export(model, _inputs("bert", 2),
                             dynamic_shapes={"ids": {0: batch}, "attention_mask": {0: batch}})
    mod = from_exported_program(ep, run_ep_decomposition=decompose, unwrap_unit_return_tuple=True)
    ex = relax.build(mod, "llvm")
    vm = relax.VirtualMachine(ex, tvm.cpu())
    for b in (1, 3):
        inputs = _inputs("bert", b)
        got = vm["main"](*[tvm.runtime.tensor(x.numpy()) for x in inputs]).numpy()
        with torch.no_grad():
            want = model(*inputs).numpy()
        np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL)


# ---------------------------------------------------------------- more ops

class ElementwiseAndIndexing(nn.Module):
    """Slicing, integer-array indexing, select with a negative index, comparisons with
    scalars, bool logic, where with a scalar, creation ops, mm/t, reductions, casts."""

    def forward(self, x, y, idx, m):
        a = x[:, 1:5] * 2.0 - 1
        b = x[idx]
        c = torch.where(x > 0, x, 0.5)
        keep = (x >= 0.1) & (m == 1)
        d = torch.where(~keep, torch.zeros_like(x), x.sigmoid())
        e = torch.tanh(x).pow(2) + torch.rsqrt(x.abs() + 1) / 2
        f = x.t() @ y
        g = F.hardtanh(x, -0.5, 0.5) + torch.clamp(x, min=-0.2) + F.leaky_relu(x, 0.1)
        h1, h2 = torch.chunk(x, 2, dim=1)
        s = x[-1] + torch.full((8,), 3.0) + torch.arange(0, 16, 2).float()
        lsm = F.log_softmax(x, dim=-1).amax(dim=0) + x.sum(dim=1).unsqueeze(1).squeeze(1).mean()
        flags = keep.any(dim=1).float()
        return (a, b, c, d, e, f, g, h1 * h2, s, lsm, flags, torch.exp(x).sqrt().log(),
                x.to(torch.int64) // 1)


class ConvAndPoolVariants(nn.Module):
    """Depthwise dilated conv, batch norm without affine, relu6, ceil-mode average pooling
    without padded elements, non-global adaptive pooling, conv1d, silu, softmax."""

    def __init__(self):
        super().__init__()
        self.dw = nn.Conv2d(8, 8, 3, padding=2, dilation=2, groups=8)
        self.c1 = nn.Conv1d(4, 6, 3, stride=2, padding=1)
        self.bn = nn.BatchNorm2d(8, affine=False)

    def forward(self, x, s):
        y = F.relu6(self.bn(self.dw(x)))
        p = F.avg_pool2d(y, 3, 2, 1, ceil_mode=True, count_include_pad=False)
        return (p, F.max_pool2d(y, 2), F.adaptive_avg_pool2d(y, 2), F.silu(self.c1(s)),
                torch.flatten(y, 2).softmax(-1))


@pytest.mark.parametrize("decompose", [True, False], ids=["core_aten", "undecomposed"])
@pytest.mark.parametrize("case", ["elementwise_indexing", "conv_pool"])
def test_more_ops_match_torch(case, decompose):
    torch.manual_seed(0)
    if case == "elementwise_indexing":
        model = ElementwiseAndIndexing()
        args = (torch.randn(6, 8), torch.randn(6, 3), torch.tensor([0, 2, -1]), torch.randint(0, 2, (6, 8)))
    else:
        model = ConvAndPoolVariants().eval()
        model.bn.running_mean.uniform_(-1, 1)
        model.bn.running_var.uniform_(0.5, 2)
        args = (torch.randn(2, 8, 9, 9), torch.randn(2, 4, 11))
    mod = from_exported_program(torch.export.export(model, args), run_ep_decomposition=decompose)
    out = _run(mod, args)
    with torch.no_grad():
        want = model(*args)
    for i, w in enumerate(want):
        got = out[i].numpy()
        assert got.dtype == w.numpy().dtype, (i, got.dtype, w.dtype)
        np.testing.assert_allclose(got, w.numpy(), rtol=RTOL, atol=ATOL, err_msg="output %d" % i)


@pytest.mark.parametrize("decompose", [True, False], ids=["core_aten", "undecomposed"])
def test_dynamic_batch_flattened_rows(decompose):
    """x.reshape(-1, d) of a (b, t, d) input has b*t rows: linear and relu run on the
    un-flattened tensor and the view back to (b, t, n) cancels the flattening."""
    class Rows(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(8, 5)

        def forward(self, x):
            b, t, d = x.shape
            return torch.relu(self.fc(x.reshape(-1, d))).view(b, t, 5).sum(1)

    model = Rows().eval()
    ep = torch.export.export(model, (torch.randn(2, 3, 8),), dynamic_shapes={"x": {0: Dim("b", max=50)}})
    mod = from_exported_program(ep, run_ep_decomposition=decompose, unwrap_unit_return_tuple=True)
    vm = relax.VirtualMachine(relax.build(mod, "llvm"), tvm.cpu())
    for b in (1, 6):
        x = torch.randn(b, 3, 8)
        with torch.no_grad():
            want = model(x).numpy()
        np.testing.assert_allclose(vm["main"](tvm.runtime.tensor(x.numpy())).numpy(), want, rtol=RTOL, atol=ATOL)


# ---------------------------------------------------------------- options

def test_keep_params_as_input():
    model = _model("mlp")
    inputs = _inputs("mlp", 3)
    mod, params = from_exported_program(torch.export.export(model, inputs), keep_params_as_input=True)
    func = mod["main"]
    assert int(func.attrs["num_input"]) == 1
    assert [p.name_hint for p in func.params][1:] == ["p_fc1_weight", "p_fc1_bias", "p_fc2_weight", "p_fc2_bias"]
    want_params = [model.fc1.weight, model.fc1.bias, model.fc2.weight, model.fc2.bias]
    assert len(params["main"]) == 4
    for got, want in zip(params["main"], want_params):
        np.testing.assert_array_equal(got, want.detach().numpy())
    ex = relax.build(mod, "llvm")
    vm = relax.VirtualMachine(ex, tvm.cpu())
    args = [tvm.runtime.tensor(x.numpy()) for x in inputs] + [tvm.runtime.tensor(p) for p in params["main"]]
    got = vm["main"](*args)[0].numpy()
    with torch.no_grad():
        np.testing.assert_allclose(got, model(*inputs).numpy(), rtol=RTOL, atol=ATOL)


def test_buffers_are_constants_and_mutations_dropped():
    """BatchNorm buffers become constants even with keep_params_as_input; a buffer mutation
    output (a module updating its own buffer) is not an output of main."""
    class Counter(nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("count", torch.zeros(1))
            self.fc = nn.Linear(4, 2)

        def forward(self, x):
            self.count.add_(1)
            return self.fc(x) + self.count

    model = Counter().eval()
    x = torch.randn(3, 4)
    mod = from_exported_program(torch.export.export(model, (x,)), unwrap_unit_return_tuple=True)
    assert len(mod["main"].params) == 1
    got = _run(mod, (x,)).numpy()
    with torch.no_grad():
        want = model.fc(x).numpy() + 1.0  # the exported program saw count == 0 and adds 1 first
    np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL)

    mod, params = from_exported_program(torch.export.export(_model("resnet"), _inputs("resnet", 1)),
                                        keep_params_as_input=True)
    n_params = len(list(_model("resnet").parameters()))
    assert len(mod["main"].params) == 1 + n_params == 1 + len(params["main"])


def test_return_tuple_options():
    class Two(nn.Module):
        def forward(self, x):
            return x + 1, x * 2

    x = torch.randn(2, 3)
    ep = torch.export.export(nn.ReLU(), (x,))
    assert isinstance(from_exported_program(ep)["main"].ret_struct_info, relax.TupleStructInfo)
    one = from_exported_program(ep, unwrap_unit_return_tuple=True)
    assert isinstance(one["main"].ret_struct_info, relax.TensorStructInfo)
    np.testing.assert_allclose(_run(one, (x,)).numpy(), torch.relu(x).numpy())
    ep2 = torch.export.export(Two(), (x,))
    for nb in (False, True):
        out = _run(from_exported_program(ep2, no_bind_return_tuple=nb, unwrap_unit_return_tuple=True), (x,))
        np.testing.assert_allclose(out[0].numpy(), (x + 1).numpy(), rtol=1e-6)
        np.testing.assert_allclose(out[1].numpy(), (x * 2).numpy(), rtol=1e-6)


# ---------------------------------------------------------------- bad input

def test_unsupported_ops_are_listed_with_nodes():
    class Bad(nn.Module):
        def forward(self, x):
            values = torch.lgamma(x)
            return torch.fft.rfft(values).abs() + torch.cumsum(x, 0)[..., :1]

    ep = torch.export.export(Bad(), (torch.randn(4, 8),))
    with pytest.raises(TorchOpError) as info:
        from_exported_program(ep)
    msg = str(info.value)
    assert "aten.lgamma.default" in msg and "aten._fft_r2c.default" in msg
    assert "aten.cumsum.default" not in msg  # converted since (aten_sort.py)
    assert "lgamma" in msg.split("aten.lgamma.default:")[1].splitlines()[0]  # the node name
    assert "op overload(s) are not supported" in msg
    assert isinstance(info.value, NotImplementedError)


def test_bad_arguments():
    with pytest.raises(TypeError, match="ExportedProgram"):
        from_exported_program(nn.Linear(2, 2))

    class Train(nn.Module):
        def __init__(self):
            super().__init__()
            self.bn = nn.BatchNorm1d(4)

        def forward(self, x):
            return self.bn(x)

    # exported in training mode: batch statistics (not what an inference compiler runs)
    ep = torch.export.export(Train().train(), (torch.randn(3, 4),))
    with pytest.raises(TorchOpError, match="batch_norm|not supported"):
        from_exported_program(ep, run_ep_decomposition=False)

    class Complex(nn.Module):
        def forward(self, x):
            return x * 2

    ep = torch.export.export(Complex(), (torch.randn(2, dtype=torch.complex64),))
    with pytest.raises(TorchOpError, match="complex64"):
        from_exported_program(ep)


def test_import_tvm_does_not_import_torch():
    code = ("import sys, tvm, tvm.relax, tvm.relax.frontend.torch; "
            "bad = [m for m in ('torch', 'onnx') if m in sys.modules]; "
            "assert not bad, bad; print('ok')")
    env = dict(os.environ)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0 and "ok" in out.stdout, out.stderr
