"""Devices with the runtime's knowledge: does it exist here, what is it like."""

import tvm_ffi
from tvm_ffi import _any

# DeviceAttrKind values (tvm/runtime/device_api.h).
_EXIST, _MAX_THREADS, _WARP, _SHARED_MEM, _COMPUTE_VERSION, _NAME = 0, 1, 2, 3, 4, 5
_CLOCK, _MULTIPROCESSORS, _TOTAL_MEMORY = 6, 7, 14


class Device(tvm_ffi.Device):
    """A tvm_ffi.Device that can ask the loaded backends about itself."""

    __slots__ = ()

    def _attr(self, kind):
        return tvm_ffi.get_global_func("runtime.GetDeviceAttr")(
            int(self.dlpack_device_type()), self.index, kind)

    @property
    def exist(self):
        """True when a backend for this device is loaded and the device is present."""
        value = self._attr(_EXIST)
        return bool(value) if value is not None else False

    @property
    def device_name(self):
        return self._attr(_NAME)

    @property
    def compute_version(self):
        return self._attr(_COMPUTE_VERSION)

    @property
    def max_threads_per_block(self):
        return self._attr(_MAX_THREADS)

    @property
    def warp_size(self):
        return self._attr(_WARP)

    @property
    def multi_processor_count(self):
        return self._attr(_MULTIPROCESSORS)

    @property
    def total_global_memory(self):
        return self._attr(_TOTAL_MEMORY)

    def sync(self, stream=None):
        """Waits for the device's work on `stream` (default stream when None)."""
        import ctypes

        tvm_ffi.get_global_func("runtime.DeviceStreamSync")(self, ctypes.c_void_p(stream))


# Passed to C exactly like its base class.
_any.SETTERS[Device] = _any.SETTERS[tvm_ffi.Device]


def device(dev_type, dev_id=0):
    """A Device from a name ("cpu", "cuda", "cuda:1") or a DLPack device type."""
    base = tvm_ffi.device(dev_type, dev_id) if not isinstance(dev_type, str) or ":" not in dev_type \
        else tvm_ffi.device(dev_type)
    return Device(base.dlpack_device_type(), base.index)


def cpu(dev_id=0):
    return device("cpu", dev_id)


def cuda(dev_id=0):
    return device("cuda", dev_id)
