"""Errors across the boundary, both ways.

C -> Python: a failed call leaves an Error object in the thread's raised-error slot. It is
raised as the Python class registered for its kind (unknown kinds: RuntimeError), with the
backtrace lines (`  File "<file>", line <n>, in <func>`, most recent first) appended as
synthetic traceback frames, and the Error object attached as `__tvm_ffi_error__`.

Python -> C: an exception escaping a callback becomes an Error whose kind is the registered
name of its class (or nearest registered base), whose message is str(exc), and whose
backtrace is the Python traceback (most recent first) followed by the C backtrace at the
callback. An exception that came from C keeps its Error object (C frames included); only the
backtrace is replaced with the full Python view of it.
"""

import ctypes
import types

from . import _any, _frame
from . import _cabi as C
from .object import Object, register_object

ERROR_NAME_TO_TYPE = {}
ERROR_TYPE_TO_NAME = {}


def register_error(name_or_cls=None, cls=None):
    """Registers a Python exception class for an FFI error kind.

    ``register_error("Kind", MyError)``, ``@register_error("Kind")`` or ``@register_error``
    (the class name is the kind).
    """
    if isinstance(name_or_cls, type):
        cls, name_or_cls = name_or_cls, name_or_cls.__name__

    def register(mycls):
        name = name_or_cls if isinstance(name_or_cls, str) else mycls.__name__
        ERROR_NAME_TO_TYPE[name] = mycls
        ERROR_TYPE_TO_NAME[mycls] = name
        return mycls

    return register if cls is None else register(cls)


for _cls in (RuntimeError, ValueError, TypeError, AttributeError, KeyError, IndexError,
             AssertionError, MemoryError):
    register_error(_cls.__name__, _cls)


def _byte_array(text):
    data = text.encode("utf-8", "surrogatepass")
    return C.TVMFFIByteArray(_frame.bytes_address(data), len(data)), data


@register_object("ffi.Error")
class Error(Object):
    """An FFI Error object (kind, message, backtrace)."""

    __slots__ = ()

    def __init__(self, kind, message, backtrace=""):
        parts = [_byte_array(kind), _byte_array(message), _byte_array(backtrace)]
        out = ctypes.c_void_p()
        if C.ErrorCreate(*(ctypes.byref(p[0]) for p in parts), ctypes.byref(out)) != 0:
            raise MemoryError("TVMFFIErrorCreate failed")
        self._h = out.value
        self._ti = C.kError

    def _cell_text(self, index):
        return _frame.decode_text(_frame.read_byte_array(self._h + C.OBJ_CELL + 16 * index))

    @property
    def kind(self):
        return self._cell_text(0)

    @property
    def message(self):
        return self._cell_text(1)

    @property
    def backtrace(self):
        return self._cell_text(2)

    def update_backtrace(self, backtrace, mode=0):
        """Replaces (mode 0) or extends (mode 1) the backtrace through the object's hook."""
        ba, keep = _byte_array(backtrace)
        hook_addr = ctypes.c_void_p.from_address(self._h + C.OBJ_CELL + 48).value
        hook = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int32)(hook_addr)
        hook(self._h, ctypes.addressof(ba), mode)
        del keep

    def py_error(self):
        """The Python exception this error maps to (with synthetic traceback frames)."""
        cls = ERROR_NAME_TO_TYPE.get(self.kind, RuntimeError)
        msg = self.message
        try:
            exc = cls(msg)
        except Exception:
            exc = RuntimeError(msg)
        exc.__tvm_ffi_error__ = self
        tb = _frames_to_traceback(parse_backtrace(self.backtrace))
        return exc.with_traceback(tb) if tb is not None else exc

    def __repr__(self):
        return "ffi.Error(%r, %r)" % (self.kind, self.message)


def parse_backtrace(backtrace):
    """[(file, line, func)] from backtrace text, in the text's order (most recent first)."""
    out = []
    for line in backtrace.split("\n"):
        line = line.strip()
        if not line.startswith('File "'):
            continue
        end = line.find('", line ', 6)
        if end < 0:
            continue
        filename = line[6:end]
        rest = line[end + 8:]
        comma = rest.find(", in ")
        if comma < 0:
            continue
        try:
            lineno = int(rest[:comma])
        except ValueError:
            continue
        out.append((filename, lineno, rest[comma + 5:]))
    return out


# (file, func) -> a suspended generator whose frame stands for that C++ function.
_FRAME_CACHE = {}


def _frame_for(filename, func):
    """A frame whose code claims `filename` and `func`, for synthetic traceback entries.

    The frame is that of a suspended generator: it has no f_back, so it keeps nothing of the
    call that first needed it alive (a frame made by raising would link to its callers' frames
    and their locals for as long as the cache holds it)."""
    key = (filename, func)
    gen = _FRAME_CACHE.get(key)
    if gen is None:
        namespace = {}
        exec(compile("def _synthetic():\n    yield\n", filename, "exec"), namespace)
        fn = namespace["_synthetic"]
        try:
            fn.__code__ = fn.__code__.replace(co_name=func, co_qualname=func)
        except TypeError:  # Python < 3.11 has no co_qualname
            fn.__code__ = fn.__code__.replace(co_name=func)
        gen = fn()
        next(gen)
        if len(_FRAME_CACHE) >= 4096:  # bounded: one entry per distinct C++ function
            _FRAME_CACHE.clear()
        _FRAME_CACHE[key] = gen
    return gen.gi_frame


def _frames_to_traceback(frames):
    """Chains (file, line, func) frames (most recent first) into a traceback, oldest outer."""
    tb = None
    for filename, lineno, func in frames:
        try:
            tb = types.TracebackType(tb, _frame_for(filename, func), -1, lineno)
        except Exception:
            continue
    return tb


def _take_raised_error():
    h = ctypes.c_void_p()
    C.ErrorMoveFromRaised(ctypes.byref(h))
    if not h.value:
        return None
    return _any.MAKE_OBJECT[0](h.value, C.kError)


def error_from_raised():
    """The pending FFI error of this thread as a Python exception (for `raise`)."""
    err = _take_raised_error()
    if err is None:
        return RuntimeError("an FFI call failed without raising an error")
    if not isinstance(err, Error):  # defensive: the slot should only hold Error objects
        return RuntimeError("an FFI call failed with a non-Error object")
    return err.py_error()


_frame.RAISE_LAST_ERROR[0] = error_from_raised


def traceback_to_backtrace(tb):
    """Python traceback -> backtrace text, most recent call first."""
    lines = []
    while tb is not None:
        code = tb.tb_frame.f_code
        lines.append('  File "%s", line %d, in %s\n' % (code.co_filename, tb.tb_lineno,
                                                        code.co_name))
        tb = tb.tb_next
    return "".join(reversed(lines))


_HOST_PREFIXES = ("_Py", "Py", "ffi_", "_ctypes", "slot_tp_call", "method_vectorcall",
                  "cfunction_", "_start", "__libc_start", "TVMFFIBacktrace")


def _native_caller_backtrace():
    """The C frames that called the running Python callback, most recent first.

    The library's boundary detection stops at the first host frame, which from a ctypes
    callback is the ctypes call into TVMFFIBacktrace itself. So the whole stack is taken
    (cross_ffi_boundary=1) and cut here: skip the interpreter and ctypes frames of this
    callback, then keep native frames until the next TVMFFIFunctionCall or interpreter frame.
    """
    bt = C.Backtrace(None, 0, None, 1)
    if not bt:
        return ""
    text = ctypes.string_at(bt.contents.data, bt.contents.size).decode("utf-8", "replace")
    out, started = [], False
    for line in text.splitlines(True):
        func = line.rsplit(", in ", 1)[-1].strip()
        host = func.startswith(_HOST_PREFIXES)
        if not started:
            if host:
                continue
            started = True
        if host or func.startswith("TVMFFIFunctionCall"):
            break
        out.append(line)
    return "".join(out)


def _kind_of(exc):
    for klass in type(exc).__mro__:
        name = ERROR_TYPE_TO_NAME.get(klass)
        if name is not None:
            return name
    return "RuntimeError"


def convert_to_ffi_error(exc):
    """The FFI Error object for a Python exception (reusing one that came from C)."""
    py_bt = traceback_to_backtrace(exc.__traceback__) + _native_caller_backtrace()
    err = getattr(exc, "__tvm_ffi_error__", None)
    if isinstance(err, Error) and err._h:
        # The Python traceback already holds the error's earlier C frames (as synthetic
        # frames), so replacing the backtrace keeps them.
        err.update_backtrace(py_bt, 0)
        return err
    message = str(exc)
    if isinstance(exc, KeyError) and len(exc.args) == 1:
        message = str(exc.args[0])
    return Error(_kind_of(exc), message, py_bt)


def set_raised_from_exception(exc):
    """Stores `exc` in the thread's raised-error slot (inside a callback)."""
    try:
        err = convert_to_ffi_error(exc)
    except BaseException:  # never let conversion trouble escape a C callback
        err = Error("RuntimeError", "error while converting a Python exception", "")
    C.ErrorSetRaised(err._h)


_any.CONVERTERS["error"] = convert_to_ffi_error  # exceptions passed as arguments
