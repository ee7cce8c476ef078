"""Array, List, Map and Dict: Python views of the FFI containers.

Array and Map are immutable (copy-on-write on the C side); List and Dict are mutable and shared
with C. Access goes through the library's `ffi.*` container globals, except that an Array's
size and elements are read straight from its TVMFFISeqCell (c_api.h: the cell at handle + 24,
{data, size, capacity, deleter}, `size` owned TVMFFIAny slots of 16 bytes at `data`): the
compiler's Python passes iterate Arrays of IR nodes ~100,000 times per model, and one FFI call
per element was a fifth of their time. Python lists/tuples passed to C become Arrays and dicts
become Maps (see _any.set_sequence / set_mapping).
"""

import collections.abc as abc
import ctypes
import struct

from . import _any, _ffi_api
from .object import Object, register_object

_SEQ_CELL = 24  # offset of the TVMFFISeqCell in an Array/List object
_SLOT = struct.Struct("<qq")  # a TVMFFIAny: type index (+ small-string length above bit 32), payload


def _seq_size(h):
    return ctypes.c_int64.from_address(h + _SEQ_CELL + 8).value


def _seq_items(h, start, stop):
    """The values of slots [start, stop) of the sequence object at handle h (the container
    keeps owning them: objects get a reference of their own, as ArrayGetItem's would)."""
    if stop <= start:
        return []
    data = ctypes.c_void_p.from_address(h + _SEQ_CELL).value
    raw = ctypes.string_at(data + 16 * start, 16 * (stop - start))
    return [_any.value_from_view(w0, w1) for w0, w1 in _SLOT.iter_unpack(raw)]


def _normalize_index(length, idx):
    idx = idx.__index__()
    if idx < 0:
        idx += length
    if not 0 <= idx < length:
        raise IndexError("index out of range")
    return idx


def _flatten(mapping):
    items = mapping.items() if hasattr(mapping, "items") else mapping
    out = []
    for k, v in items:
        out.append(k)
        out.append(v)
    return out


class _SequenceMixin:
    __slots__ = ()
    _size = _get = None  # set per class (names of ffi globals)

    def __len__(self):
        return getattr(_ffi_api, self._size)(self)

    def __getitem__(self, idx):
        n = len(self)
        if isinstance(idx, slice):
            return [self[i] for i in range(*idx.indices(n))]
        return getattr(_ffi_api, self._get)(self, _normalize_index(n, idx))

    def __iter__(self):
        get = getattr(_ffi_api, self._get)
        for i in range(len(self)):
            yield get(self, i)

    def __eq__(self, other):
        if isinstance(other, Object) and self.same_as(other):
            return True
        if not isinstance(other, (list, tuple, _SequenceMixin)):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other))

    def __ne__(self, other):
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    __hash__ = Object.__hash__

    def __bool__(self):
        return len(self) > 0

    def __repr__(self):
        return "%s(%r)" % (type(self).__name__, list(self))


@register_object("ffi.Array")
class Array(_SequenceMixin, Object, abc.Sequence):
    """Immutable sequence: ``Array([1, 2, 3])``."""

    __slots__ = ()
    _size, _get = "ArraySize", "ArrayGetItem"

    def __init__(self, input_list=()):
        self.__init_handle_by_constructor__(_ffi_api.Array, *input_list)

    # Immutable while Python holds it (copy-on-write needs a unique owner): read in place.
    def __len__(self):
        return _seq_size(self._live_handle())

    def __getitem__(self, idx):
        h = self._live_handle()
        n = _seq_size(h)
        if isinstance(idx, slice):
            start, stop, step = idx.indices(n)
            if step == 1:
                return _seq_items(h, start, stop)
            return [self[i] for i in range(start, stop, step)]
        i = _normalize_index(n, idx)
        return _seq_items(h, i, i + 1)[0]

    def __iter__(self):
        h = self._live_handle()
        return iter(_seq_items(h, 0, _seq_size(h)))

    def _live_handle(self):
        if not self._h:
            raise ValueError("the Array was released")
        return self._h

    def __contains__(self, value):
        return any(value == x for x in self)

    def __add__(self, other):
        return Array(list(self) + list(other))

    def __radd__(self, other):
        return Array(list(other) + list(self))


@register_object("ffi.List")
class List(_SequenceMixin, Object, abc.MutableSequence):
    """Mutable sequence shared with C: ``List([1, 2])``."""

    __slots__ = ()
    _size, _get = "ListSize", "ListGetItem"

    def __init__(self, input_list=()):
        self.__init_handle_by_constructor__(_ffi_api.List, *input_list)

    def __setitem__(self, idx, value):
        if isinstance(idx, slice):
            items = list(self)
            items[idx] = list(value)
            self.clear()
            self.extend(items)
            return
        _ffi_api.ListSetItem(self, _normalize_index(len(self), idx), value)

    def __delitem__(self, idx):
        if isinstance(idx, slice):
            for i in sorted(range(*idx.indices(len(self))), reverse=True):
                _ffi_api.ListErase(self, i)
            return
        _ffi_api.ListErase(self, _normalize_index(len(self), idx))

    def insert(self, index, value):
        n = len(self)
        index = index.__index__()
        index = max(0, min(n, index + n if index < 0 else index))
        _ffi_api.ListInsert(self, index, value)

    def append(self, value):
        _ffi_api.ListAppend(self, value)

    def clear(self):
        _ffi_api.ListClear(self)


class _MappingMixin:
    __slots__ = ()
    _size = _get_or_missing = _iter = None

    def __len__(self):
        return getattr(_ffi_api, self._size)(self)

    def _lookup(self, key):
        value = getattr(_ffi_api, self._get_or_missing)(self, key)
        return _MISSING_HOLDER.missing, value

    def __getitem__(self, key):
        missing, value = self._lookup(key)
        if isinstance(value, Object) and value.same_as(missing):
            raise KeyError(key)
        return value

    def __contains__(self, key):
        missing, value = self._lookup(key)
        return not (isinstance(value, Object) and value.same_as(missing))

    def get(self, key, default=None):
        missing, value = self._lookup(key)
        if isinstance(value, Object) and value.same_as(missing):
            return default
        return value

    def items(self):
        n = len(self)
        if n == 0:
            return  # most maps read are empty (a call's attrs): no iterator made
        functor = getattr(_ffi_api, self._iter)(self)
        for _ in range(n):
            yield functor(0), functor(1)
            functor(2)

    def keys(self):
        return [k for k, _ in self.items()]

    def values(self):
        return [v for _, v in self.items()]

    def __iter__(self):
        return iter(self.keys())

    def __eq__(self, other):
        if isinstance(other, Object) and self.same_as(other):
            return True
        if not isinstance(other, (dict, _MappingMixin)):
            return NotImplemented
        if len(self) != len(other):
            return False
        for k, v in self.items():
            if k not in other or not other[k] == v:
                return False
        return True

    def __ne__(self, other):
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    __hash__ = Object.__hash__

    def __bool__(self):
        return len(self) > 0

    def __repr__(self):
        return "%s({%s})" % (type(self).__name__,
                             ", ".join("%r: %r" % kv for kv in self.items()))


class _MissingHolder:
    """The library's MISSING sentinel (ffi.GetInvalidObject), fetched once."""

    _missing = None

    @property
    def missing(self):
        if self._missing is None:
            type(self)._missing = _ffi_api.GetInvalidObject()
        return self._missing


_MISSING_HOLDER = _MissingHolder()


@register_object("ffi.Map")
class Map(_MappingMixin, Object, abc.Mapping):
    """Immutable mapping: ``Map({"a": 1})``; iteration follows insertion order."""

    __slots__ = ()
    _size, _get_or_missing, _iter = "MapSize", "MapGetItemOrMissing", "MapForwardIterFunctor"

    def __init__(self, input_dict=()):
        self.__init_handle_by_constructor__(_ffi_api.Map, *_flatten(input_dict))

    def keys(self):
        return _MappingMixin.keys(self)

    def values(self):
        return _MappingMixin.values(self)

    def items(self):
        return list(_MappingMixin.items(self))


@register_object("ffi.Dict")
class Dict(_MappingMixin, Object, abc.MutableMapping):
    """Mutable mapping shared with C: ``Dict({"a": 1})``."""

    __slots__ = ()
    _size, _get_or_missing, _iter = "DictSize", "DictGetItemOrMissing", "DictForwardIterFunctor"

    def __init__(self, input_dict=None):
        self.__init_handle_by_constructor__(_ffi_api.Dict, *_flatten(input_dict or {}))

    def __setitem__(self, key, value):
        _ffi_api.DictSetItem(self, key, value)

    def __delitem__(self, key):
        if key not in self:
            raise KeyError(key)
        _ffi_api.DictErase(self, key)

    def clear(self):
        _ffi_api.DictClear(self)

    def keys(self):
        return _MappingMixin.keys(self)

    def values(self):
        return _MappingMixin.values(self)

    def items(self):
        return list(_MappingMixin.items(self))

    def pop(self, key, *default):
        if key in self:
            value = self[key]
            del self[key]
            return value
        if default:
            return default[0]
        raise KeyError(key)

    def update(self, other=(), **kwargs):
        for k, v in (other.items() if hasattr(other, "items") else other):
            self[k] = v
        for k, v in kwargs.items():
            self[k] = v


# Lists/tuples and dicts passed to a function become Arrays and Maps (_any.CONVERTERS).
_any.CONVERTERS["array"] = Array
_any.CONVERTERS["map"] = Map
