"""Object: the Python wrapper of an FFI object handle, and the type table behind it.

A wrapper owns exactly one strong reference, taken when it is created and dropped once in
`__del__`. Python classes are attached to type keys with `register_object`; a handle whose
exact type has no class gets the class of its nearest registered ancestor (walking the
ancestors recorded in TVMFFIGetTypeInfo), so `isinstance` follows the C type hierarchy.
Registered fields (TVMFFITypeInfo.fields with a getter) are exposed as read-only properties,
or writable ones when the C side provides a setter.
"""

import ctypes

from . import _any, _frame
from . import _cabi as C


class TypeField:
    """A reflected field: name, offset from the handle, getter/setter and flags."""

    __slots__ = ("name", "doc", "offset", "flags", "getter", "setter", "setter_is_function",
                 "static_type_index", "metadata")

    def __repr__(self):
        return "TypeField(%r, offset=%d)" % (self.name, self.offset)


class TypeMethod:
    """A reflected method (a Function taking `self` first unless static)."""

    __slots__ = ("name", "doc", "func_words", "is_static", "metadata")


class TypeInfo:
    """Python view of a TVMFFITypeInfo record (copied once; the C record is immutable except
    for appended fields/methods, which `refresh` re-reads)."""

    __slots__ = ("type_index", "type_key", "type_depth", "type_ancestors", "fields",
                 "methods", "type_cls")

    def __repr__(self):
        return "TypeInfo(%r, index=%d)" % (self.type_key, self.type_index)


def _text(ba):
    return ctypes.string_at(ba.data, ba.size).decode("utf-8", "replace") if ba.size else ""


_TYPE_INFO = {}  # type index -> TypeInfo


def type_info(type_index):
    """The TypeInfo of `type_index` (cached), or None for an unknown index."""
    info = _TYPE_INFO.get(type_index)
    if info is None:
        ptr = C.GetTypeInfo(type_index)
        if not ptr:
            # The library reports the unknown index in the raised-error slot; clear it.
            h = ctypes.c_void_p()
            C.ErrorMoveFromRaised(ctypes.byref(h))
            C.ObjectDecRef(h)
            return None
        rec = ptr.contents
        info = TypeInfo()
        info.type_index = rec.type_index
        info.type_key = _text(rec.type_key)
        info.type_depth = rec.type_depth
        info.type_ancestors = [rec.type_ancestors[d].contents.type_index
                               for d in range(rec.type_depth)]
        info.type_cls = None
        _read_members(info, rec)
        _TYPE_INFO[type_index] = info
    return info


def _read_members(info, rec):
    info.fields = []
    for i in range(rec.num_fields):
        f = rec.fields[i]
        field = TypeField()
        field.name = _text(f.name)
        field.doc = _text(f.doc)
        field.metadata = _text(f.metadata)
        field.offset = f.offset
        field.flags = f.flags
        field.getter = C.FIELD_GETTER(f.getter) if f.getter else None
        field.setter_is_function = bool(f.flags & (1 << 11))
        field.setter = f.setter
        field.static_type_index = f.field_static_type_index
        info.fields.append(field)
    info.methods = []
    for i in range(rec.num_methods):
        m = rec.methods[i]
        method = TypeMethod()
        method.name = _text(m.name)
        method.doc = _text(m.doc)
        method.metadata = _text(m.metadata)
        method.is_static = bool(m.flags & 4)
        method.func_words = (m.method.type_index, m.method.v_int64)
        info.methods.append(method)


def type_key_to_index(type_key):
    """Type index registered for `type_key`, or None."""
    data = type_key.encode("utf-8")
    ba = C.TVMFFIByteArray(_frame.bytes_address(data), len(data))
    out = ctypes.c_int32()
    if C.TypeKeyToIndex(ctypes.byref(ba), ctypes.byref(out)) != 0:
        h = ctypes.c_void_p()
        C.ErrorMoveFromRaised(ctypes.byref(h))
        C.ObjectDecRef(h)
        return None
    return out.value


# ---------------------------------------------------------------------------------------------
# The wrapper class
# ---------------------------------------------------------------------------------------------
_ObjectDecRef = C.ObjectDecRef


class Object:
    """Base class of every FFI object wrapper.

    `_h` is the handle (an int; 0 once released or moved) and `_ti` its type index. Wrappers
    compare equal when they hold the same handle.

    There is deliberately no `__getattr__` here: a class with one (anywhere in its MRO) gets
    CPython's slow attribute path for every read, `self._h` in `Function.__call__` included
    (~25 ns each, unspecialisable). Reflected fields of an unregistered subtype, which its
    class (an ancestor's) lacks, are reached through `_field_getattr`, installed only on the
    classes that need it (see `class_for_index`).
    """

    __slots__ = ("_h", "_ti", "__weakref__")
    _tvm_type_index = C.kObject
    _tvm_type_key = "ffi.Object"

    def __new__(cls, *args, **kwargs):
        obj = object.__new__(cls)
        obj._h = 0
        obj._ti = cls._tvm_type_index
        return obj

    def __init__(self, *args, **kwargs):
        raise TypeError(
            "%s cannot be constructed directly; it is created by FFI calls" % type(self).__name__
        )

    def __del__(self):
        h = self._h
        if h:
            self._h = 0
            try:
                _ObjectDecRef(h)
            except Exception:  # interpreter shutdown: module globals may be gone
                pass

    def __init_handle_by_constructor__(self, fconstructor, *args):
        """Sets this wrapper's handle to the object `fconstructor(*args)` returns."""
        other = fconstructor(*args)
        if not isinstance(other, Object):
            raise TypeError("constructor did not return an object")
        self.__move_handle_from__(other)

    def __move_handle_from__(self, other):
        self._h, self._ti = other._h, other._ti
        other._h = 0

    def __chandle__(self):
        """The raw handle address."""
        return self._h

    def __ctypes_handle__(self):
        return ctypes.c_void_p(self._h)

    @property
    def __tvm_ffi_type_index__(self):
        return self._ti

    @property
    def __tvm_ffi_type_key__(self):
        info = type_info(self._ti)
        return info.type_key if info else "<unknown>"

    @property
    def __tvm_ffi_use_count__(self):
        """Strong reference count: the low 32 bits of the refcount word at the handle."""
        return testing_use_count(self)

    def same_as(self, other):
        return isinstance(other, Object) and self._h == other._h

    def is_(self, other):
        return self.same_as(other)

    def __eq__(self, other):
        return self.same_as(other)

    def __ne__(self, other):
        return not self.same_as(other)

    def __hash__(self):
        return hash(self._h)

    def __repr__(self):
        return "%s(type_key=%r, handle=0x%x)" % (type(self).__name__, self.__tvm_ffi_type_key__, self._h)

    def __reduce__(self):
        raise TypeError("FFI objects of type %s cannot be pickled" % self.__tvm_ffi_type_key__)


def _field_getattr(self, name):
    """`__getattr__` of the classes that stand in for unregistered subtypes with fields of
    their own: only reached for names not found normally."""
    if name.startswith("__") or name in ("_h", "_ti"):
        raise AttributeError(name)
    field = _find_field(self._ti, name)
    if field is None:
        raise AttributeError("%s (type %s) has no attribute %r"
                             % (type(self).__name__, self.__tvm_ffi_type_key__, name))
    return read_field(self, field)


def testing_use_count(obj):
    h = obj._h
    if not h:
        raise ValueError("object has been released")
    return ctypes.c_uint64.from_address(h).value & 0xFFFFFFFF


def _find_field(tindex, name):
    info = type_info(tindex)
    while info is not None:
        for f in info.fields:
            if f.name == name:
                return f
        if not info.type_ancestors:
            return None
        info = type_info(info.type_ancestors[-1])
    return None


# Result slots of field reads: (word view, address, buffer). A read takes one from this list
# and gives it back (list pop/append are atomic, so threads reading fields at once never share
# a slot); a call frame (_frame.get_frame) does the same job with several times the upkeep,
# and the compiler's passes read IR fields tens of thousands of times per model.
_FIELD_SLOTS = []


def _field_slot():
    buf = (ctypes.c_int64 * 2)()
    return memoryview(buf).cast("B").cast(_frame.WORD_FORMAT), ctypes.addressof(buf), buf


def read_field(obj, field):
    getter = field.getter
    if getter is None:
        raise AttributeError("field %r has no getter" % field.name)
    h = obj._h
    if not h:
        raise ValueError("cannot read field %r of a released object" % field.name)
    try:
        slot = _FIELD_SLOTS.pop()
    except IndexError:
        slot = _field_slot()
    try:
        q = slot[0]
        q[0] = 0  # None: the getter writes an owned value over it
        q[1] = 0
        if getter(h + field.offset, slot[1]) != 0:
            _frame.raise_last_error()
        w0 = q[0]
        if _K_OBJECT <= w0 <= 0x7FFFFFFF:
            # an object (most fields are): make_object's body inlined, ~5-15% of a read
            # measured against calling it
            maker = _OBJECT_MAKERS.get(w0)
            if maker is not None:
                return maker(q[1], w0)
            o = _new(_CLS_BY_INDEX.get(w0) or class_for_index(w0))
            o._h = q[1]
            o._ti = w0
            return o
        if w0 == _K_INT:
            return q[1]
        if w0 == _K_NONE:
            return None
        return _any.value_from_words(w0, q[1])
    finally:
        _FIELD_SLOTS.append(slot)


_K_OBJECT, _K_INT, _K_NONE = C.kObject, C.kInt, C.kNone
_OBJECT_MAKERS = _any.OBJECT_MAKERS
_new = object.__new__


def write_field(obj, field, value):
    if not field.setter:
        raise AttributeError("field %r is read-only" % field.name)
    if field.setter_is_function:
        fn = _any.wrap_handle(field.setter, C.kFunction, borrowed=True)
        fn(ctypes.c_void_p(obj._h + field.offset), value)
        return
    fr = _frame.get_frame(1)
    try:
        _any.pack_args(fr, (value,))
        if C.FIELD_SETTER(field.setter)(obj._h + field.offset, fr.args_addr) != 0:
            _frame.raise_last_error()
    finally:
        _frame.put_frame(fr, 1)


def _field_property(field):
    def fget(self):
        return read_field(self, field)

    def fset(self, value):
        write_field(self, field, value)

    writable = field.flags & 1 and field.setter
    return property(fget, fset if writable else None, doc=field.doc or None)


# ---------------------------------------------------------------------------------------------
# Type index -> class
# ---------------------------------------------------------------------------------------------
_REGISTERED = {C.kObject: Object}  # type index -> class given to register_object
_CLS_BY_INDEX = dict(_REGISTERED)  # the above plus resolved fallbacks (a cache)


def class_for_index(tindex):
    """The registered class of `tindex` or of its nearest registered ancestor (cached).

    When `tindex` (or an unregistered type between it and that ancestor) has reflected fields
    the class does not carry, the class gets `_field_getattr` as its `__getattr__`, which
    finds them by the instance's own type index. Object itself never gets it (every class
    would inherit the slow attribute path): those instances get `_ObjectWithFields` instead.
    """
    cls = _CLS_BY_INDEX.get(tindex)
    if cls is None:
        cls = Object
        info = type_info(tindex)
        between = [tindex]  # unregistered types from tindex up to the registered ancestor
        if info is not None:
            for anc in reversed(info.type_ancestors):
                found = _REGISTERED.get(anc)
                if found is not None:
                    cls = found
                    break
                between.append(anc)
        if _lacks_fields(cls, between):
            if cls is Object:
                cls = _ObjectWithFields
            elif "__getattr__" not in vars(cls):
                cls.__getattr__ = _field_getattr
        _CLS_BY_INDEX[tindex] = cls
    return cls


def _lacks_fields(cls, tindices):
    """Whether the types `tindices` have a reflected field that `cls` has no attribute for."""
    if getattr(cls, "__getattr__", None) is not None:
        return False  # it has a fallback already (ours, or the class's own)
    for t in tindices:
        info = type_info(t)
        if info is None:
            continue
        for f in info.fields:
            if f.name and not hasattr(cls, f.name):
                return True
    return False


class _ObjectWithFields(Object):
    """The class of unregistered objects with no registered ancestor but Object that have
    reflected fields: Object plus the field fallback (named Object: it stands in for it)."""

    __slots__ = ()
    __getattr__ = _field_getattr


_ObjectWithFields.__name__ = _ObjectWithFields.__qualname__ = "Object"


def make_object(h, tindex, bare=False, borrowed=False):
    """Wraps handle `h` (type index `tindex`); takes over one reference unless `borrowed`."""
    if borrowed:
        C.ObjectIncRef(h)
    cls = Object if bare else (_CLS_BY_INDEX.get(tindex) or class_for_index(tindex))
    obj = object.__new__(cls)
    obj._h = h
    obj._ti = tindex
    return obj


_any.MAKE_OBJECT[0] = make_object


def register_object(type_key=None):
    """Class decorator attaching a Python class to an FFI type key.

    Usage: ``@register_object("my.Type")`` (or bare ``@register_object`` to use the class's
    ``_type_key``/name). Objects of that type, and of unregistered subtypes, are returned as
    instances of the class; registered fields become properties.
    """

    def register(cls, key):
        tindex = type_key_to_index(key)
        if tindex is None:
            raise ValueError("register_object: type key %r is not registered in libtvm_ffi" % key)
        _TYPE_INFO.pop(tindex, None)  # re-read: fields may have been added since
        info = type_info(tindex)
        cls._tvm_type_index = tindex
        cls._tvm_type_key = key
        info.type_cls = cls
        for field in info.fields:
            if field.name and not _defined_in_class(cls, field.name):
                setattr(cls, field.name, _field_property(field))
        _REGISTERED[tindex] = cls
        # Forget resolved fallbacks: subtypes may now resolve to this class.
        _CLS_BY_INDEX.clear()
        _CLS_BY_INDEX.update(_REGISTERED)
        if issubclass(cls, Object):
            _any.SETTERS[cls] = _any.set_object
        return cls

    if isinstance(type_key, type):
        cls = type_key
        return register(cls, getattr(cls, "_type_key", None) or cls.__name__)
    return lambda cls: register(cls, type_key or getattr(cls, "_type_key", None) or cls.__name__)


def _defined_in_class(cls, name):
    return any(name in vars(k) for k in cls.__mro__ if k is not Object and k is not object)


def idx_is_sub(sub, sup):
    """Whether type index `sub` is `sup` or derives from it (TVMFFIGetTypeInfo ancestors)."""
    if sub == sup:
        return True
    info = type_info(sub)
    return info is not None and sup in info.type_ancestors


def _resolve_object(tp):
    if issubclass(tp, Object):
        return _any.set_object
    return None


_any.SETTER_RESOLVERS.insert(0, _resolve_object)
_any.SETTERS[Object] = _any.set_object
