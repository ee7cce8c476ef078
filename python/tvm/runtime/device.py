"""Devices with the runtime's knowledge: does it exist here, what is it like."""

import tvm_ffi
from tvm_ffi import _any

# DeviceAttrKind values (tvm/runtime/device_api.h).
_EXIST, _MAX_THREADS, _WARP, _SHARED_MEM, _COMPUTE_VERSION, _NAME = 0, 1, 2, 3, 4, 5
_CLOCK, _MULTIPROCESSORS, _THREAD_DIMS, _REGISTERS, _GCN_ARCH = 6, 7, 8, 9, 10
_API_VERSION, _DRIVER_VERSION, _L2_CACHE, _TOTAL_MEMORY, _AVAILABLE_MEMORY = 11, 12, 13, 14, 15


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
        """Bytes of device memory (None when unknown)."""
        return self._attr(_TOTAL_MEMORY)

    @property
    def available_global_memory(self):
        """Bytes of free device memory now (None when unknown)."""
        return self._attr(_AVAILABLE_MEMORY)

    @property
    def max_shared_memory_per_block(self):
        return self._attr(_SHARED_MEM)

    @property
    def max_clock_rate(self):
        """Clock rate in kHz (None when unknown)."""
        return self._attr(_CLOCK)

    @property
    def max_thread_dimensions(self):
        """Largest block extents as a list [x, y, z] (None when unknown)."""
        import json

        value = self._attr(_THREAD_DIMS)
        return json.loads(value) if value is not None else None

    @property
    def max_registers_per_block(self):
        return self._attr(_REGISTERS)

    @property
    def gcn_arch(self):
        return self._attr(_GCN_ARCH)

    @property
    def api_version(self):
        """The backend's API version it was built against (CUDA: CUDA_VERSION, e.g. 13000)."""
        return self._attr(_API_VERSION)

    @property
    def driver_version(self):
        """The installed driver's version (CUDA: cuDriverGetVersion), None when unknown."""
        return self._attr(_DRIVER_VERSION)

    @property
    def l2_cache_size_bytes(self):
        return self._attr(_L2_CACHE)

    def _cuda_global(self, name):
        if self.dlpack_device_type() != 2:  # kDLCUDA
            raise ValueError("%s: streams are only implemented for CUDA devices" % (self,))
        func = tvm_ffi.get_global_func("runtime.cuda." + name, allow_missing=True)
        if func is None:
            raise RuntimeError("CUDA streams need libtvm_runtime_cuda, which is not loaded")
        return func

    def create_raw_stream(self):
        """A new stream on this device (an int handle; free it with free_raw_stream)."""
        stream = self._cuda_global("StreamCreate")(self.index)
        return stream.value if hasattr(stream, "value") else stream

    def free_raw_stream(self, stream):
        import ctypes

        self._cuda_global("StreamFree")(self.index, ctypes.c_void_p(stream))

    def set_raw_stream(self, stream):
        """Makes `stream` the calling thread's current stream for this device (kernels launch
        on it); returns the previous one."""
        import ctypes
        from tvm_ffi import _cabi as C

        prev = ctypes.c_void_p()
        if C.EnvSetStream(int(self.dlpack_device_type()), self.index, stream, ctypes.byref(prev)):
            raise RuntimeError("TVMFFIEnvSetStream failed")
        return prev.value

    def get_raw_stream(self):
        """The calling thread's current stream for this device (None: the default stream)."""
        from tvm_ffi import _cabi as C

        return C.EnvGetStream(int(self.dlpack_device_type()), self.index)

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
