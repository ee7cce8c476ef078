"""Helpers for tests of tvm_ffi itself and of code built on it."""

from .object import Object, testing_use_count


def object_use_count(obj):
    """Strong reference count of an FFI object: the low 32 bits of the refcount word at the
    object's handle (includes the reference the Python wrapper holds)."""
    if not isinstance(obj, Object):
        raise TypeError("object_use_count expects a tvm_ffi.Object")
    return testing_use_count(obj)
