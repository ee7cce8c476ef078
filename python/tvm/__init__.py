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
from . import support
from .runtime import Device, cpu, cuda, device, load_module

__all__ = ["Device", "base", "build", "compile", "cpu", "cuda", "device", "load_module",
           "runtime", "support"]

# Imported on first use: rpc pulls in sockets; the compiler packages need libtvm_compiler,
# which runtime-only processes do not load.
_LAZY_SUBPACKAGES = ("rpc", "runtime", "te", "tir", "ir", "arith", "target", "driver")
_COMPILER_SUBPACKAGES = ("te", "tir", "ir", "arith", "target", "driver")


def __getattr__(name):
    import importlib

    if name in _COMPILER_SUBPACKAGES or name in ("compile", "build"):
        if base.RUNTIME_ONLY:
            raise ImportError(
                "tvm.%s needs the compiler, but this process runs the runtime only (%s)"
                % (name, "TVM_USE_RUNTIME_LIB is set" if base.runtime_only_requested()
                   else "libtvm_compiler.so is not installed"))
        if name in ("compile", "build"):
            return getattr(importlib.import_module("tvm.driver"), name)
    if name in _LAZY_SUBPACKAGES:
        return importlib.import_module("tvm." + name)
    raise AttributeError("module 'tvm' has no attribute %r" % name)
