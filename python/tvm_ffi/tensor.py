"""Tensor (ffi.Tensor, type index 70) and DLPack exchange with numpy, PyTorch and friends.

Import (`from_dlpack`): the producer's capsule ("dltensor" or "dltensor_versioned") hands its
managed tensor to TVMFFITensorFromDLPack[Versioned]; on success the capsule is renamed
"used_dltensor[_versioned]" so the producer's capsule destructor leaves it alone, and the
Tensor calls the managed tensor's deleter when it dies. No data is copied.

Export (`Tensor.__dlpack__`): TVMFFITensorToDLPack[Versioned] makes a managed tensor holding a
reference to the Tensor, wrapped in a capsule whose destructor deletes it unless a consumer
renamed (consumed) it.
"""

import ctypes

from . import _any, _capsule, _frame, _framework
from . import _cabi as C
from .device import Device
from .dtype import _from_triple
from .object import Object, register_object

_LEGACY = b"dltensor"
_VERSIONED = b"dltensor_versioned"
_USED_LEGACY = b"used_dltensor"
_USED_VERSIONED = b"used_dltensor_versioned"
__dlpack_version__ = (1, 3)

# Capsule helpers that take the raw PyObject* (the destructor must not create references to
# a capsule that is being deallocated).
_IsValidRaw = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p)(
    ("PyCapsule_IsValid", ctypes.pythonapi))
_GetPointerRaw = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p)(
    ("PyCapsule_GetPointer", ctypes.pythonapi))


def _call_managed_deleter(managed, deleter_offset):
    deleter = ctypes.c_void_p.from_address(managed + deleter_offset).value
    if deleter:
        C.DLPACK_DELETER(deleter)(managed)


@C.PyCapsule_Destructor
def _legacy_capsule_destructor(capsule):
    if _IsValidRaw(capsule, _LEGACY):
        _call_managed_deleter(_GetPointerRaw(capsule, _LEGACY), 56)


@C.PyCapsule_Destructor
def _versioned_capsule_destructor(capsule):
    if _IsValidRaw(capsule, _VERSIONED):
        _call_managed_deleter(_GetPointerRaw(capsule, _VERSIONED), 16)


_LEGACY_DTOR = ctypes.cast(_legacy_capsule_destructor, ctypes.c_void_p).value
_VERSIONED_DTOR = ctypes.cast(_versioned_capsule_destructor, ctypes.c_void_p).value


@register_object("ffi.Tensor")
class Tensor(Object):
    """An n-dimensional array shared with C without copies. Create with `from_dlpack`."""

    __slots__ = ("_meta",)

    def _info(self):
        """The DLTensor fields (read once: a Tensor's metadata never changes)."""
        try:
            meta = self._meta
        except AttributeError:
            meta = None
        if meta is None:
            if not self._h:
                raise ValueError("Tensor has been released")
            meta = self._meta = _frame.read_dltensor(self._h + C.OBJ_CELL)
        return meta

    @property
    def shape(self):
        m = self._info()
        return _frame.read_int64s(m[7], m[3])

    @property
    def ndim(self):
        return self._info()[3]

    @property
    def strides(self):
        m = self._info()
        if not m[8]:
            return _compact_strides(self.shape)
        return _frame.read_int64s(m[8], m[3])

    @property
    def dtype(self):
        m = self._info()
        return _from_triple(m[4], m[5], m[6])

    @property
    def device(self):
        m = self._info()
        dev = object.__new__(Device)
        dev._type, dev._index = m[1], m[2]
        return dev

    @property
    def byte_offset(self):
        return self._info()[9]

    def data_ptr(self):
        """Address of the first element (data + byte_offset)."""
        m = self._info()
        return m[0] + m[9]

    def numel(self):
        n = 1
        for s in self.shape:
            n *= s
        return n

    def size(self, idx):
        return self.shape[idx]

    def is_contiguous(self):
        shape, strides = self.shape, self.strides
        if 0 in shape:
            return True
        expected = 1
        for s, st in zip(reversed(shape), reversed(strides)):
            if s == 1:
                continue
            if st != expected:
                return False
            expected *= s
        return True

    def __dlpack_device__(self):
        m = self._info()
        return (m[1], m[2])

    def _to_dlpack(self):
        out = ctypes.c_void_p()
        if C.TensorToDLPack(self._h, ctypes.byref(out)) != 0:
            _frame.raise_last_error()
        return C.PyCapsule_New(out.value, _LEGACY, _LEGACY_DTOR)

    def _to_dlpack_versioned(self):
        out = ctypes.c_void_p()
        if C.TensorToDLPackVersioned(self._h, ctypes.byref(out)) != 0:
            _frame.raise_last_error()
        return C.PyCapsule_New(out.value, _VERSIONED, _VERSIONED_DTOR)

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        """A DLPack capsule: legacy "dltensor" unless max_version >= (1, 0) is given."""
        if not self._h:
            raise BufferError("Tensor has been released")
        if dl_device is not None and tuple(dl_device) != self.__dlpack_device__():
            raise BufferError("Tensor lives on %r, cannot export to %r"
                              % (self.__dlpack_device__(), tuple(dl_device)))
        if copy:
            raise BufferError("Tensor.__dlpack__ does not copy")
        if max_version is None or max_version[0] < 1:
            return self._to_dlpack()
        return self._to_dlpack_versioned()

    def __repr__(self):
        if not self._h:
            return "Tensor(<released>)"
        return "Tensor(shape=%s, dtype=%s, device=%s)" % (self.shape, self.dtype, self.device)


def _compact_strides(shape):
    strides, acc = [], 1
    for s in reversed(shape):
        strides.append(acc)
        acc *= s
    return tuple(reversed(strides))


def _is_capsule(obj):
    return type(obj).__name__ == "PyCapsule"


def _tensor_from_capsule(capsule, require_alignment=0, require_contiguous=False):
    if (_capsule.FAST and type(capsule) is _capsule.TYPE
            and not (require_alignment or require_contiguous)):
        # One C call reads the capsule, imports and renames it (ImportCapsule).
        fr = _frame.get_frame(0)
        try:
            q = fr.q
            q[2] = id(capsule) + _capsule.HEADER
            q[3] = -1  # the handle comes back in scratch word 0
            if C.ImportCapsule(fr.ref):
                _frame.raise_last_error()  # ownership stays with the capsule
            handle = q[2]
        finally:
            _frame.put_frame(fr)
        # Through the registered maker, so a package extending Tensor (tvm) gets its class.
        return _any.OBJECT_MAKERS[C.kTensor](handle, C.kTensor)
    managed, name, words = _capsule.parts(capsule)
    if name == _LEGACY:
        importer, used = C.TensorFromDLPackRaw, _USED_LEGACY
    elif name == _VERSIONED:
        importer, used = C.TensorFromDLPackVersionedRaw, _USED_VERSIONED
    elif name in (_USED_LEGACY, _USED_VERSIONED):
        raise ValueError("DLPack capsule was already consumed")
    else:
        raise TypeError("not a DLPack capsule (name %r)" % (name,))
    fr = _frame.get_frame(0)
    try:
        fr.vp.value = managed
        if importer(fr.vp, int(require_alignment), 1 if require_contiguous else 0, fr.scratch):
            _frame.raise_last_error()  # ownership stays with the capsule
        handle = fr.q[2]
    finally:
        _frame.put_frame(fr)
    _capsule.rename(capsule, words, used)
    return _any.OBJECT_MAKERS[C.kTensor](handle, C.kTensor)


def from_dlpack(ext_tensor, *, require_alignment=0, require_contiguous=False):
    """A Tensor sharing the memory of `ext_tensor` (anything with __dlpack__, or a capsule).

    Raises TypeError for objects that do not speak DLPack.
    """
    if isinstance(ext_tensor, Tensor) and not (require_alignment or require_contiguous):
        return ext_tensor
    dlpack = getattr(ext_tensor, "__dlpack__", None)
    if dlpack is None:
        if _is_capsule(ext_tensor):
            return _tensor_from_capsule(ext_tensor, require_alignment, require_contiguous)
        raise TypeError("%s does not support DLPack (no __dlpack__)" % type(ext_tensor).__name__)
    # The legacy capsule first, as apache-tvm-ffi does: every producer supports it.
    try:
        capsule = dlpack()
    except TypeError:
        capsule = dlpack(max_version=__dlpack_version__)
    return _tensor_from_capsule(capsule, require_alignment, require_contiguous)


def set_dlpack_arg(fr, j, value):
    """Argument setter for foreign tensors: a temporary zero-copy Tensor."""
    try:
        capsule = value.__dlpack__()  # legacy first, as in from_dlpack
    except TypeError:
        capsule = value.__dlpack__(max_version=__dlpack_version__)
    if (_capsule.FAST and type(capsule) is _capsule.TYPE
            and fr.cap == _frame.DEFAULT_FRAME_ARGS):
        # One C call imports the capsule into argument j, owned by the frame: the call drops
        # it, so no Tensor wrapper is needed (ImportCapsule).
        q = fr.q
        q[2] = id(capsule) + _capsule.HEADER
        q[3] = (j - 4) >> 1
        if C.ImportCapsule(fr.ref):
            _frame.raise_last_error()  # ownership stays with the capsule
        return
    _frame.give_object(fr, j, _tensor_from_capsule(capsule), True)


def dlpack_setter(tp):
    """The argument setter for foreign tensor type `tp`: plain DLPack, or, for a framework
    publishing a DLPack exchange API (torch), the same plus the framework's environment for
    the call (_framework.py)."""
    api = _framework.exchange_api(tp)
    if not api:
        return set_dlpack_arg
    info = _framework.info(api)
    import_arg, enter = _framework.import_arg, _framework.enter

    def set_framework_arg(fr, j, value):
        if not import_arg(fr, j, value, info):
            set_dlpack_arg(fr, j, value)
        enter(fr, j, info)
    return set_framework_arg


def _make_tensor(h, tindex, bare=False, borrowed=False):
    if borrowed:
        C.ObjectIncRef(h)
    t = object.__new__(Tensor)
    t._h = h
    t._ti = tindex
    return t


_any.OBJECT_MAKERS[C.kTensor] = _make_tensor


_any.CONVERTERS["dlpack"] = dlpack_setter  # foreign tensor types passed as arguments
