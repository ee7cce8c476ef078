"""LowerRuntimeBuiltin (TVM's pass; VMBuiltinLower is its older name): the memory operators
become the VM's, one VM builtin each in VMCodeGen.

    R.memory.alloc_storage(size, dev, scope, dtype) -> R.vm.alloc_storage(size, dev, dtype, scope)
    R.memory.alloc_tensor(s, offset, shape, dtype)  -> R.vm.alloc_tensor(s, offset, shape, dtype)
    R.memory.kill_tensor(t) / kill_storage(s)       -> R.vm.kill_object(t / s)
    R.builtin.alloc_tensor(shape, dtype, dev)       -> vm.builtin.empty(vm, shape, dtype, dev)
                                                       (when LowerAllocTensor did not run)

Any other operator left at this point was never legalized: a ValueError naming it and the
pass that would have lowered it."""

from .. import expr as _expr
from ..expr_functor import ExprMutator, module_pass
from ..op import call_builtin_with_ctx, vm
from .lowering_common import op_name

# Operators VMCodeGen emits directly.
VM_OPS = ("relax.vm.alloc_storage", "relax.vm.alloc_tensor", "relax.vm.kill_object",
          "relax.call_builtin_with_ctx", "relax.null_value")


class _LowerRuntimeBuiltin(ExprMutator):
    def visit_call_(self, e):
        e = super().visit_call_(e)
        name = op_name(e)
        if name is None or name in VM_OPS:
            return e
        a = list(e.args)
        if name == "relax.memory.alloc_storage":
            return vm.alloc_storage(a[0], a[1], a[3], a[2])
        if name == "relax.memory.alloc_tensor":
            return vm.alloc_tensor(a[0], a[1], a[2], a[3])
        if name in ("relax.memory.kill_tensor", "relax.memory.kill_storage"):
            return vm.kill_object(a[0])
        if name == "relax.builtin.alloc_tensor":
            return call_builtin_with_ctx("vm.builtin.empty", [a[0], a[1], a[2]],
                                         sinfo_args=e.struct_info)
        if name in ("relax.call_tir", "relax.call_dps_packed"):
            raise ValueError("LowerRuntimeBuiltin: %s is still in the module: run "
                             "relax.transform.CallTIRRewrite first" % name)
        raise ValueError("LowerRuntimeBuiltin: operator %s was not legalized (run "
                         "relax.transform.LegalizeOps / the default pipeline)" % name)


def LowerRuntimeBuiltin():  # noqa: N802 - TVM's pass name
    return module_pass(_LowerRuntimeBuiltin, "relax.LowerRuntimeBuiltin")


def VMBuiltinLower():  # noqa: N802 - TVM's older name of the same pass
    return module_pass(_LowerRuntimeBuiltin, "relax.VMBuiltinLower")
