"""Shared by the export tests: two compiled kernels (`add`, `relu` on float32[8]) and a VM
executable `add_relu(a, b)` that calls them."""

import tvm_ffi

import tvm
from tvm import te, tir
from tvm.runtime.vm_builder import Builder

N = 8


def kernels():
    a = te.placeholder((N,), "float32", "a")
    b = te.placeholder((N,), "float32", "b")
    add = te.compute((N,), lambda i: a[i] + b[i], name="add")
    x = te.placeholder((N,), "float32", "x")
    relu = te.compute((N,), lambda i: tir.max(x[i], tir.const(0, "float32")), name="relu")
    return tvm.compile(tvm.IRModule({
        "add": te.create_prim_func([a, b, add]).with_attr("global_symbol", "add"),
        "relu": te.create_prim_func([x, relu]).with_attr("global_symbol", "relu"),
    }))


def add_relu_program():
    b = Builder()
    r = b.r
    f32 = b.c(tvm_ffi.dtype("float32"))
    with b.function("add_relu", 2, ["a", "b"]):
        b.emit_call("vm.builtin.shape_of", [r(0)], 2)
        b.emit_call("vm.builtin.empty", [b.VM, r(2), f32, b.imm(0)], 3)
        b.emit_call("add", [r(0), r(1), r(3)])
        b.emit_call("vm.builtin.empty", [b.VM, r(2), f32, b.imm(0)], 4)
        b.emit_call("relu", [r(3), r(4)])
        b.emit_ret(r(4))
    return b.get()
