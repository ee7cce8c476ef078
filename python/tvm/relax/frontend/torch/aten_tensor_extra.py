"""ATen converters for tensor manipulations that exported models leave in their graphs:
flip (the reverse direction of a decomposed bidirectional LSTM/GRU).

flip is a take along each flipped axis with the indices extent-1 ... 0 (a constant for a
static extent, an arange of the symbolic extent otherwise)."""

import numpy as np

from ... import expr as _expr
from ... import op as R
from .aten_ops import register


@register("aten.flip.default")
def _flip(ctx):
    a = ctx.args
    x = a["self"]
    shape = ctx.shape(x)
    nd = len(shape)
    for d in sorted({int(d) % nd for d in a["dims"]}):
        n = shape[d]
        if isinstance(n, int):
            idx = _expr.const(np.arange(n - 1, -1, -1, dtype="int64"))
        else:
            idx = ctx.emit(R.arange(n - 1, -1, -1, "int64"))
        x = ctx.emit(R.take(x, idx, axis=d))
    return x
