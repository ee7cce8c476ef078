"""The virtual machine front: `vm = VirtualMachine(executable, device); vm["main"](...)`.

Executables are modules of kind "relax.VMExecutable" (docs/vm.md): loaded from a .so that
embeds bytecode, from bytes, or assembled with `tvm.runtime.vm_builder.Builder`.
"""

import tvm_ffi

from .device import Device, cpu
from .executable import Executable as _Executable

_ALLOCATORS = {"naive": 1, "pooled": 2}


class VMExecutable(_Executable):
    """A VM program (TVM's relax.VMExecutable, a tvm.runtime.Executable): bytecode
    functions, constants, and the kernel modules it imports. `mod` is the module of kind
    "relax.VMExecutable"; export_library packs it with its imports into one .so, whose
    load_module gives this module back (also in a runtime-only process).

    relax.build returns one, with `kernels` (the tvm.runtime.Executable of the compiled
    PrimFuncs, or None) and `memory_stats` (what StaticPlanBlockMemory planned, per
    function)."""

    def __init__(self, module, kernels=None, memory_stats=None):
        if not isinstance(module, tvm_ffi.Module) or module.kind != "relax.VMExecutable":
            raise TypeError("not a VM executable: %r" % (getattr(module, "kind", module),))
        super().__init__(module)
        self.kernels = kernels
        if kernels is not None:
            module.import_module(kernels.mod)
        self.memory_stats = dict(memory_stats or {})

    @staticmethod
    def load_from_bytes(data):
        loader = tvm_ffi.get_global_func("ffi.Module.load_from_bytes.relax.VMExecutable")
        return VMExecutable(loader(bytes(data)))

    def save_to_bytes(self):
        """The bytecode and constants (not the imported kernels)."""
        return bytes(tvm_ffi.get_global_func("ffi.ModuleSaveToBytes")(self.mod))

    def function_names(self):
        return list(self.mod["function_names"]())

    def as_text(self):
        return self.mod["as_text"]()

    def stats(self):
        """TVM's summary of the program: its functions and bytecode size, as text."""
        return self.as_text().split("\n", 1)[0]

    def jit(self, **kwargs):
        """The module to run: the executable itself (its kernels are loaded already)."""
        if kwargs:
            return super().jit(**kwargs)
        return self.mod

    def _export_root(self):
        return self.mod

    def inspect_source(self, fmt="ll"):
        if self.kernels is None:
            raise ValueError("inspect_source: the executable has no kernels")
        return self.kernels.inspect_source(fmt)

    @property
    def func_names(self):
        return self.function_names()

    def __repr__(self):
        return "VMExecutable(%s)" % ", ".join(self.function_names())


# The same class under the runtime's older name (one VM executable class).
Executable = VMExecutable


class VirtualMachine:
    """Runs an Executable's bytecode on a device.

    Args:
        executable: an Executable, or a module of kind "relax.VMExecutable".
        device: where tensors are allocated (cpu() by default).
        memory: "pooled" (reuses allocations across calls) or "naive".
    """

    def __init__(self, executable, device=None, memory="pooled"):
        if isinstance(executable, _Executable) and not isinstance(executable, VMExecutable):
            executable = executable.jit()    # a runtime Executable wrapping a loaded VM module
        if not isinstance(executable, VMExecutable):
            executable = VMExecutable(executable)
        if memory not in _ALLOCATORS:
            raise ValueError("memory must be 'pooled' or 'naive', got %r" % (memory,))
        device = cpu() if device is None else device
        if not isinstance(device, tvm_ffi.Device):
            raise TypeError("device must be a Device, got %r" % (device,))
        self.executable = executable
        self.device = device
        self.mod = tvm_ffi.get_global_func("vm.VirtualMachine")(
            executable.mod, int(device.dlpack_device_type()), device.index, _ALLOCATORS[memory])

    def profile(self, func_name, *args):
        """Runs `func_name(*args)` once, timing every kernel it calls: a
        tvm.runtime.profiling.Report (print it for a table, slowest kernel first)."""
        from .profiling import Report

        return Report.from_vm_record(self.mod.get_function("profile")(func_name, *args))

    def __getitem__(self, name):
        func = self.mod.get_function(name)
        if func is None:
            raise AttributeError("VM executable has no function %r" % name)
        return func
