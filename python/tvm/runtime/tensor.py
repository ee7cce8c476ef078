"""Tensors on any device the loaded backends serve, with numpy conversion.

`tvm.runtime.Tensor` extends `tvm_ffi.Tensor`: once tvm is imported, every tensor handed to
Python is one, so `.numpy()` and `.copyfrom()` work on results of compiled functions too.
"""

import ctypes

import tvm_ffi
from tvm_ffi import _any
from tvm_ffi import _cabi as C

from .device import Device, cpu


class Tensor(tvm_ffi.Tensor):
    """An n-d array allocated through the runtime's device APIs (or imported by DLPack)."""

    __slots__ = ()

    @property
    def device(self):
        dev = tvm_ffi.Tensor.device.fget(self)
        return Device(dev.dlpack_device_type(), dev.index)

    def numpy(self):
        """A numpy copy of the data (any device; compact layout)."""
        import numpy as np

        out = np.empty(self.shape, dtype=_numpy_dtype(self.dtype))
        if self.is_contiguous():
            _global("runtime.TensorCopyToBytes")(self, ctypes.c_void_p(out.ctypes.data), out.nbytes)
            return out
        # Strided tensors: copy into a compact one on the same device first.
        compact = empty(self.shape, self.dtype, self.device)
        _global("runtime.TensorCopyFromTo")(self, compact)
        return compact.numpy()

    def copyfrom(self, source):
        """Fills this tensor from a numpy array (or anything numpy accepts) or a Tensor."""
        if isinstance(source, tvm_ffi.Tensor):
            _global("runtime.TensorCopyFromTo")(source, self)
            return self
        import numpy as np

        dtype = _numpy_dtype(self.dtype)
        if isinstance(source, np.ndarray) and source.dtype == dtype and not source.flags.c_contiguous \
                and self.device.dlpack_device_type() == 1 and self.is_contiguous():
            # A strided array (a transposed weight) is written straight into this tensor's
            # memory: asarray(order="C") would first copy it into a fresh buffer of its own,
            # and on a VM first-touched memory is slow (0.4 GB/s: VGG-19's 411 MB Gemm weight).
            if tuple(source.shape) != tuple(self.shape):
                raise ValueError("copyfrom: shape %s does not match %s" % (source.shape, tuple(self.shape)))
            _copy_strided(np.from_dlpack(self), source)  # a writable view of this memory
            return self
        # asarray keeps 0-d arrays 0-d (ascontiguousarray would make them 1-d).
        arr = np.asarray(source, dtype=dtype, order="C")
        if tuple(arr.shape) != tuple(self.shape):
            raise ValueError("copyfrom: shape %s does not match %s" % (arr.shape, tuple(self.shape)))
        _global("runtime.TensorCopyFromBytes")(self, ctypes.c_void_p(arr.ctypes.data), arr.nbytes)
        return self

    def copyto(self, target):
        """A copy on device `target`, or into Tensor `target`."""
        if isinstance(target, tvm_ffi.Tensor):
            return target.copyfrom(self)
        out = empty(self.shape, self.dtype, target)
        _global("runtime.TensorCopyFromTo")(self, out)
        return out

    def __repr__(self):
        return "<tvm.runtime.Tensor shape=%s dtype=%s device=%s>" % (
            tuple(self.shape), self.dtype, self.device)


# A transposed 2-D copy in square tiles of this many rows / columns: numpy's element-wise
# copy of a transpose reads one element per cache line (411 MB: 0.9 s; tiled: 0.45 s).
_TILE = 256


def _copy_strided(dst, src):
    """dst[...] = src for a C-contiguous dst; a 2-D src whose first axis is the densest (a
    transpose) is copied tile by tile."""
    import numpy as np

    if src.ndim == 2 and abs(src.strides[0]) < abs(src.strides[1]):
        rows, cols = src.shape
        for i in range(0, rows, _TILE):
            for j in range(0, cols, _TILE):
                dst[i:i + _TILE, j:j + _TILE] = src[i:i + _TILE, j:j + _TILE]
        return
    np.copyto(dst, src)


_GLOBALS = {}


def _global(name):
    f = _GLOBALS.get(name)
    if f is None:
        f = _GLOBALS[name] = tvm_ffi.get_global_func(name)
    return f


def _numpy_dtype(dtype):
    import numpy as np

    text = str(dtype)
    if text == "bool":
        return np.bool_
    if text == "bfloat16":   # numpy's bfloat16 is ml_dtypes' (installed with onnx / jax)
        import ml_dtypes
        return np.dtype(ml_dtypes.bfloat16)
    return np.dtype(text)


def _make_tensor(h, tindex, bare=False, borrowed=False):
    if borrowed:
        C.ObjectIncRef(h)
    t = object.__new__(Tensor)
    t._h = h
    t._ti = tindex
    return t


# Every tensor coming back from C is a tvm.runtime.Tensor from now on, and passes to C like
# its base class.
_any.OBJECT_MAKERS[C.kTensor] = _make_tensor
_any.SETTERS[Tensor] = _any.SETTERS.get(tvm_ffi.Tensor) or _any.set_object


def empty(shape, dtype="float32", device=None):
    """An uninitialised compact tensor (64-byte aligned) on `device` (cpu by default)."""
    device = cpu() if device is None else device
    shape = shape if isinstance(shape, tvm_ffi.Shape) else tvm_ffi.Shape([int(s) for s in shape])
    return _global("runtime.TensorEmpty")(shape, tvm_ffi.dtype(str(dtype)), device)


def tensor(arr, device=None):
    """A tensor on `device` holding a copy of numpy array `arr`."""
    import numpy as np

    arr = np.asarray(arr)
    out = empty(arr.shape, str(arr.dtype) if arr.dtype != np.bool_ else "bool", device)
    return out.copyfrom(arr)
