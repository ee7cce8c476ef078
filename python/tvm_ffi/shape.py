"""Shape: an immutable tuple of ints backed by an ffi.Shape object (type index 69)."""

from . import _any, _frame
from . import _cabi as C
from .object import make_object


class Shape(tuple):
    """A tuple of ints; passed to C as an ffi.Shape (made on first use, then cached)."""

    # No __slots__: the instance dict holds `_tvm_ffi_cached_object`, the backing object.
    # Once set it never changes: callers pass its handle borrowed (see _set_shape), so a
    # second thread replacing it during a call would free the object under that call.

    def __new__(cls, content=()):
        content = tuple(content)
        for x in content:
            if not hasattr(x, "__index__") or isinstance(x, bool):
                raise ValueError("Shape must be a tuple of integers")
        return tuple.__new__(cls, (x.__index__() for x in content))

    def _ffi_object(self):
        d = self.__dict__
        obj = d.get("_tvm_ffi_cached_object")
        if obj is None:
            from .function import get_global_func

            made = get_global_func("ffi.Shape")(*self)._ffi_object()
            # Two threads may both get here: the first to store wins (dict.setdefault is one
            # atomic step under the GIL) and the other's object is dropped, never handed out.
            obj = d.setdefault("_tvm_ffi_cached_object", made)
        return obj

    def __reduce__(self):
        return (Shape, (tuple(self),))


def _shape_from_object(h, tindex):
    """Reads the cell {data, size} at +24 and keeps the object as the cached backing."""
    obj = make_object(h, tindex, bare=True)
    data, size = _frame.BYTEARRAY.unpack(C.string_at(h + C.OBJ_CELL, 16))
    shape = tuple.__new__(Shape, _frame.read_int64s(data, size))
    shape._tvm_ffi_cached_object = obj
    return shape


def _set_shape(fr, j, value):
    obj = value._ffi_object()
    fr.q[j] = obj._ti
    fr.q[j + 1] = obj._h


_any.OBJECT_MAKERS[C.kShape] = _shape_from_object
_any.SETTERS[Shape] = _set_shape
