"""relax.op.memory (TVM's names): storages and the tensors placed in them, as the memory planner
(StaticPlanBlockMemory, LowerAllocTensor) and KillAfterLastUse write them. LowerRuntimeBuiltin
turns each into its relax.op.vm counterpart."""

from ..expr import Call, DataTypeImm, PrimValue, ShapeExpr, StringImm


def _shape(s):
    return ShapeExpr(list(s)) if isinstance(s, (list, tuple)) else s


def _prim(v):
    return PrimValue(int(v)) if isinstance(v, int) else v


def alloc_storage(size, virtual_device_index=0, storage_scope="global", dtype="uint8"):
    """A storage of `size` (a 1-d shape: bytes for uint8, else elements of `dtype`)."""
    return Call("relax.memory.alloc_storage",
                [_shape(size), _prim(virtual_device_index), StringImm(storage_scope)
                 if isinstance(storage_scope, str) else storage_scope,
                 DataTypeImm(dtype) if isinstance(dtype, str) else dtype])


def alloc_tensor(storage, offset, shape, dtype):
    """A tensor of `shape` and `dtype` at byte `offset` in `storage` (a view, no copy)."""
    return Call("relax.memory.alloc_tensor",
                [storage, _prim(offset), _shape(shape),
                 DataTypeImm(dtype) if isinstance(dtype, str) else dtype])


def kill_storage(storage):
    """The storage is not used after this point."""
    return Call("relax.memory.kill_storage", [storage])


def kill_tensor(tensor):
    """The tensor is not used after this point."""
    return Call("relax.memory.kill_tensor", [tensor])
