"""RNN, GRU and LSTM (opsets 7, 14, 22), unrolled at import over the (static) sequence
length: per direction and step, the gates are matmuls of the step's input and the previous
hidden state with the direction's weights, as the ONNX operator definitions give them:

- RNN: H = f(X W^T + H R^T + Wb + Rb)
- GRU (gates z, r, h): z, r = f(...); h~ = g(X Wh^T + (r * H) Rh^T + Rbh + Wbh), or with
  linear_before_reset g(X Wh^T + r * (H Rh^T + Rbh) + Wbh); H = (1 - z) * h~ + z * H
- LSTM (gates i, o, f, c; peepholes P in the order i, o, f): i, f = f(... + P * C),
  c~ = g(...), C = f * C + i * c~, o = f(... + Po * C_new), H = o * h(C)
layout 0: X [seq, batch, input], Y [seq, dirs, batch, hidden], Y_h/Y_c [dirs, batch,
hidden]; layout 1 puts batch first. sequence_lens: a batch entry's steps at or past its
length leave the state as it is and output zeros (the reverse direction therefore starts at
each entry's own last step). `clip` bounds the gates' inputs. The batch may be symbolic (a
model exported with a dynamic batch); the sequence length must be known at import (it is
unrolled) and an unknown one raises NotImplementedError."""

import numpy as np

from ... import expr as _expr
from ... import op as R
from .converters import Converter, register

_GATES = {"RNN": 1, "GRU": 3, "LSTM": 4}
_DEFAULT_ACTS = {"RNN": ["Tanh"], "GRU": ["Sigmoid", "Tanh"], "LSTM": ["Sigmoid", "Tanh", "Tanh"]}


def _k(v, dt):
    return _expr.const(np.asarray(v, dt))


def _activation(name, alpha, beta, dt):
    n = name.lower()
    if n == "tanh":
        return R.tanh
    if n == "sigmoid":
        return R.sigmoid
    if n == "relu":
        return R.nn.relu
    if n == "leakyrelu":
        a = 0.01 if alpha is None else alpha
        return lambda x: R.where(R.less(x, _k(0, dt)), R.multiply(x, _k(a, dt)), x)
    if n == "hardsigmoid":
        a, b = (0.2 if alpha is None else alpha), (0.5 if beta is None else beta)
        return lambda x: R.clip(R.add(R.multiply(x, _k(a, dt)), _k(b, dt)), 0.0, 1.0)
    if n == "affine":
        a, b = (1.0 if alpha is None else alpha), (0.0 if beta is None else beta)
        return lambda x: R.add(R.multiply(x, _k(a, dt)), _k(b, dt))
    if n == "scaledtanh":
        a, b = (1.0 if alpha is None else alpha), (1.0 if beta is None else beta)
        return lambda x: R.multiply(R.tanh(R.multiply(x, _k(b, dt))), _k(a, dt))
    if n == "softsign":
        return lambda x: R.divide(x, R.add(R.abs(x), _k(1, dt)))
    raise NotImplementedError("recurrent activation %s is not supported" % name)


def _activations(op, attrs, dirs, dt):
    names = [a if isinstance(a, str) else a.decode() for a in attrs.get("activations", [])]
    per = len(_DEFAULT_ACTS[op])
    if not names:
        names = _DEFAULT_ACTS[op] * dirs
    alphas = list(attrs.get("activation_alpha", []))
    betas = list(attrs.get("activation_beta", []))
    out = []
    for i, n in enumerate(names):
        out.append(_activation(n, alphas[i] if i < len(alphas) else None,
                               betas[i] if i < len(betas) else None, dt))
    return [out[d * per:(d + 1) * per] for d in range(dirs)]


def _slice(x, axis, i, n):
    return R.strided_slice(x, [axis], [i * n], [(i + 1) * n])


def recurrent(op, ctx, inputs, attrs):
    get = (lambda i: inputs[i] if len(inputs) > i and inputs[i] is not None else None)
    x, w, r, b, seq_lens, h0 = [get(i) for i in range(6)]
    c0, p = (get(6), get(7)) if op == "LSTM" else (None, None)
    layout = int(attrs.get("layout", 0))
    dt = ctx.dtype_of(x)
    from .... import tir

    xs = ctx.shape_of(x)
    if xs is None or not isinstance(xs[1 if layout else 0], tir.IntImm):
        raise NotImplementedError("%s: a sequence length unknown at import (the steps are unrolled)" % op)
    xs = [int(d.value) if isinstance(d, tir.IntImm) else d for d in xs]
    if layout:
        x = R.permute_dims(x, [1, 0, 2])
        h0 = R.permute_dims(h0, [1, 0, 2]) if h0 is not None else None
        c0 = R.permute_dims(c0, [1, 0, 2]) if c0 is not None else None
    t_len, batch = (xs[1], xs[0]) if layout else (xs[0], xs[1])
    hid = int(attrs["hidden_size"])
    direction = attrs.get("direction", "forward")
    dirs = 2 if direction == "bidirectional" else 1
    if int(attrs.get("input_forget", 0)):
        raise NotImplementedError("LSTM input_forget is not supported")
    g = _GATES[op]
    acts = _activations(op, attrs, dirs, dt)
    clip = attrs.get("clip")
    lbr = int(attrs.get("linear_before_reset", 0))
    zeros = _k(np.zeros((batch, hid)), dt) if isinstance(batch, int) else ctx.bb.emit(R.zeros((batch, hid), dt))
    x = ctx.bb.emit(x)
    steps_in = [ctx.bb.emit(R.squeeze(_slice(x, 0, t, 1), [0])) for t in range(t_len)]
    lens = None
    if seq_lens is not None:
        lens = ctx.bb.emit(R.reshape(R.astype(seq_lens, "int64"), [batch, 1]))
    ys, hs, cs = [], [], []
    for d in range(dirs):
        rev = direction == "reverse" or d == 1
        wd = ctx.bb.emit(R.permute_dims(R.squeeze(_slice(w, 0, d, 1), [0])))   # [I, g*H]
        rd = ctx.bb.emit(R.permute_dims(R.squeeze(_slice(r, 0, d, 1), [0])))   # [H, g*H]
        if b is not None:
            bd = ctx.bb.emit(R.squeeze(_slice(b, 0, d, 1), [0]))
            wb, rb = _slice(bd, 0, 0, g * hid), _slice(bd, 0, 1, g * hid)
        else:
            wb = rb = _k(np.zeros(g * hid), dt)
        wb, rb = ctx.bb.emit(wb), ctx.bb.emit(rb)
        h = ctx.bb.emit(R.squeeze(_slice(h0, 0, d, 1), [0])) if h0 is not None else zeros
        c = ctx.bb.emit(R.squeeze(_slice(c0, 0, d, 1), [0])) if c0 is not None else zeros
        pd = ctx.bb.emit(R.squeeze(_slice(p, 0, d, 1), [0])) if p is not None else None
        f = acts[d]

        def clipped(v):
            return R.clip(v, -float(clip), float(clip)) if clip is not None else v
        outs = [None] * t_len
        for t in (range(t_len - 1, -1, -1) if rev else range(t_len)):
            xw = ctx.bb.emit(R.add(R.matmul(steps_in[t], wd), wb))
            if op == "GRU":
                hr = ctx.bb.emit(R.matmul(h, rd))
                z = f[0](clipped(R.add(_slice(xw, 1, 0, hid), R.add(_slice(hr, 1, 0, hid), _slice(rb, 0, 0, hid)))))
                rg = ctx.bb.emit(f[0](clipped(R.add(_slice(xw, 1, 1, hid), R.add(_slice(hr, 1, 1, hid), _slice(rb, 0, 1, hid))))))
                rh = _slice(rd, 1, 2, hid)
                if lbr:
                    inner = R.multiply(rg, R.add(R.matmul(h, rh), _slice(rb, 0, 2, hid)))
                else:
                    inner = R.add(R.matmul(R.multiply(rg, h), rh), _slice(rb, 0, 2, hid))
                hc = f[1](clipped(R.add(_slice(xw, 1, 2, hid), inner)))
                z = ctx.bb.emit(z)
                new_h = R.add(R.multiply(R.subtract(_k(1, dt), z), hc), R.multiply(z, h))
                new_c = c
            else:
                gates = ctx.bb.emit(R.add(xw, R.add(R.matmul(h, rd), rb)))
                if op == "RNN":
                    new_h, new_c = f[0](clipped(gates)), c

                else:
                    def gate(k):
                        return _slice(gates, 1, k, hid)

                    def peep(k, state):
                        return R.multiply(_slice(pd, 0, k, hid), state) if pd is not None else None
                    gi, go, gf, gc = gate(0), gate(1), gate(2), gate(3)
                    if pd is not None:
                        gi, gf = R.add(gi, peep(0, c)), R.add(gf, peep(2, c))
                    i_ = f[0](clipped(gi))
                    f_ = f[0](clipped(gf))
                    new_c = ctx.bb.emit(R.add(R.multiply(f_, c), R.multiply(i_, f[1](clipped(gc)))))
                    if pd is not None:
                        go = R.add(go, peep(1, new_c))
                    o_ = f[0](clipped(go))
                    new_h = R.multiply(o_, f[2](new_c))
            new_h = ctx.bb.emit(new_h)
            if lens is not None:
                live = ctx.bb.emit(R.less(_k(t, "int64"), lens))           # [B, 1]
                h = ctx.bb.emit(R.where(live, new_h, h))
                c = ctx.bb.emit(R.where(live, new_c, c))
                outs[t] = ctx.bb.emit(R.where(live, new_h, zeros))
            else:
                h, c = new_h, ctx.bb.emit(new_c)
                outs[t] = h
        ys.append(R.concat([R.expand_dims(o, [0, 1]) for o in outs], 0))      # [T, 1, B, H]
        hs.append(R.expand_dims(h, 0))
        cs.append(R.expand_dims(c, 0))
    y = R.concat(ys, 1) if dirs > 1 else ys[0]
    yh = R.concat(hs, 0) if dirs > 1 else hs[0]
    yc = R.concat(cs, 0) if dirs > 1 else cs[0]
    if layout:
        y = R.permute_dims(y, [2, 0, 1, 3])
        yh = R.permute_dims(yh, [1, 0, 2])
        yc = R.permute_dims(yc, [1, 0, 2])
    return (y, yh, yc) if op == "LSTM" else (y, yh)


def _make(op):
    class _C(Converter):
        @classmethod
        def _impl_v7(cls, ctx, inputs, attrs):
            return recurrent(op, ctx, inputs, attrs)
    _C.__name__ = op
    return _C


for _op in _GATES:
    register(_op)(_make(_op))
