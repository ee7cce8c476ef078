"""tvm.relax.op.ccl: collectives between the Disco workers that run one compiled program
(TVM's names and attributes). Struct info comes from compiler/src/relax/op/ccl.cc; LegalizeOps
turns each into a call of the runtime.disco.* global (transform/legalize_ccl.py)."""

from ..expr import Call, convert

OP_TYPES = ("sum", "prod", "min", "max", "avg")


def _call(name, x, attrs):
    return Call("relax.ccl." + name, [convert(x)], attrs)


def allreduce(x, op_type="sum", in_group=True):
    """Reduces `x` over the workers (of this worker's group when in_group); same shape."""
    if op_type not in OP_TYPES:
        raise ValueError("allreduce: op_type must be one of %s, got %r" % (OP_TYPES, op_type))
    return _call("allreduce", x, {"op_type": str(op_type), "in_group": bool(in_group)})


def allgather(x, num_workers, in_group=True):
    """Concatenates every worker's `x` along axis 0: shape[0] * num_workers."""
    return _call("allgather", x, {"num_workers": int(num_workers), "in_group": bool(in_group)})


def broadcast_from_worker0(x):
    """Worker 0's `x` on every worker."""
    return _call("broadcast_from_worker0", x, {})


def scatter_from_worker0(x, num_workers, axis=0):
    """Worker 0's `x` split in `num_workers` equal parts along `axis`; worker i gets part i."""
    return _call("scatter_from_worker0", x, {"num_workers": int(num_workers), "axis": int(axis)})
