"""Function: calling FFI functions from Python, and Python callables as FFI functions.

The call path (`Function.__call__`) is written for speed: a pooled frame, inline conversion of
the commonest argument kinds, one ctypes call to TVMFFIFunctionCall made without `argtypes`,
and inline conversion of the commonest results. Everything else goes through `_any`.

Python callables become Functions through TVMFFIFunctionCreate with one shared ctypes callback
(`_trampoline`); the `self` pointer it receives is a key into `_CALLBACKS`. ctypes callbacks
take the GIL themselves, so C may call them from any thread.
"""

import ctypes
import itertools

from . import _any, _frame
from . import _cabi as C
from .error import error_from_raised, set_raised_from_exception
from .object import Object, register_object

_POOL = _frame.POOL
_Frame = _frame.Frame
_SETTERS = _any.SETTERS
_setter_for = _any.setter_for
_OBJECT_MAKERS = _any.OBJECT_MAKERS
_MAKE_OBJECT = _any.MAKE_OBJECT
_value_from_words = _any.value_from_words
_raise_last_error = _frame.raise_last_error
_I64_MIN = _any.I64_MIN
_I64_MAX = _any.I64_MAX
_SMALL_STR_GET = _any.SMALL_STR_WORDS.get
_set_object = _any.set_object
_set_bigint = _any.set_bigint
_set_str = _any.set_str
_CALL_GIL_RELEASED = C.FunctionCall
_CALL_GIL_KEPT = C.FunctionCallNoGIL
_CAP = _frame.DEFAULT_FRAME_ARGS
_c_void_p = ctypes.c_void_p


@register_object("ffi.Function")
class Function(Object):
    """An FFI function. Call it with positional arguments."""

    __slots__ = ("_c", "_fcall")

    def __init__(self, func):
        """Wraps a Python callable (same as passing it where a Function is expected)."""
        other = convert_to_function(func)
        self.__move_handle_from__(other)

    def __move_handle_from__(self, other):
        Object.__move_handle_from__(self, other)
        self._c = _c_void_p(self._h)
        self._fcall = _CALL_GIL_RELEASED

    @property
    def release_gil(self):
        """Whether the GIL is released during calls (default True: C may block or call back
        into Python from other threads)."""
        return self._fcall is _CALL_GIL_RELEASED

    @release_gil.setter
    def release_gil(self, value):
        self._fcall = _CALL_GIL_RELEASED if value else _CALL_GIL_KEPT

    def __call__(self, *args):
        # Hot path; see the module docstring. Frames in the pool keep their result slot at
        # None, so it is only reset after a non-None result.
        try:
            fr = _POOL.pop()
        except IndexError:
            fr = _Frame(_CAP)
        q = fr.q
        slow = False  # whether a setter may have left temporaries in fr.temps
        if args:
            j = 4
            try:
                for a in args:
                    t = type(a)
                    if t is int:
                        q[j] = 1
                        try:
                            q[j + 1] = a
                        except ValueError:  # beyond int64: a BigInt object
                            slow = True
                            _set_bigint(fr, j, a)
                    elif t is float:
                        q[j] = 3
                        fr.d[j + 1] = a
                    elif t is str:
                        words = _SMALL_STR_GET(a)
                        if words is None:
                            slow = True
                            _set_str(fr, j, a)
                        else:
                            q[j], q[j + 1] = words
                    else:
                        setter = _SETTERS.get(t) or _setter_for(t)
                        if setter is _set_object:
                            h = a._h
                            if not h:
                                raise ValueError("cannot pass a released %s" % t.__name__)
                            q[j] = a._ti
                            q[j + 1] = h
                        else:
                            slow = True
                            setter(fr, j, a)
                    j += 2
            except IndexError:
                if j - 4 < 2 * _CAP:
                    _release_frame(fr)
                    raise
                _release_frame(fr)
                return _call_large(self, args)
            except BaseException:
                _release_frame(fr)
                raise
            rc = self._fcall(self._c, fr.args, len(args), fr.res)
        else:
            rc = self._fcall(self._c, fr.args, 0, fr.res)
        if slow:
            fr.temps.clear()
        if rc:
            _release_frame(fr)
            raise error_from_raised()
        w0 = q[0]
        if w0 == 0:
            _POOL.append(fr)
            return None
        w1 = q[1]
        if w0 == 1:
            q[0] = q[1] = 0
            _POOL.append(fr)
            return w1
        if w0 == 3:
            w1 = fr.d[1]
            q[0] = q[1] = 0
            _POOL.append(fr)
            return w1
        q[0] = q[1] = 0
        _POOL.append(fr)
        if 64 <= w0 <= 0x7FFFFFFF:  # objects (small strings carry a length above bit 32)
            maker = _OBJECT_MAKERS.get(w0)
            if maker is None:
                return _MAKE_OBJECT[0](w1, w0)
            return maker(w1, w0)
        return _value_from_words(w0, w1)

    @staticmethod
    def __from_extern_c__(c_symbol, *, keep_alive_object=None):
        """Wraps the address of a C safe-call function `int f(void*, const TVMFFIAny*, int32_t,
        TVMFFIAny*)`. Without `keep_alive_object` the function receives the Function handle as
        its first argument; with one, it receives an opaque non-NULL token, and the object
        stays alive as long as the Function."""
        out = ctypes.c_void_p()
        if keep_alive_object is None:
            rc = C.FunctionCreate(None, c_symbol, None, ctypes.byref(out))
        else:
            key = _keep(keep_alive_object)
            rc = C.FunctionCreate(key, c_symbol, _DELETER_ADDR, ctypes.byref(out))
            if rc:
                _CALLBACKS.pop(key, None)
        if rc:
            _raise_last_error()
        return _make_function(out.value, C.kFunction)


def _release_frame(fr):
    """Returns a frame to the pool after a failed call (temporaries dropped, result reset)."""
    fr.temps.clear()
    fr.q[0] = fr.q[1] = 0
    _POOL.append(fr)


def _call_large(func, args):
    """Calls with more arguments than a pooled frame holds (rare)."""
    fr = _frame.Frame(len(args))
    try:
        _any.pack_args(fr, args)
        fr.q[0] = 0
        fr.q[1] = 0
        if func._fcall(func._c, fr.args, len(args), fr.res):
            _raise_last_error()
        return _any.result_value(fr)
    finally:
        fr.temps.clear()


def _make_function(h, tindex, bare=False, borrowed=False):
    if borrowed:
        C.ObjectIncRef(h)
    f = object.__new__(Function)
    f._h = h
    f._ti = tindex
    f._c = _c_void_p(h)
    f._fcall = _CALL_GIL_RELEASED
    return f


_OBJECT_MAKERS[C.kFunction] = _make_function
_SETTERS[Function] = _any.set_object


# ---------------------------------------------------------------------------------------------
# Python callables as Functions
# ---------------------------------------------------------------------------------------------
_CALLBACKS = {}  # key -> Python object (callable, or a keep-alive object)
_KEYS = itertools.count(1)


def _keep(obj):
    key = next(_KEYS)
    _CALLBACKS[key] = obj
    return key


_DBL = _any._DBL
_I64 = _any._I64
_value_from_view = _any.value_from_view


_ALL_INTS = [[1] * n for n in range(16)]  # type tags of all-int argument lists


def _arg_from_view(w0, w1):
    if w0 == 3:
        return _DBL.unpack(_I64.pack(w1))[0]
    return _value_from_view(w0, w1)


def _py_safe_call(key, args, nargs, result):
    """The safe_call of every Python-backed Function: converts, calls, converts back.

    `args` and `result` arrive as ctypes int64 pointers (see _cabi.SAFE_CALL): indexing them
    is the cheapest way to move words from Python.
    """
    try:
        func = _CALLBACKS[key]
        if nargs == 0:
            rv = func()
        else:
            words = args[0:2 * nargs]  # one slice: a list of ints
            vals = words[1::2]
            tags = words[0::2]
            if tags != (_ALL_INTS[nargs] if nargs < 16 else [1] * nargs):
                for i, w0 in enumerate(tags):
                    if w0 != 1:
                        vals[i] = _arg_from_view(w0, vals[i])
            rv = func(*vals)
        if rv is None:
            return 0  # the caller pre-initialised the result to None
        if type(rv) is int and _I64_MIN <= rv <= _I64_MAX:
            result[0] = 1
            result[1] = rv
            return 0
        _write_result(rv, result)
        return 0
    except BaseException as exc:  # noqa: BLE001 - everything must be reported to C
        set_raised_from_exception(exc)
        return -1


def _write_result(rv, result):
    """Stores `rv` as an owned Any through the int64 pointer `result`."""
    try:
        fr = _POOL.pop()
    except IndexError:
        fr = _Frame(_CAP)
    try:
        (_SETTERS.get(type(rv)) or _setter_for(type(rv)))(fr, 4, rv)
        w0 = fr.q[4]
        w1 = fr.q[5]
        if 64 <= w0 <= 0x7FFFFFFF:
            C.ObjectIncRef(w1)  # the result owns a reference; temps drop theirs below
        result[0] = w0
        result[1] = w1
    finally:
        if fr.temps:
            fr.temps.clear()
        _POOL.append(fr)


_trampoline = C.SAFE_CALL(_py_safe_call)


@C.FUNC_DELETER
def _deleter(key):
    _CALLBACKS.pop(key, None)


_TRAMPOLINE_ADDR = ctypes.cast(_trampoline, ctypes.c_void_p).value
_DELETER_ADDR = ctypes.cast(_deleter, ctypes.c_void_p).value


def convert_to_function(pyfunc):
    """A Function calling the Python callable `pyfunc` (Functions are returned as they are)."""
    if isinstance(pyfunc, Function):
        return pyfunc
    if not callable(pyfunc):
        raise TypeError("expected a callable, got %s" % type(pyfunc).__name__)
    key = _keep(pyfunc)
    out = ctypes.c_void_p()
    if C.FunctionCreate(key, _TRAMPOLINE_ADDR, _DELETER_ADDR, ctypes.byref(out)) != 0:
        _CALLBACKS.pop(key, None)
        _raise_last_error()
    return _make_function(out.value, C.kFunction)


# ---------------------------------------------------------------------------------------------
# Global functions
# ---------------------------------------------------------------------------------------------
def _name_array(name):
    data = name.encode("utf-8")
    return C.TVMFFIByteArray(_frame.bytes_address(data), len(data)), data


def get_global_func(name, allow_missing=False):
    """The global function `name`; None (allow_missing) or ValueError when absent."""
    ba, keep = _name_array(name)
    out = ctypes.c_void_p()
    if C.FunctionGetGlobal(ctypes.byref(ba), ctypes.byref(out)) != 0:
        _raise_last_error()
    del keep
    if not out.value:
        if allow_missing:
            return None
        raise ValueError("Cannot find global function %s" % name)
    return _make_function(out.value, C.kFunction)


def register_global_func(func_name, f=None, override=False):
    """Registers a Python callable (or Function) as global `func_name`.

    Also a decorator: ``@register_global_func("name")`` or ``@register_global_func`` (uses
    the function's __name__); ``override=True`` replaces an existing registration.
    """
    if callable(func_name) and f is None:
        f, func_name = func_name, func_name.__name__
    if not isinstance(func_name, str):
        raise TypeError("global function name must be a str")

    def register(myf):
        fobj = convert_to_function(myf)
        ba, keep = _name_array(func_name)
        if C.FunctionSetGlobal(ctypes.byref(ba), fobj._h, 1 if override else 0) != 0:
            _raise_last_error()
        del keep
        return myf

    return register if f is None else register(f)


def list_global_func_names():
    """Names of all global functions (ffi.FunctionListGlobalNamesFunctor)."""
    functor = get_global_func("ffi.FunctionListGlobalNamesFunctor")()
    return [functor(i) for i in range(functor(-1))]


def remove_global_func(name):
    """Removes global `name`; returns whether it existed (ffi.FunctionRemoveGlobal)."""
    return bool(get_global_func("ffi.FunctionRemoveGlobal")(name))


def get_global_func_metadata(name):
    """Metadata of global `name` as a dict ({} when it has none)."""
    import json

    text = get_global_func("ffi.GetGlobalFuncMetadata")(name)
    return json.loads(text) if text else {}
