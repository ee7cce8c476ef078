"""A BERT-class encoder as an ONNX model, the way exporters write BERT at opset 17: `layers`
post-norm encoder layers (MatMul + Add projections with biases, Reshape/Transpose into heads,
scaled scores plus an additive padding mask, Softmax, output projection, residual,
LayerNormalization, a GELU (Erf) feed-forward of 4 x hidden, residual, LayerNormalization).
Inputs: x (batch, seq, hidden) — the embedded tokens — and mask (batch, seq), 1 for tokens
and 0 for padding. Weights are seeded random.

    from bert_model import bert_encoder_model
    model, feeds = bert_encoder_model(layers=6, hidden=384, heads=6, seq=128, batch=8)
"""

import numpy as np


def bert_encoder_model(layers=6, hidden=384, heads=6, seq=128, batch=1, seed=0):
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(seed)
    d, hd, ffn = hidden, hidden // heads, 4 * hidden
    inits, nodes = [], []

    def const(name, value):
        inits.append(numpy_helper.from_array(np.asarray(value), name))
        return name

    def weight(name, shape):
        return const(name, (rng.standard_normal(shape) / np.sqrt(shape[0])).astype("float32"))

    def bias(name, n):
        return const(name, (rng.standard_normal(n) * 0.02).astype("float32"))

    def node(op, inputs, out, **attrs):
        nodes.append(helper.make_node(op, inputs, [out], **attrs))
        return out

    const("shape_heads", np.array([batch, seq, heads, hd]))
    const("shape_back", np.array([batch, seq, d]))
    const("scale", np.array(1 / np.sqrt(hd), "float32"))
    const("sqrt2", np.array(np.sqrt(2), "float32"))
    const("one", np.array(1.0, "float32"))
    const("half", np.array(0.5, "float32"))
    const("neg", np.array(-1e4, "float32"))
    const("axes12", np.array([1, 2]))
    # The additive mask, shared by every layer: (1 - mask) * -1e4 as (batch, 1, 1, seq).
    m = node("Sub", ["one", "mask"], "m0")
    m = node("Unsqueeze", [node("Mul", [m, "neg"], "m1"), "axes12"], "m2")
    x = "x"
    for i in range(layers):
        p = "l%d_" % i

        def proj(src, name, n_in, n_out):
            return node("Add", [node("MatMul", [src, weight(p + "w" + name, (n_in, n_out))], p + name + "0"),
                                bias(p + "b" + name, n_out)], p + name + "1")

        def heads_of(t, name, perm):
            return node("Transpose", [node("Reshape", [t, "shape_heads"], p + name + "h")], p + name + "t", perm=perm)

        q = heads_of(proj(x, "q", d, d), "q", [0, 2, 1, 3])
        k = heads_of(proj(x, "k", d, d), "k", [0, 2, 3, 1])
        v = heads_of(proj(x, "v", d, d), "v", [0, 2, 1, 3])
        s = node("Mul", [node("MatMul", [q, k], p + "s0"), "scale"], p + "s1")
        prob = node("Softmax", [node("Add", [s, m], p + "s2")], p + "p", axis=-1)
        o = node("Transpose", [node("MatMul", [prob, v], p + "a0")], p + "a1", perm=[0, 2, 1, 3])
        o = proj(node("Reshape", [o, "shape_back"], p + "a2"), "o", d, d)
        ln0 = node("LayerNormalization", [node("Add", [o, x], p + "r0"), const(p + "g0", np.ones(d, "float32")),
                                          const(p + "b0", np.zeros(d, "float32"))], p + "ln0", axis=-1, epsilon=1e-12)
        f = proj(ln0, "f1", d, ffn)
        g = node("Mul", [f, node("Add", [node("Erf", [node("Div", [f, "sqrt2"], p + "g0d")], p + "g1"), "one"], p + "g2")],
                 p + "g3")
        f = proj(node("Mul", [g, "half"], p + "g4"), "f2", ffn, d)
        x = node("LayerNormalization", [node("Add", [f, ln0], p + "r1"), const(p + "g1w", np.ones(d, "float32")),
                                        const(p + "b1w", np.zeros(d, "float32"))], p + "y", axis=-1, epsilon=1e-12)
    nodes.append(helper.make_node("Identity", [x], ["y"]))
    graph = helper.make_graph(nodes, "bert_encoder",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [batch, seq, d]),
                               helper.make_tensor_value_info("mask", TensorProto.FLOAT, [batch, seq])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [batch, seq, d])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    mask = np.ones((batch, seq), "float32")
    for b in range(batch):  # padded batch: sequence b has seq - 7 * b real tokens (at least 1)
        mask[b, max(1, seq - 7 * b):] = 0
    feeds = {"x": rng.standard_normal((batch, seq, d)).astype("float32"), "mask": mask}
    return model, feeds
