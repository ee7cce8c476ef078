"""tvm.relax.op.nn: neural-network operators (TVM's names and attributes)."""

from ..expr import Call, convert


def _call(name, args, attrs=None):
    return Call("relax.nn." + name, [convert(a) for a in args], attrs)


def relu(data):
    return _call("relu", [data])


def gelu(data):
    return _call("gelu", [data])


def gelu_tanh(data):
    return _call("gelu_tanh", [data])


def silu(data):
    return _call("silu", [data])


def leakyrelu(data, alpha=0.01):
    return _call("leakyrelu", [data], {"alpha": float(alpha)})


def softmax(data, axis=-1):
    return _call("softmax", [data], {"axis": int(axis)})


def log_softmax(data, axis=-1):
    return _call("log_softmax", [data], {"axis": int(axis)})


def layer_norm(data, gamma, beta, axes=-1, epsilon=1e-5):
    axes = [axes] if isinstance(axes, int) else [int(a) for a in axes]
    return _call("layer_norm", [data, gamma, beta], {"axes": axes, "epsilon": float(epsilon)})


# ---------------------------------------------------------------- convolution and pooling

def _tuple(v, n, what):
    """An int or a sequence as a list of `n` ints (TVM's expansion of a single value)."""
    if isinstance(v, int):
        return [v] * n
    v = [int(a) for a in v]
    if len(v) == 1 and n > 1:
        v = v * n
    return v


def _padding(padding, nsp):
    """TVM's padding forms: an int, nsp values (before = after) or 2*nsp (before..., after...)."""
    if isinstance(padding, int):
        return [padding] * (2 * nsp)
    p = [int(a) for a in padding]
    if len(p) == 1:
        return p * (2 * nsp)
    if len(p) == nsp:
        return p + p
    return p


def _dtype_attr(dtype):
    import tvm_ffi
    return None if dtype is None else tvm_ffi.dtype(str(dtype))


def _conv(nsp, name, data, weight, strides, padding, dilation, groups, data_layout, kernel_layout,
          out_layout, out_dtype):
    return _call(name, [data, weight], {
        "strides": _tuple(strides, nsp, "strides"), "padding": _padding(padding, nsp),
        "dilation": _tuple(dilation, nsp, "dilation"), "groups": int(groups),
        "data_layout": str(data_layout), "kernel_layout": str(kernel_layout),
        "out_layout": str(out_layout or data_layout), "out_dtype": _dtype_attr(out_dtype)})


def conv1d(data, weight, strides=1, padding=0, dilation=1, groups=1, data_layout="NCW",
           kernel_layout="OIW", out_layout=None, out_dtype=None):
    """1-d convolution (TVM's relax.op.nn.conv1d)."""
    return _conv(1, "conv1d", data, weight, strides, padding, dilation, groups, data_layout,
                 kernel_layout, out_layout, out_dtype)


def conv2d(data, weight, strides=(1, 1), padding=(0, 0), dilation=(1, 1), groups=1,
           data_layout="NCHW", kernel_layout="OIHW", out_layout=None, out_dtype=None):
    """2-d convolution (TVM's relax.op.nn.conv2d); padding: int, (h, w) or (top, left, bottom, right)."""
    return _conv(2, "conv2d", data, weight, strides, padding, dilation, groups, data_layout,
                 kernel_layout, out_layout, out_dtype)


def conv3d(data, weight, strides=(1, 1, 1), padding=(0, 0, 0), dilation=(1, 1, 1), groups=1,
           data_layout="NCDHW", kernel_layout="OIDHW", out_layout=None, out_dtype=None):
    """3-d convolution (TVM's relax.op.nn.conv3d); padding: int, (d, h, w) or 6 values."""
    return _conv(3, "conv3d", data, weight, strides, padding, dilation, groups, data_layout,
                 kernel_layout, out_layout, out_dtype)


def _pool(nsp, name, data, pool_size, strides, padding, dilation, ceil_mode, count_include_pad,
          layout, out_layout):
    return _call(name, [data], {
        "pool_size": _tuple(pool_size, nsp, "pool_size"), "strides": _tuple(strides, nsp, "strides"),
        "padding": _padding(padding, nsp), "dilation": _tuple(dilation, nsp, "dilation"),
        "ceil_mode": bool(ceil_mode), "count_include_pad": bool(count_include_pad),
        "layout": str(layout), "out_layout": str(out_layout or layout)})


def max_pool1d(data, pool_size=(1,), strides=(1,), padding=(0, 0), dilation=(1,), ceil_mode=False,
               count_include_pad=False, layout="NCW", out_layout=None):
    return _pool(1, "max_pool1d", data, pool_size, strides, padding, dilation, ceil_mode,
                 count_include_pad, layout, out_layout)


def max_pool2d(data, pool_size=(1, 1), strides=(1, 1), padding=(0, 0), dilation=(1, 1),
               ceil_mode=False, count_include_pad=False, layout="NCHW", out_layout=None):
    return _pool(2, "max_pool2d", data, pool_size, strides, padding, dilation, ceil_mode,
                 count_include_pad, layout, out_layout)


def avg_pool1d(data, pool_size=(1,), strides=(1,), padding=(0, 0), dilation=(1,), ceil_mode=False,
               count_include_pad=True, layout="NCW", out_layout=None):
    return _pool(1, "avg_pool1d", data, pool_size, strides, padding, dilation, ceil_mode,
                 count_include_pad, layout, out_layout)


def avg_pool2d(data, pool_size=(1, 1), strides=(1, 1), padding=(0, 0), dilation=(1, 1),
               ceil_mode=False, count_include_pad=False, layout="NCHW", out_layout=None):
    return _pool(2, "avg_pool2d", data, pool_size, strides, padding, dilation, ceil_mode,
                 count_include_pad, layout, out_layout)


def max_pool3d(data, pool_size=(1, 1, 1), strides=(1, 1, 1), padding=(0, 0, 0), dilation=(1, 1, 1),
               ceil_mode=False, count_include_pad=False, layout="NCDHW", out_layout=None):
    return _pool(3, "max_pool3d", data, pool_size, strides, padding, dilation, ceil_mode,
                 count_include_pad, layout, out_layout)


def avg_pool3d(data, pool_size=(1, 1, 1), strides=(1, 1, 1), padding=(0, 0, 0), dilation=(1, 1, 1),
               ceil_mode=False, count_include_pad=False, layout="NCDHW", out_layout=None):
    return _pool(3, "avg_pool3d", data, pool_size, strides, padding, dilation, ceil_mode,
                 count_include_pad, layout, out_layout)


def _adaptive(nsp, name, data, output_size, layout, out_layout):
    if output_size is not None:
        output_size = _tuple(output_size, nsp, "output_size")
    return _call(name, [data], {"output_size": output_size, "layout": str(layout),
                                "out_layout": str(out_layout or layout)})


def adaptive_avg_pool1d(data, output_size=None, layout="NCW", out_layout=None):
    return _adaptive(1, "adaptive_avg_pool1d", data, output_size, layout, out_layout)


def adaptive_avg_pool2d(data, output_size=None, layout="NCHW", out_layout=None):
    """Global average pooling is output_size=1."""
    return _adaptive(2, "adaptive_avg_pool2d", data, output_size, layout, out_layout)


def adaptive_avg_pool3d(data, output_size=None, layout="NCDHW", out_layout=None):
    return _adaptive(3, "adaptive_avg_pool3d", data, output_size, layout, out_layout)


# ---------------------------------------------------------------- normalization, dropout, pad

def batch_norm(data, gamma, beta, moving_mean, moving_var, axis=1, epsilon=1e-5, center=True,
               scale=True, momentum=0.1, training=True):
    """A tuple (out, new moving_mean, new moving_var). As TVM's, training=True (the default)
    normalizes with the batch's statistics and updates the moving ones; training=False uses the
    moving statistics and returns them unchanged."""
    return _call("batch_norm", [data, gamma, beta, moving_mean, moving_var], {
        "axis": int(axis), "epsilon": float(epsilon), "center": bool(center), "scale": bool(scale),
        "momentum": float(momentum), "training": bool(training)})


def dropout(data, rate=0.5):
    """A tuple (out, mask); compiled for inference: out is data, mask all ones."""
    return _call("dropout", [data], {"rate": float(rate)})


def pad(data, pad_width, pad_mode="constant", pad_value=0.0):
    """pad_width: flat (before_0, after_0, ...) or ((before_0, after_0), ...)."""
    flat = []
    for p in pad_width:
        if isinstance(p, (list, tuple)):
            flat.extend(int(a) for a in p)
        else:
            flat.append(int(p))
    return _call("pad", [data], {"pad_width": flat, "pad_mode": str(pad_mode), "pad_value": float(pad_value)})


# ---------------------------------------------------------------- more activations

def relu6(data):
    """min(max(x, 0), 6): a composite (relax.clip), as TVM's."""
    return Call("relax.clip", [convert(data)], {"min": 0.0, "max": 6.0})


def selu(data):
    return _call("selu", [data])


def softplus(data, beta=1.0, threshold=20.0):
    """log(1 + exp(beta * x)) / beta, x itself where beta * x > threshold."""
    return _call("softplus", [data], {"beta": float(beta), "threshold": float(threshold)})


def prelu(data, alpha, axis=1):
    """x where x > 0, else alpha[c] * x along `axis`."""
    return _call("prelu", [data, alpha], {"axis": int(axis)})
