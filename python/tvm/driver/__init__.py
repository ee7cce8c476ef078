"""tvm.driver: the entry points tvm.compile and tvm.build (build_module.py), above tvm.relax
and tvm.tir; and `python -m tvm.driver` (the command line, __main__.py)."""

from .build_module import build, compile, lower, lower_to_llvm_ir  # noqa: A004


def __getattr__(name):
    # Old homes of modules that moved (kept for existing callers).
    import importlib

    if name == "Executable":  # now tvm.runtime.Executable
        return importlib.import_module("tvm.runtime.executable").Executable
    raise AttributeError("module 'tvm.driver' has no attribute %r" % name)
