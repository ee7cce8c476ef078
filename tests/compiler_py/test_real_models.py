"""Real architectures with random weights (issue 20, acceptance 3), each exported two ways:

1. torch.onnx.export (the TorchScript exporter, dynamo=False, opset 17) -> from_onnx ->
   tvm.compile for llvm, compared with onnxruntime on the same model; the compiled module is
   exported to one .so and run again in a runtime-only Python process (TVM_USE_RUNTIME_LIB=1),
   whose outputs must equal the in-process ones bit for bit (same code, same inputs).
2. torch.export.export -> from_exported_program -> compiled, compared with the eager module.

The models: a U-Net (ConvTranspose, GroupNorm, skip concats), an LSTM tagger (torch.nn.LSTM,
two layers, bidirectional), a GPT-2 decoder (transformers' GPT2LMHeadModel from a small
GPT2Config: causal mask, past key/values as inputs and outputs, dynamic sequence and past
lengths) and a BERT encoder (transformers' BertModel from a small BertConfig; torch.export
only, as the brief asks). Weights are random (fixed seeds), nothing is downloaded.

Tolerances (float32 throughout; see docs/frontends.md for the measured differences): rtol =
atol = 1e-4 for the convolutional and recurrent models, 2e-4 for the transformers (longer
reduction chains: softmax over the whole past, GELU with tanh, layer norms).
"""

import io

import numpy as np
import pytest

import onnx  # noqa: F401  (requirements-test.txt)
import torch
import torch.nn as nn
from torch.export import Dim

import tvm  # noqa: E402
from tvm import relax  # noqa: E402
from tvm.relax.frontend.torch import from_exported_program  # noqa: E402

from model_checks import flatten  # noqa: E402
from onnx_checks import check_model  # noqa: E402


# ---------------------------------------------------------------- helpers

def _onnx_export(module, args, input_names, output_names, dynamic_axes):
    buf = io.BytesIO()
    with torch.no_grad():
        torch.onnx.export(module, tuple(args), buf, dynamo=False, opset_version=17,
                          input_names=input_names, output_names=output_names, dynamic_axes=dynamic_axes)
    return onnx.load_from_string(buf.getvalue())


def check_torch_export(module, arg_sets, rtol, atol, dynamic_shapes=None):
    """torch.export (with dynamic_shapes, first argument set) -> from_exported_program ->
    compile, vs the eager module on every argument set."""
    with torch.no_grad():
        ep = torch.export.export(module, tuple(arg_sets[0]), dynamic_shapes=dynamic_shapes)
    vm = relax.VirtualMachine(tvm.compile(from_exported_program(ep), "llvm"), tvm.cpu())
    for args in arg_sets:
        with torch.no_grad():
            want = module(*args)
        want = [t.numpy() for t in (want if isinstance(want, (tuple, list)) else (want,))]
        got = flatten(vm["main"](*[tvm.runtime.tensor(a.numpy()) for a in args]))
        assert len(got) == len(want)
        for g, w in zip(got, want):
            assert g.shape == w.shape, (g.shape, w.shape)
            np.testing.assert_allclose(g, w, rtol=rtol, atol=atol)


# ---------------------------------------------------------------- U-Net (ConvTranspose)

class _DoubleConv(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1), nn.GroupNorm(2, cout), nn.ReLU(),
                                  nn.Conv2d(cout, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU())

    def forward(self, x):
        return self.body(x)


class UNet(nn.Module):
    """Two down levels, a bottleneck, two up levels by transposed convolution with skip
    concatenation (the U-Net of Ronneberger et al., narrowed)."""

    def __init__(self):
        super().__init__()
        self.enc1, self.enc2, self.mid = _DoubleConv(3, 8), _DoubleConv(8, 16), _DoubleConv(16, 32)
        self.pool = nn.MaxPool2d(2)
        self.up2, self.dec2 = nn.ConvTranspose2d(32, 16, 2, stride=2), _DoubleConv(32, 16)
        self.up1, self.dec1 = nn.ConvTranspose2d(16, 8, 2, stride=2), _DoubleConv(16, 8)
        self.head = nn.Conv2d(8, 2, 1)

    def forward(self, x):
        a = self.enc1(x)
        b = self.enc2(self.pool(a))
        m = self.mid(self.pool(b))
        y = self.dec2(torch.cat([self.up2(m), b], 1))
        y = self.dec1(torch.cat([self.up1(y), a], 1))
        return self.head(y)


def _unet():
    torch.manual_seed(0)
    model = UNet().eval()
    with torch.no_grad():  # non-trivial running statistics, so batch norm is not the identity
        for m in model.modules():
            if isinstance(m, nn.BatchNorm2d):
                m.running_mean.uniform_(-0.2, 0.2)
                m.running_var.uniform_(0.5, 1.5)
    return model


def _images(seed, *shapes):
    g = torch.Generator().manual_seed(seed)
    return [torch.randn(*s, generator=g) for s in shapes]


def test_unet_onnx_matches_onnxruntime_and_runs_runtime_only(tmp_path):
    model = _unet()
    x = _images(1, (1, 3, 64, 64))[0]
    onnx_model = _onnx_export(model, [x], ["x"], ["y"], {"x": {0: "N"}})
    assert "ConvTranspose" in {n.op_type for n in onnx_model.graph.node}
    feeds = [[x.numpy()], [_images(2, (2, 3, 64, 64))[0].numpy()]]
    check_model(onnx_model, feeds, tmp_path, rtol=1e-4, atol=1e-4)


def test_unet_torch_export_matches_eager():
    model = _unet()
    xs = _images(3, (2, 3, 64, 64), (1, 3, 64, 64))  # export at 2: torch specializes a 1
    check_torch_export(model, [[xs[0]], [xs[1]]], rtol=1e-4, atol=1e-4,
                       dynamic_shapes=({0: Dim("batch", min=1, max=8)},))


# ---------------------------------------------------------------- LSTM tagger

class LSTMTagger(nn.Module):
    """Embedding -> bidirectional LSTM -> linear tag scores, plus a GRU over the same
    embeddings (both recurrent kinds in one model), batch-first, dynamic batch. Short
    sequences: both frontends unroll the steps and compile time grows with them."""

    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(50, 16)
        self.lstm = nn.LSTM(16, 24, batch_first=True, bidirectional=True)
        self.gru = nn.GRU(16, 12, batch_first=True)
        self.out = nn.Linear(48 + 12, 5)

    def forward(self, tokens):
        e = self.embed(tokens)
        h, _ = self.lstm(e)
        g, _ = self.gru(e)
        return self.out(torch.cat([h, g], -1))


def _tokens(seed, *shapes):
    g = torch.Generator().manual_seed(seed)
    return [torch.randint(0, 50, s, generator=g) for s in shapes]


def test_lstm_onnx_matches_onnxruntime_and_runs_runtime_only(tmp_path):
    torch.manual_seed(0)
    model = LSTMTagger().eval()
    t = _tokens(1, (2, 5), (3, 5))
    # the batch is dynamic; the sequence length is not (the converter unrolls the steps)
    onnx_model = _onnx_export(model, [t[0]], ["tokens"], ["scores"], {"tokens": {0: "N"}})
    assert {"LSTM", "GRU"} <= {n.op_type for n in onnx_model.graph.node}
    check_model(onnx_model, [[t[0].numpy()], [t[1].numpy()]], tmp_path, rtol=1e-4, atol=1e-4)


def test_lstm_torch_export_matches_eager():
    torch.manual_seed(0)
    model = LSTMTagger().eval()
    t = _tokens(2, (2, 5), (3, 5))
    check_torch_export(model, [[t[0]], [t[1]]], rtol=1e-4, atol=1e-4,
                       dynamic_shapes=({0: Dim("batch", min=1, max=32)},))


# ---------------------------------------------------------------- GPT-2 decoder with a KV cache

def _gpt2():
    from transformers import GPT2Config, GPT2LMHeadModel

    cfg = GPT2Config(n_layer=2, n_embd=64, n_head=4, n_positions=64, vocab_size=100, use_cache=True,
                     attn_implementation="eager")
    torch.manual_seed(0)
    return GPT2LMHeadModel(cfg).eval()


class GPT2Step(nn.Module):
    """One decoding step of transformers' GPT2LMHeadModel with its cache as plain tensors:
    (new tokens, past keys and values per layer) -> (logits, the extended keys and values).
    The causal mask over past + new positions is the model's own."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, ids, k0, v0, k1, v1):
        from transformers import DynamicCache

        cache = DynamicCache(config=self.model.config)
        cache.update(k0, v0, 0)
        cache.update(k1, v1, 1)
        out = self.model(input_ids=ids, past_key_values=cache, use_cache=True)
        layers = out.past_key_values.layers
        return out.logits, layers[0].keys, layers[0].values, layers[1].keys, layers[1].values


def _gpt2_inputs(seed, seq, past):
    g = torch.Generator().manual_seed(seed)
    ids = torch.randint(0, 100, (1, seq), generator=g)
    return [ids] + [torch.randn(1, 4, past, 16, generator=g) for _ in range(4)]


def test_gpt2_onnx_matches_onnxruntime_and_runs_runtime_only(tmp_path):
    step = GPT2Step(_gpt2())
    kv = ["k0", "v0", "k1", "v1"]
    onnx_model = _onnx_export(step, _gpt2_inputs(0, 5, 3), ["ids"] + kv, ["logits"] + ["n" + n for n in kv],
                              dict({"ids": {1: "S"}}, **{n: {2: "P"} for n in kv}))
    # other sequence and past lengths than the export's (a prompt, then single-token steps)
    feeds = [[t.numpy() for t in _gpt2_inputs(s, seq, past)] for s, seq, past in ((1, 6, 2), (2, 1, 9), (3, 4, 1))]
    check_model(onnx_model, feeds, tmp_path, rtol=2e-4, atol=2e-4)


def test_gpt2_torch_export_matches_eager():
    step = GPT2Step(_gpt2())
    seq, past = Dim("seq", min=2, max=32), Dim("past", min=2, max=32)
    args = [_gpt2_inputs(s, n, p) for s, n, p in ((1, 5, 3), (2, 2, 9), (3, 7, 2))]
    check_torch_export(step, args, rtol=2e-4, atol=2e-4,
                       dynamic_shapes=({1: seq},) + tuple({2: past} for _ in range(4)))


# ---------------------------------------------------------------- BERT (torch.export only)

class BertEncode(nn.Module):
    """transformers' BertModel: (token ids, attention mask, token types) -> (sequence output,
    pooled output)."""

    def __init__(self):
        super().__init__()
        from transformers import BertConfig, BertModel

        cfg = BertConfig(vocab_size=120, hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
                         intermediate_size=128, max_position_embeddings=64, attn_implementation="eager")
        torch.manual_seed(0)
        self.bert = BertModel(cfg).eval()

    def forward(self, ids, mask, types):
        out = self.bert(input_ids=ids, attention_mask=mask, token_type_ids=types)
        return out.last_hidden_state, out.pooler_output


def _bert_inputs(seed, batch, seq):
    g = torch.Generator().manual_seed(seed)
    ids = torch.randint(0, 120, (batch, seq), generator=g)
    mask = torch.ones(batch, seq, dtype=torch.int64)
    mask[0, seq - 2:] = 0  # padding in the first sequence
    types = torch.randint(0, 2, (batch, seq), generator=g)
    return [ids, mask, types]


def test_bert_torch_export_matches_eager():
    check_torch_export(BertEncode(), [_bert_inputs(s, 2, 9) for s in (1, 2)], rtol=2e-4, atol=2e-4)
