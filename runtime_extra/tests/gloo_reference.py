"""numpy's answer for each collective: inputs per worker, who is in a worker's communicator,
and the tolerances per dtype (16-bit floats are reduced in float32 and rounded once)."""

import numpy as np

DTYPES = ["float16", "bfloat16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8"]
OPS = ["sum", "prod", "min", "max", "avg"]


def np_dtype(dtype):
    if dtype == "bfloat16":
        import ml_dtypes

        return np.dtype(ml_dtypes.bfloat16)
    return np.dtype(dtype)


def is_float(dtype):
    return dtype.startswith("float") or dtype == "bfloat16"


def make_input(rng, shape, dtype):
    """Small values: products over 4 workers stay inside int8 / uint8 and float16."""
    if is_float(dtype):
        return rng.uniform(-2, 2, size=shape).astype(np_dtype(dtype))
    low = 0 if dtype.startswith("uint") else -3
    return rng.integers(low, 4, size=shape).astype(dtype)


def members(worker, num_workers, num_groups, in_group):
    """Global ids of `worker`'s communicator, its leader first."""
    size = num_workers // num_groups if in_group else num_workers
    base = worker - worker % size
    return list(range(base, base + size))


def reduce(arrays, op, dtype):
    wide = np.stack([a.astype(np.float64 if is_float(dtype) else np.int64) for a in arrays])
    if op in ("sum", "avg"):
        out = wide.sum(0)
    elif op == "prod":
        out = wide.prod(0)
    elif op == "min":
        out = wide.min(0)
    else:
        out = wide.max(0)
    if op == "avg":
        k = len(arrays)
        out = out / k if is_float(dtype) else np.sign(out) * (np.abs(out) // k)
    return out.astype(np_dtype(dtype))


def tolerance(dtype):
    return {"float16": 2e-3, "bfloat16": 1e-2, "float32": 1e-5, "float64": 1e-12}.get(dtype, 0)


def assert_close(actual, expected, dtype, what):
    tol = tolerance(dtype)
    a = np.asarray(actual).astype(np.float64 if is_float(dtype) else np.int64)
    e = np.asarray(expected).astype(np.float64 if is_float(dtype) else np.int64)
    np.testing.assert_allclose(a, e, rtol=tol, atol=tol, err_msg=what)
