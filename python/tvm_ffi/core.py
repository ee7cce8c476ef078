"""Compatibility namespace: apache-tvm-ffi's compiled `tvm_ffi.core` names, re-exported."""

from .container import Array, Dict, List, Map
from .device import DLDeviceType, Device
from .dtype import dtype as DataType
from .error import ERROR_NAME_TO_TYPE, ERROR_TYPE_TO_NAME, Error
from .function import Function
from .object import Object
from .shape import Shape
from .string import Bytes, String
from .tensor import Tensor, __dlpack_version__, from_dlpack

__all__ = ["Array", "Bytes", "DLDeviceType", "DataType", "Device", "Dict", "ERROR_NAME_TO_TYPE",
           "ERROR_TYPE_TO_NAME", "Error", "Function", "List", "Map", "Object", "Shape", "String",
           "Tensor", "__dlpack_version__", "from_dlpack"]
