"""Compile the two kernels examples/cpp_deploy's C++ app calls (add, relu on float32
vectors of length 8) into one .so, so the runtime-only C++ app runs compiled code.

    python3 compile_deploy_kernels.py OUT.so
"""

import sys

from tvm import ir, te, tir
from tvm.driver import compile as tvm_compile


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
    tvm_compile(mod, target="llvm").export_library(out)
    print("exported add, relu to", out)


if __name__ == "__main__":
    main(sys.argv[1])
