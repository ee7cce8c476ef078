"""NVIDIA libraries the native code opens at first use (libnccl.so.2, libcublas.so.13).

The C++ side (runtime_extra/nvlib/nvlib.h) tries, in order: the path in TVM_NCCL_LIBRARY /
TVM_CUBLAS_LIBRARY, the pip wheel's file found by `runtime.find_nvidia_library` (registered
here: the wheels put their libraries under site-packages/nvidia/..., a folder the dynamic
loader never searches, and ship no unversioned names), then the soname on the system's path.
When none loads, the call raises LibraryNotAvailableError saying what to install.
"""

import os
import sys

import tvm_ffi

# name -> (folder inside site-packages, file): the CUDA 13 wheels' layout
# (nvidia-nccl-cu13: nvidia/nccl/lib; nvidia-cublas 13.x: nvidia/cu13/lib).
WHEEL_FILES = {
    "nccl": ("nvidia/nccl/lib", "libnccl.so.2"),
    "cublas": ("nvidia/cu13/lib", "libcublas.so.13"),
}

# What to pip install for each library (error messages and tools/gpu_check.sh).
PIP_PACKAGES = {"nccl": "nvidia-nccl-cu13", "cublas": "nvidia-cublas"}


@tvm_ffi.register_error("LibraryNotAvailableError")
class LibraryNotAvailableError(RuntimeError):
    """A native library needed for this call (a CUDA driver, libnccl.so.2, libcublas.so.13,
    or a tvm backend library) is missing in this process; the message says which and what to
    install."""


def find_wheel_library(name):
    """The path of `name`'s library inside an installed pip wheel, or "" when none is."""
    if name not in WHEEL_FILES:
        raise ValueError("unknown NVIDIA library %r (known: %s)" % (name, ", ".join(WHEEL_FILES)))
    folder, filename = WHEEL_FILES[name]
    for entry in sys.path:
        path = os.path.join(entry or os.getcwd(), folder, filename)
        if os.path.isfile(path):
            return path
    return ""


tvm_ffi.register_global_func("runtime.find_nvidia_library", find_wheel_library, override=True)
