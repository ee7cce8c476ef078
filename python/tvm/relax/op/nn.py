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
