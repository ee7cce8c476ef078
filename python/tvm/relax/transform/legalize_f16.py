"""float16 kernels that accumulate: the TE definition runs in float32 and the result is cast
back, as onnxruntime and numpy's float16 reductions do. Summing thousands of products in half
precision (11-bit mantissa) loses whole digits; elementwise ops need no such care (LLVM
already computes each half op in float and rounds once)."""

import functools

from ... import topi


def in_float32(te_func, out_dtype="float16"):
    """The wrapper below, one per (te_func, out_dtype) while in use (a bounded cache: a
    function made per call does not pile up): BlockBuilder.call_te's cache keys on the
    function, so repeated layers find the kernel their first one made."""
    try:
        return _in_float32_cached(te_func, out_dtype)
    except TypeError:  # not hashable
        return _in_float32(te_func, out_dtype)


@functools.lru_cache(maxsize=256)
def _in_float32_cached(te_func, out_dtype):
    return _in_float32(te_func, out_dtype)


def _in_float32(te_func, out_dtype="float16"):
    """`te_func` with float16 tensor arguments cast to float32 first and float32 results cast
    to `out_dtype` (the call's result type: float32 when the operator asked for it);
    unchanged when no argument is float16."""
    def wrapped(*tensors, **kwargs):
        if not any(str(t.dtype) == "float16" for t in tensors):
            return te_func(*tensors, **kwargs)
        if kwargs.get("out_dtype") == "float16":
            kwargs = dict(kwargs, out_dtype="float32")
        args = [topi.astype(t, "float32") if str(t.dtype) == "float16" else t for t in tensors]
        outs = te_func(*args, **kwargs)
        multi = isinstance(outs, (list, tuple))
        outs = [topi.astype(o, out_dtype) if str(o.dtype) == "float32" and out_dtype != "float32" else o
                for o in (outs if multi else [outs])]
        return outs if multi else outs[0]
    wrapped.__name__ = getattr(te_func, "__name__", "te_func")
    return wrapped
