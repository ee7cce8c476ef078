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

__all__ = ["Device", "base", "cpu", "cuda", "device", "load_module", "runtime", "support"]


def __getattr__(name):
    # Subpackages that pull more in (rpc: sockets) are imported on first use.
    if name in ("rpc", "runtime"):
        import importlib

        return importlib.import_module("tvm." + name)
    raise AttributeError("module 'tvm' has no attribute %r" % name)
