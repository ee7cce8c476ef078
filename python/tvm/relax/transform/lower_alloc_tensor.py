"""LowerAllocTensor (TVM's pass): every R.builtin.alloc_tensor that StaticPlanBlockMemory left
(escaping or of unknown size) gets a storage of its own, sized at run time:

    alloc = R.builtin.alloc_tensor(R.shape([n, 4]), R.dtype("float32"), R.prim_value(0))
  ->
    storage = R.memory.alloc_storage(R.shape([n * 4]), R.prim_value(0), R.str("global"), R.dtype("float32"))
    alloc = R.memory.alloc_tensor(storage, R.prim_value(0), R.shape([n, 4]), R.dtype("float32"))

(the size is in elements of the dtype). The storage comes from the VM's allocator (pooled by
default), so a storage killed after its last use is recycled by the next allocation."""

from ... import tir
from .. import expr as _expr
from ..expr_functor import ExprMutator, module_pass
from ..op import memory
from .lowering_common import op_name


def _numel(shape):
    """The number of elements of `shape` as an int64 PrimExpr: the static dimensions'
    product folded into one constant (a fully static size stays an IntImm, which
    VMShapeLower passes as an immediate instead of computing it in a shape function at
    every call), times the symbolic ones."""
    static, n = 1, None
    for d in shape:
        if isinstance(d, tir.IntImm):
            static *= int(d.value)
            continue
        d = d if str(d.dtype) == "int64" else tir.Cast("int64", d)
        n = d if n is None else n * d
    if n is None:
        return tir.const(static, "int64")
    return n if static == 1 else n * tir.const(static, "int64")


class _LowerAllocTensor(ExprMutator):
    def visit_var_binding_(self, b):
        value = self.visit_expr(b.value)
        if op_name(value) != "relax.builtin.alloc_tensor":
            self.emit_binding(b, value)
            return
        shape, dtype, device = value.args
        sinfo = b.var.struct_info
        size = _expr.ShapeExpr([_numel(list(sinfo.shape))])
        storage = self.builder_.emit(memory.alloc_storage(size, device, "global", dtype),
                                     self.builder_._name("storage"))
        self.emit_binding(b, memory.alloc_tensor(storage, 0, shape, dtype))


def LowerAllocTensor():  # noqa: N802 - TVM's pass name
    return module_pass(_LowerAllocTensor, "relax.LowerAllocTensor")
