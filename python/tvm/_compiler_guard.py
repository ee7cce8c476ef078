"""Compiler packages refuse to import, with a clear message, where no compiler is loaded."""

from . import base


def require_compiler(package):
    """Raises ImportError when this process runs the runtime only."""
    if base.RUNTIME_ONLY:
        reason = ("TVM_USE_RUNTIME_LIB is set" if base.runtime_only_requested()
                  else "libtvm_compiler.so is not installed (runtime-only package)")
        raise ImportError("%s needs the compiler, but this process runs the runtime only: %s"
                          % (package, reason))
