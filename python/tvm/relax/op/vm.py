"""relax.op.vm (TVM's names): the memory operators as the VM runs them (LowerRuntimeBuiltin's
output); VMCodeGen emits each as one call of the vm.builtin of the same role."""

from ..expr import Call, DataTypeImm, PrimValue, ShapeExpr, StringImm


def alloc_storage(size, runtime_device_index=0, dtype="uint8", storage_scope="global"):
    """vm.builtin.alloc_storage(vm, size, device index, dtype)."""
    return Call("relax.vm.alloc_storage",
                [ShapeExpr(list(size)) if isinstance(size, (list, tuple)) else size,
                 PrimValue(int(runtime_device_index)) if isinstance(runtime_device_index, int)
                 else runtime_device_index,
                 DataTypeImm(dtype) if isinstance(dtype, str) else dtype,
                 StringImm(storage_scope) if isinstance(storage_scope, str) else storage_scope])


def alloc_tensor(storage, offset, shape, dtype):
    """vm.builtin.alloc_tensor(storage, offset, shape, dtype)."""
    return Call("relax.vm.alloc_tensor",
                [storage, PrimValue(int(offset)) if isinstance(offset, int) else offset,
                 ShapeExpr(list(shape)) if isinstance(shape, (list, tuple)) else shape,
                 DataTypeImm(dtype) if isinstance(dtype, str) else dtype])


def kill_object(obj):
    """Drops the VM's reference to `obj` (its register becomes None)."""
    return Call("relax.vm.kill_object", [obj])
