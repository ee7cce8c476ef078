"""tvm: the runtime (and, when installed, the compiler) over the tvm-ffi ABI.

`import tvm` loads the native libraries in the seed's order (see tvm.base): libtvm_ffi,
libtvm_runtime (required), libtvm_compiler (unless runtime-only), then the backends found
next to the runtime.

    import tvm, numpy as np
    dev = tvm.cpu()
    x = tvm.runtime.tensor(np.arange(4, dtype="float32"), dev)
    x.numpy()
"""

from . import base  # noqa: F401  (first: loads the libraries)
from . import _compiler_guard, support
from .runtime import Device, cpu, cuda, device, load_module

__all__ = ["Device", "base", "build", "compile", "cpu", "lower", "cuda", "device", "load_module",
           "runtime", "support"]

# The release version (bazel/version.bzl), as compiled into libtvm_runtime.
__version__ = support.version()

# Imported on first use: rpc pulls in sockets; the compiler packages need libtvm_compiler.
_LAZY_SUBPACKAGES = ("rpc", "runtime", "te", "tir", "tirx", "s_tir", "ir", "arith", "target",
                     "driver", "transform", "contrib", "dlight", "relax", "topi")
_COMPILER_SUBPACKAGES = _compiler_guard.COMPILER_SUBPACKAGES
if base.RUNTIME_ONLY:
    # As in TVM, the compiler packages still import (stand-ins where the runtime-only wheel
    # does not ship them); their first compiler call raises CompilerNotAvailableError.
    _compiler_guard.install_runtime_only_hooks()


def __getattr__(name):
    import importlib

    if name in ("compile", "build", "lower"):
        return getattr(importlib.import_module("tvm.driver"), name)
    if name == "IRModule":
        return importlib.import_module("tvm.ir").IRModule
    if name in _LAZY_SUBPACKAGES or name in _COMPILER_SUBPACKAGES:
        return importlib.import_module("tvm." + name)
    raise AttributeError("module 'tvm' has no attribute %r" % name)
