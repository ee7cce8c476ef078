"""tvm.relax.frontend.torch: from_exported_program (exported_program_translator.py; the ATen
converters in aten_ops.py). torch is imported when a function here is called, not by
`import tvm` (nor by importing this package)."""

from .exported_program_translator import from_exported_program


def __getattr__(name):
    # aten_ops imports nothing from torch at module level either; exposed lazily all the same
    if name in ("CONVERTERS", "TorchOpError"):
        from . import aten_ops
        return getattr(aten_ops, name)
    raise AttributeError(name)


__all__ = ["CONVERTERS", "TorchOpError", "from_exported_program"]
