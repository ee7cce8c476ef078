"""tvm.relax.frontend.torch: from_exported_program (exported_program_translator.py; the ATen
converters in aten_ops.py, keyed by op overload name). torch is imported when
from_exported_program is called, not by `import tvm` nor by importing this package."""

from .aten_ops import CONVERTERS, TorchOpError
from .exported_program_translator import from_exported_program

__all__ = ["CONVERTERS", "TorchOpError", "from_exported_program"]
