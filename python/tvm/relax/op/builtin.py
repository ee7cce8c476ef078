"""relax.op.builtin (TVM's names): the explicit allocation CallTIRRewrite makes for each output
of a call_tir, before any planning."""

from ..expr import Call, DataTypeImm, PrimValue, ShapeExpr


def alloc_tensor(shape, dtype, runtime_device_index=0):
    """A fresh tensor of `shape` (a ShapeExpr or a list of dims) and `dtype` on the VM's device
    `runtime_device_index`."""
    shape = shape if not isinstance(shape, (list, tuple)) else ShapeExpr(list(shape))
    return Call("relax.builtin.alloc_tensor",
                [shape, DataTypeImm(dtype) if isinstance(dtype, str) else dtype,
                 PrimValue(int(runtime_device_index))
                 if isinstance(runtime_device_index, int) else runtime_device_index])
