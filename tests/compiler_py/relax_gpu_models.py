"""Two small Relax models the GPU tests and tools/gpu_check share, each with a numpy
reference: an MLP (symbolic batch; matmul + bias + relu, softmax) and a CNN (symbolic batch;
conv + inference batch norm + relu, max pool, a 16-channel conv legalized channels-last, a
mean over the image, dense, softmax)."""

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from tvm import relax, tir
from tvm.relax import op as R


def _main(x, body):
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        with bb.dataflow():
            gv = bb.emit_output(body(bb, x))
        bb.emit_func_output(gv)
    return bb.get()


def _softmax(o):
    e = np.exp(o - o.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def mlp(rng, d_in=64, hidden=32, d_out=10):
    """(IRModule, reference(x) -> y, input shape with None for the batch)."""
    w1 = (rng.standard_normal((d_in, hidden)) * 0.2).astype("float32")
    b1 = rng.standard_normal(hidden).astype("float32")
    w2 = (rng.standard_normal((hidden, d_out)) * 0.2).astype("float32")
    n = tir.Var("n", "int64")

    def body(bb, x):
        h = bb.emit(R.nn.relu(R.add(R.matmul(x, relax.const(w1)), relax.const(b1))))
        return R.nn.softmax(R.matmul(h, relax.const(w2)), axis=-1)

    def ref(x):
        return _softmax(np.maximum(x @ w1 + b1, 0) @ w2)
    return _main(relax.Var("x", relax.TensorStructInfo([n, d_in], "float32")), body), ref, [None, d_in]


def _conv(x, w, pad):
    """NCHW x OIHW, stride 1, in float64."""
    x = np.pad(x, [(0, 0), (0, 0), (pad, pad), (pad, pad)]).astype("float64")
    win = sliding_window_view(x, w.shape[2:], axis=(2, 3))          # n c h w kh kw
    return np.einsum("nchwij,ocij->nohw", win, w.astype("float64"))


def cnn(rng, hw=8, classes=5):
    c1, c2 = 8, 16
    w1 = (rng.standard_normal((c1, 3, 3, 3)) * 0.3).astype("float32")
    gamma, beta = rng.uniform(0.5, 1.5, c1).astype("float32"), rng.standard_normal(c1).astype("float32")
    mean, var = rng.standard_normal(c1).astype("float32"), rng.uniform(0.5, 2, c1).astype("float32")
    w2 = (rng.standard_normal((c2, c1, 3, 3)) * 0.2).astype("float32")
    wd = (rng.standard_normal((c2, classes)) * 0.5).astype("float32")
    n = tir.Var("n", "int64")

    def body(bb, x):
        c = bb.emit(R.nn.conv2d(x, relax.const(w1), padding=1))
        bn = bb.emit(R.nn.batch_norm(c, relax.const(gamma), relax.const(beta), relax.const(mean),
                                     relax.const(var), training=False))
        h = bb.emit(R.nn.relu(relax.TupleGetItem(bn, 0)))
        h = bb.emit(R.nn.max_pool2d(h, 2, 2))
        h = bb.emit(R.nn.relu(R.nn.conv2d(h, relax.const(w2), padding=1)))
        h = bb.emit(R.mean(h, axis=[2, 3]))
        return R.nn.softmax(R.matmul(h, relax.const(wd)), axis=-1)

    def ref(x):
        c = _conv(x, w1, 1)
        c = (c - mean[:, None, None]) / np.sqrt(var[:, None, None] + 1e-5) * gamma[:, None, None] \
            + beta[:, None, None]
        h = np.maximum(c, 0)
        n_, ch, hh, ww = h.shape
        h = h[:, :, :hh // 2 * 2, :ww // 2 * 2].reshape(n_, ch, hh // 2, 2, ww // 2, 2).max(axis=(3, 5))
        h = np.maximum(_conv(h, w2, 1), 0).mean(axis=(2, 3))
        return _softmax(h @ wd)
    x = relax.Var("x", relax.TensorStructInfo([n, 3, hw, hw], "float32"))
    return _main(x, body), ref, [None, 3, hw, hw]
