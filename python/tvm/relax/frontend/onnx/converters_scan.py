"""Scan (opsets 8, 9, 11, 16, 19, 21, 23, 24), unrolled at import: the scan axis' extent must
be static; each iteration converts the body graph's nodes once more (the importer's value
tables are saved and restored around it, so the body's names never leak), its inputs bound
to the running states and the iteration's slice of each scan input (from the end for a
reverse direction). The scan outputs are the iterations' outputs stacked along their axes
(in reverse order for a reverse direction), the final states the last iteration's.
Opset 8's form (a batch axis first, an optional sequence_lens) runs each batch entry alone,
which needs sequence_lens absent or covering the whole sequence."""

import numpy as np

from ... import expr as _expr
from ... import op as R
from .converters import Converter, register


def _slice(ctx, x, axis, t):
    return ctx.bb.emit(R.squeeze(R.strided_slice(x, [axis], [t], [t + 1]), [axis]))


def _run_body(ctx, body, bound):
    """The body's outputs with its inputs bound to `bound` (relax expressions)."""
    from onnx import numpy_helper

    imp = ctx.importer
    saved = (dict(imp.values), dict(imp.consts), dict(imp.shape_values))
    try:
        for init in body.initializer:
            arr = numpy_helper.to_array(init)
            imp.consts[init.name] = arr
            imp.values[init.name] = _expr.const(arr)
        for vi, v in zip(body.input, bound):
            imp.values[vi.name] = v
            imp.consts.pop(vi.name, None)
            imp.shape_values.pop(vi.name, None)
        for node in body.node:
            imp.convert_node(node)
        return [imp.value(o.name) for o in body.output]
    finally:
        imp.values, imp.consts, imp.shape_values = saved


def _scan(ctx, states, scans, attrs):
    body = attrs["body"]
    m, n = len(scans), len(states)
    k = len(body.output) - n
    in_axes = [int(a) for a in attrs.get("scan_input_axes", [0] * m)]
    in_dirs = [int(a) for a in attrs.get("scan_input_directions", [0] * m)]
    out_axes = [int(a) for a in attrs.get("scan_output_axes", [0] * k)]
    out_dirs = [int(a) for a in attrs.get("scan_output_directions", [0] * k)]
    lengths = set()
    for j, x in enumerate(scans):
        s = ctx.static_shape(x)
        if s is None:
            raise NotImplementedError("Scan: a scan input of a shape unknown at import")
        in_axes[j] %= len(s)
        lengths.add(s[in_axes[j]])
    if len(lengths) != 1:
        raise ValueError("Scan: scan inputs of different lengths %s" % sorted(lengths))
    t_len = lengths.pop()
    outs = [[] for _ in range(k)]
    for t in range(t_len):
        xs = [_slice(ctx, x, in_axes[j], t_len - 1 - t if in_dirs[j] else t)
              for j, x in enumerate(scans)]
        res = _run_body(ctx, body, list(states) + xs)
        states = [ctx.bb.emit(v) for v in res[:n]]
        for j in range(k):
            outs[j].append(ctx.bb.emit(res[n + j]))
    stacked = []
    for j in range(k):
        seq = outs[j][::-1] if out_dirs[j] else outs[j]
        if not seq:
            raise NotImplementedError("Scan over an empty sequence")
        rank = len(ctx.shape_of(seq[0])) + 1
        axis = out_axes[j] % rank
        stacked.append(R.concat([R.expand_dims(v, axis) for v in seq], axis))
    return list(states), stacked


@register("Scan")
class Scan(Converter):
    @classmethod
    def _impl_v8(cls, ctx, inputs, attrs):
        m = int(attrs["num_scan_inputs"])
        seq_lens = inputs[0]
        rest = list(inputs)[1:]
        states, scans = rest[:len(rest) - m], rest[len(rest) - m:]
        batch = ctx.static_shape(scans[0])[0] if scans else None
        if batch is None:
            raise NotImplementedError("Scan (opset 8): a batch of unknown size")
        if seq_lens is not None:
            lens = ctx.consts[0]
            full = ctx.static_shape(scans[0])[1]
            if lens is None or np.any(np.asarray(lens) != full):
                raise NotImplementedError("Scan (opset 8): sequence_lens shorter than the "
                                          "sequence, or known only at run time")
        attrs = dict(attrs)
        if "directions" in attrs:
            attrs["scan_input_directions"] = attrs["directions"]
        per = []
        for b in range(batch):
            st = [_slice(ctx, s, 0, b) for s in states]
            sc = [_slice(ctx, s, 0, b) for s in scans]
            per.append(_scan(ctx, st, sc, attrs))
        n = len(states)
        finals = [R.concat([R.expand_dims(p[0][i], 0) for p in per], 0) for i in range(n)]
        k = len(per[0][1])
        outs = [R.concat([R.expand_dims(p[1][j], 0) for p in per], 0) for j in range(k)]
        return tuple(finals + outs)

    @classmethod
    def _impl_v9(cls, ctx, inputs, attrs):
        m = int(attrs["num_scan_inputs"])
        inputs = list(inputs)
        states, scans = inputs[:len(inputs) - m], inputs[len(inputs) - m:]
        finals, outs = _scan(ctx, states, scans, attrs)
        return tuple(finals + outs)
