"""The virtual machine front: `vm = VirtualMachine(executable, device); vm["main"](...)`.

Executables are modules of kind "relax.VMExecutable" (docs/vm.md): loaded from a .so that
embeds bytecode, from bytes, or assembled with `tvm.runtime.vm_builder.Builder`.
"""

import tvm_ffi

from .device import Device, cpu

_ALLOCATORS = {"naive": 1, "pooled": 2}


class Executable:
    """A VM program: bytecode functions, constants, and imported kernel modules."""

    def __init__(self, module):
        if module.kind != "relax.VMExecutable":
            raise TypeError("not a VM executable: module of kind %r" % module.kind)
        self.mod = module

    @staticmethod
    def load_from_bytes(data):
        loader = tvm_ffi.get_global_func("ffi.Module.load_from_bytes.relax.VMExecutable")
        return Executable(loader(bytes(data)))

    def save_to_bytes(self):
        return bytes(tvm_ffi.get_global_func("ffi.ModuleSaveToBytes")(self.mod))

    def function_names(self):
        return list(self.mod["function_names"]())

    def as_text(self):
        return self.mod["as_text"]()


class VirtualMachine:
    """Runs an Executable's bytecode on a device.

    Args:
        executable: an Executable, or a module of kind "relax.VMExecutable".
        device: where tensors are allocated (cpu() by default).
        memory: "pooled" (reuses allocations across calls) or "naive".
    """

    def __init__(self, executable, device=None, memory="pooled"):
        if not isinstance(executable, Executable):
            executable = Executable(executable)
        if memory not in _ALLOCATORS:
            raise ValueError("memory must be 'pooled' or 'naive', got %r" % (memory,))
        device = cpu() if device is None else device
        if not isinstance(device, tvm_ffi.Device):
            raise TypeError("device must be a Device, got %r" % (device,))
        self.executable = executable
        self.device = device
        self.mod = tvm_ffi.get_global_func("vm.VirtualMachine")(
            executable.mod, int(device.dlpack_device_type()), device.index, _ALLOCATORS[memory])

    def __getitem__(self, name):
        func = self.mod.get_function(name)
        if func is None:
            raise AttributeError("VM executable has no function %r" % name)
        return func
