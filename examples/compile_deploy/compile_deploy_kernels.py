"""Compile the two kernels examples/cpp_deploy's C++ app calls (add, relu on float32
vectors of length 8) into one .so, so the runtime-only C++ app runs compiled code. The .so
also carries, as an imported module, a VM executable calling them (`add_relu`), so the app
shows that a library with an import tree loads in a C++ process.

    python3 compile_deploy_kernels.py OUT.so
"""

import sys

import tvm_ffi

from tvm import ir, te, tir
from tvm.driver import compile as tvm_compile
from tvm.runtime.vm_builder import Builder


def _named(func, name):
    return func.with_attr("global_symbol", name)


def main(out, n=8):
    a = te.placeholder((n,), "float32", "a")
    b = te.placeholder((n,), "float32", "b")
    add = te.compute((n,), lambda i: a[i] + b[i], name="add")
    x = te.placeholder((n,), "float32", "x")
    relu = te.compute((n,), lambda i: tir.max(x[i], 0.0), name="relu")
    mod = ir.IRModule({
        "add": _named(te.create_prim_func([a, b, add]), "add"),
        "relu": _named(te.create_prim_func([x, relu]), "relu"),
    })
    lib = tvm_compile(mod, target="llvm")
    lib.import_module(_add_relu_program().mod)
    lib.export_library(out)
    print("exported add, relu (and the add_relu VM executable) to", out)


def _add_relu_program():
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


if __name__ == "__main__":
    main(sys.argv[1])
