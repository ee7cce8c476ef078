"""Compiler packages refuse to import, with a clear message, where no compiler is loaded.

Two ways in: the compiler packages call `require_compiler` first thing (they are present but
TVM_USE_RUNTIME_LIB is set), and an import hook answers `import tvm.te` and friends where
the runtime-only wheel does not ship them.
"""

import sys

from . import base

# The tvm subpackages (and modules) that need libtvm_compiler.
COMPILER_SUBPACKAGES = ("te", "tir", "s_tir", "ir", "arith", "target", "driver", "transform",
                        "compile", "contrib", "relax", "topi")


class CompilerNotAvailableError(ImportError):
    """A compiler API was imported in a process that runs the runtime only."""


def _reason():
    if base.runtime_only_requested():
        return "TVM_USE_RUNTIME_LIB is set"
    return ("libtvm_compiler.so is not installed (a runtime-only package such as "
            "tvm-stack-runtime; install tvm-stack to compile)")


def require_compiler(package):
    """Raises CompilerNotAvailableError when this process runs the runtime only."""
    if base.RUNTIME_ONLY:
        raise CompilerNotAvailableError(
            "%s needs the compiler, but this process runs the runtime only: %s"
            % (package, _reason()), name=package)


class _ImportGuard:
    """A meta-path finder that turns imports of compiler packages into a clear error."""

    def find_spec(self, fullname, path=None, target=None):
        parts = fullname.split(".")
        if len(parts) >= 2 and parts[0] == "tvm" and parts[1] in COMPILER_SUBPACKAGES:
            require_compiler("tvm." + parts[1])
        return None

    def __repr__(self):
        return "<tvm compiler import guard>"


def install_import_guard():
    if not any(isinstance(f, _ImportGuard) for f in sys.meta_path):
        sys.meta_path.insert(0, _ImportGuard())
