"""Running compiled programs: devices, tensors, modules and the virtual machine."""

from .device import Device, cpu, cuda, device
from .tensor import Tensor, empty, tensor
from .module import load_module
from .executable import Executable
from .vm import VirtualMachine
from . import profiling
from . import cuda_support
from .cuda_support import driver_status as cuda_driver_status
from .cuda_support import unavailable_reason as cuda_unavailable_reason
from . import nvidia_libs
from .nvidia_libs import LibraryNotAvailableError
# Disco (libtvm_runtime_extra, loaded by tvm.base before this import): usable right after
# `import tvm`, and importable without the library (its constructors then say why).
from . import disco

__all__ = ["Device", "Executable", "LibraryNotAvailableError", "Tensor", "VirtualMachine", "cpu",
           "cuda", "cuda_driver_status", "cuda_support", "cuda_unavailable_reason", "device", "disco",
           "empty", "load_module", "tensor"]
