"""tvm.transform: the pass infrastructure (the same module as tvm.ir.transform, as in TVM)."""

from ._compiler_guard import require_compiler

require_compiler("tvm.transform")

from .ir.transform import (FunctionPass, ModulePass, Pass, PassContext, PassInfo,  # noqa: E402,F401
                           PassInstrument, PrintIR, Sequential, function_pass, module_pass,
                           register_config)
