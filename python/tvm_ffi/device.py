"""Device: a (DLPack device type, index) pair, passed by value as kTVMFFIDevice."""

from . import _any
from . import _cabi as C


class DLDeviceType:
    """DLPack device type codes (DLDeviceType), as plain ints."""

    kDLCPU = 1
    kDLCUDA = 2
    kDLCUDAHost = 3
    kDLOpenCL = 4
    kDLVulkan = 7
    kDLMetal = 8
    kDLVPI = 9
    kDLROCM = 10
    kDLROCMHost = 11
    kDLExtDev = 12
    kDLCUDAManaged = 13
    kDLOneAPI = 14
    kDLWebGPU = 15
    kDLHexagon = 16
    kDLMAIA = 17
    kDLTrn = 18


_TYPE_TO_NAME = {
    1: "cpu", 2: "cuda", 3: "cuda_host", 4: "opencl", 7: "vulkan", 8: "metal", 9: "vpi",
    10: "rocm", 11: "rocm_host", 12: "ext_dev", 13: "cuda_managed", 14: "oneapi",
    15: "webgpu", 16: "hexagon", 17: "maia", 18: "trn",
}
_NAME_TO_TYPE = {
    "cpu": 1, "cuda": 2, "cuda_host": 3, "opencl": 4, "vulkan": 7, "metal": 8, "mps": 8,
    "vpi": 9, "rocm": 10, "rocm_host": 11, "ext_dev": 12, "cuda_managed": 13, "oneapi": 14,
    "wgpu": 15, "webgpu": 15, "hexagon": 16, "maia": 17, "trn": 18,
}
_I32_MIN, _I32_MAX = -(1 << 31), (1 << 31) - 1


class Device:
    """A device: ``Device("cuda:1")``, ``Device("cpu")``, ``Device(2, 0)``."""

    __slots__ = ("_type", "_index")

    def __init__(self, device_type, index=None):
        index = 0 if index is None else index
        if isinstance(device_type, str):
            text = device_type.split(" ")[0]
            parts = text.split(":")
            if len(parts) > 2 or parts[0] not in _NAME_TO_TYPE:
                raise ValueError("Unknown device: %r" % device_type)
            device_type = _NAME_TO_TYPE[parts[0]]
            if len(parts) == 2:
                try:
                    index = int(parts[1])
                except ValueError:
                    raise ValueError("Invalid device index: %r" % parts[1]) from None
        if hasattr(index, "__index__"):
            index = index.__index__()
        else:
            raise TypeError("Invalid device index: %r" % (index,))
        device_type = int(device_type)
        if not (_I32_MIN <= device_type <= _I32_MAX and _I32_MIN <= index <= _I32_MAX):
            raise ValueError("device type/index out of int32 range")
        self._type = device_type
        self._index = index

    @classmethod
    def _from_payload(cls, payload):
        dev = object.__new__(cls)
        low = payload & 0xFFFFFFFF
        high = (payload >> 32) & 0xFFFFFFFF
        dev._type = low - (1 << 32) if low >= 1 << 31 else low
        dev._index = high - (1 << 32) if high >= 1 << 31 else high
        return dev

    def _payload(self):
        word = (self._type & 0xFFFFFFFF) | ((self._index & 0xFFFFFFFF) << 32)
        return word - (1 << 64) if word >= 1 << 63 else word

    @property
    def type(self):
        return self.__device_type_name__()

    @property
    def index(self):
        return self._index

    def dlpack_device_type(self):
        return self._type

    def __device_type_name__(self):
        return _TYPE_TO_NAME.get(self._type, "device%d" % self._type)

    def __dlpack_device__(self):
        return (self._type, self._index)

    def __eq__(self, other):
        return (isinstance(other, Device) and self._type == other._type
                and self._index == other._index)

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return hash((self._type, self._index))

    def __str__(self):
        return "%s:%d" % (self.__device_type_name__(), self._index)

    def __repr__(self):
        return "device(type='%s', index=%d)" % (self.__device_type_name__(), self._index)

    def __reduce__(self):
        return (Device, (self._type, self._index))


def device(device_type, index=None):
    """Constructs a Device: ``device("cuda:0") == device("cuda", 0)``."""
    return Device(device_type, index)


def _set_device(fr, j, value):
    fr.q[j] = C.kDevice
    fr.q[j + 1] = value._payload()


_any.SETTERS[Device] = _set_device
_any._DEVICE_CLS[0] = Device
