"""tvm.driver: the compile pipeline (libtvm_compiler codegen + llvmlite)."""

from .._compiler_guard import require_compiler

require_compiler("tvm.driver")

from .build_module import Executable, build, compile, lower, lower_to_llvm_ir  # noqa: A004
