"""Running compiled programs: devices, tensors, modules and the virtual machine."""

from .device import Device, cpu, cuda, device
from .tensor import Tensor, empty, tensor
from .module import load_module
from .vm import Executable, VirtualMachine

__all__ = ["Device", "Executable", "Tensor", "VirtualMachine", "cpu", "cuda", "device",
           "empty", "load_module", "tensor"]
