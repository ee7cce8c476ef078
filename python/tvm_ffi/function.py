"""Function: calling FFI functions from Python, and Python callables as FFI functions.

The call path (`Function.__call__`, made by `_make_call`) is written for speed: a pooled
frame (see _frame.py), inline conversion of the commonest argument kinds, one ctypes call of
one of the frame's own zero-argument C entry points (call_helpers.cc), which calls the
function and drops the frame's owned temporaries, and inline conversion of the commonest
results. Everything else goes through `_any`.

Python callables become Functions through TVMFFIFunctionCreate with the library's callback
trampoline (PyCallbackSafeCall in call_helpers.cc) and `self` = a key into `_CALLBACKS`. The
trampoline calls one of the ctypes callbacks below with a callback frame index, the callable's
cell and plain ints: `_cb_args0` (no arguments), `_cb_ints1..3` (one to three Ints, by value)
or `_cb_frame` (anything else, the argument views copied into the callback frame); results go
to that callback frame, failures set a flag word in it. When no callback frame is free it
falls back to `_py_safe_call`, the four-argument safe_call.
ctypes callbacks take the GIL themselves, so C may call them from any thread.
"""

import ctypes

from . import _any, _frame, _framework
from . import _cabi as C
from .error import error_from_raised, set_raised_from_exception
from .object import Object, register_object

_POOL = _frame.POOL
_Frame = _frame.Frame
_SETTERS = _any.SETTERS
_SETTERS_GET = _SETTERS.get
_setter_for = _any.setter_for
_OBJECT_MAKERS = _any.OBJECT_MAKERS
W_RESULT_API = C.W_RESULT_API
_MAKE_OBJECT = _any.MAKE_OBJECT
_value_from_words = _any.value_from_words
_raise_last_error = _frame.raise_last_error
_I64_MIN = _any.I64_MIN
_I64_MAX = _any.I64_MAX
_SMALL_STR_PAYLOAD_GET = _any.SMALL_STR_PAYLOAD.get
_set_object = _any.set_object
_set_bigint = _any.set_bigint
_set_str = _any.set_str
_pack_args = _any.pack_args
_CAP = _frame.DEFAULT_FRAME_ARGS
_c_void_p = ctypes.c_void_p
# __call__ writes these frame words as literals (36, 37, 39): a constant is cheaper than a global.
assert (_frame.W_FUNC, _frame.W_NARGS, _frame.W_STR) == (36, 37, 39)


# The default of __call__'s positional parameters: "no argument here". Private: a caller
# passing it would pass nothing.
_NO_ARG = object()


def _make_call(keep_gil):
    """Function.__call__, for frames that release the GIL during the C call or keep it.

    Why it looks like this: on this path every bytecode costs several nanoseconds and every
    memoryview store tens (a raw ctypes call of a C nop costs ~150 ns), so
      - the arity comes from three positional-only parameters defaulting to _NO_ARG, not from
        `*args` (no tuple, no len(), and the branch for 0-3 arguments is a few identity
        tests); calls with more arguments collect them again;
      - one, two and three arguments use the frame's fixed-arity entry points (call1..call3),
        which leave W_NARGS alone; other counts write it and use call(); a lone short str or
        object argument has entry points of its own (call1s, call1o) that imply its type
        word, so only its payload is written;
      - state lives in closure cells (the pool's bound pop/append), not in globals or on
        `self`; whether the GIL is kept is the choice of pool (each frame's entry points
        either release it or not), so nothing is tested per call;
      - Object has no __getattr__, so `self._h` and `a._h` are specialised slot reads;
      - two one-entry caches per frame skip stores: the handle store when the frame already
        holds this handle (Frame.fh), and a lone short str's payload store when the frame's
        W_STR word holds that very string's payload (Frame.s0; a literal passed in a loop).
    """
    pool = _frame.POOL_KEEP_GIL if keep_gil else _POOL
    pop = pool.pop
    push = pool.append
    no_arg = _NO_ARG

    def new_frame():
        return _Frame(keep_gil=keep_gil)

    def __call__(self, a=no_arg, b=no_arg, c=no_arg, /, *rest):
        # Hot path; see above and the module docstring, and _frame.py for the idle state.
        try:
            fr = pop()
        except IndexError:  # every frame in use (deep nesting, many threads): one more
            fr = new_frame()
        if fr.fh is not self._h:  # the frame holds another function's handle (Frame.fh)
            h = self._h
            fr.q[36] = h  # W_FUNC; a released wrapper writes 0, which the C call rejects
            fr.fh = h
        if a is no_arg:
            call = fr.call  # (`call = fr.call; call()`: LOAD_ATTR specialises, LOAD_METHOD not)
        else:
            try:
                if b is no_arg:  # one argument: the commonest call, its kinds inline
                    t = type(a)
                    if t is int:
                        try:
                            fr.q[5] = a  # the type word is already Int (idle state)
                        except ValueError:  # beyond int64: a BigInt object
                            _set_bigint(fr, 4, a)
                        call = fr.call1
                    elif t is str:
                        if fr.s0 is a:  # word W_STR holds its payload already
                            call = fr.call1s
                        else:
                            payload = _SMALL_STR_PAYLOAD_GET(a)
                            if payload is not None:
                                fr.q[39] = payload  # W_STR; the type word is derived in C
                                fr.s0 = a
                                call = fr.call1s
                            else:
                                _set_str(fr, 4, a)
                                call = fr.call1
                    else:
                        setter = _SETTERS_GET(t) or _setter_for(t)
                        if setter is _set_object:
                            h = a._h
                            if not h:
                                raise ValueError("cannot pass a released %s" % t.__name__)
                            fr.q[5] = h
                            call = fr.call1o  # the type index is read from the object in C
                        elif t is float:
                            fr.q[4] = 3
                            fr.d[5] = a
                            call = fr.call1
                        else:  # temporaries made here are owned (and dropped) by the frame
                            setter(fr, 4, a)
                            call = fr.call1
                elif c is no_arg:  # two: Ints and objects (a VM's f(x, w)) inline
                    ta = type(a)
                    tb = type(b)
                    if ta is int and tb is int:
                        q = fr.q
                        try:
                            q[5] = a  # beyond int64 the store raises
                            q[7] = b
                        except ValueError:
                            _pack_args(fr, (a, b))
                    elif (_SETTERS_GET(ta) is _set_object and _SETTERS_GET(tb) is _set_object
                          and a._h and b._h):
                        q = fr.q
                        q[4] = a._ti
                        q[5] = a._h
                        q[6] = b._ti
                        q[7] = b._h
                    else:  # (a released object raises there)
                        _pack_args(fr, (a, b))
                    call = fr.call2
                elif not rest:  # three: likewise
                    if type(a) is int and type(b) is int and type(c) is int:
                        q = fr.q
                        try:
                            q[5] = a
                            q[7] = b
                            q[9] = c
                        except ValueError:
                            _pack_args(fr, (a, b, c))
                    else:
                        _pack_args(fr, (a, b, c))
                    call = fr.call3
                else:
                    args = (a, b, c) + rest
                    n = len(args)
                    if n > _CAP:
                        push(fr)
                        return _call_large(self, args, keep_gil)
                    _pack_args(fr, args)
                    fr.q[37] = n  # W_NARGS
                    call = fr.call
            except BaseException:
                _frame.reset_frame(fr)
                raise
        # The call restores the idle state, drops the references the frame owns, and returns
        # the result's type index (-1: failed).
        rc = call()
        if not rc:  # None (0)
            push(fr)
            return None
        q = fr.q
        if rc == 1:  # Int
            w1 = q[1]
            push(fr)
            return w1
        if rc == 3:  # Float
            w1 = fr.d[1]
            push(fr)
            return w1
        if rc < 0:
            _frame.put_frame(fr)
            raise error_from_raised()
        w0 = q[0]
        w1 = q[1]
        if rc == 70 and q[W_RESULT_API]:  # a Tensor from a call given framework tensors
            api = q[W_RESULT_API]
            push(fr)
            return _framework.tensor_result(api, w1, _OBJECT_MAKERS[70])
        push(fr)
        if rc >= 64:  # objects
            maker = _OBJECT_MAKERS.get(rc)
            if maker is None:
                return _MAKE_OBJECT[0](w1, rc)
            return maker(w1, rc)
        return _value_from_words(w0, w1)  # (small strings carry a length above bit 32)

    return __call__


@register_object("ffi.Function")
class Function(Object):
    """An FFI function. Call it with positional arguments."""

    __slots__ = ()

    def __init__(self, func):
        """Wraps a Python callable (same as passing it where a Function is expected)."""
        other = convert_to_function(func)
        self.__move_handle_from__(other)

    @property
    def release_gil(self):
        """Whether the GIL is released during calls (default True: C may block or call back
        into Python from other threads)."""
        return not isinstance(self, _FunctionKeepGIL)

    @release_gil.setter
    def release_gil(self, value):
        # The choice is the class (each has its own __call__), so calls need not read a flag.
        if type(self) not in (Function, _FunctionKeepGIL):
            raise TypeError("release_gil can only be changed on plain Functions")
        self.__class__ = Function if value else _FunctionKeepGIL

    __call__ = _make_call(False)

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


class _FunctionKeepGIL(Function):
    """A Function whose calls keep the GIL (`release_gil = False`)."""

    __slots__ = ()
    __call__ = _make_call(True)


_FunctionKeepGIL.__name__ = _FunctionKeepGIL.__qualname__ = "Function"


def _call_large(func, args, keep_gil):
    """Calls with more arguments than a pooled frame holds (rare): TVMFFIFunctionCall."""
    fr = _frame.Frame(len(args))
    try:
        _any.pack_args(fr, args)
        fr.q[0] = 0
        fr.q[1] = 0
        call = C.FunctionCallNoGIL if keep_gil else C.FunctionCall
        if call(_c_void_p(func._h), fr.args, len(args), fr.res):
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
    return f


_OBJECT_MAKERS[C.kFunction] = _make_function
_SETTERS[Function] = _SETTERS[_FunctionKeepGIL] = _any.set_object


# ---------------------------------------------------------------------------------------------
# Python callables as Functions
# ---------------------------------------------------------------------------------------------
# Python objects that Functions refer to: the callables of Python-backed Functions, and
# keep-alive objects (__from_extern_c__). Each is held in a fresh 1-tuple "cell"; the C side's
# `self` is the cell's address, the key here (unique: the cell lives as long as its entry), and
# the trampoline hands the cell itself back to the callbacks below (a ctypes py_object
# argument), which saves them a dict lookup per call. The Function's deleter drops the entry.
_CALLBACKS = {}  # key (id of the cell) -> cell


def _keep(obj):
    cell = (obj,)
    key = id(cell)
    _CALLBACKS[key] = cell
    return key


_DBL = _any._DBL
_I64 = _any._I64
_value_from_view = _any.value_from_view


def _owned_words(rv):
    """`rv` as the two words of an owned Any (through a pooled frame and the setters)."""
    fr = _frame.get_frame(1)
    try:
        (_SETTERS.get(type(rv)) or _setter_for(type(rv)))(fr, 4, rv)
        return _frame.take_arg(fr, 4)
    finally:
        _frame.put_frame(fr, 1)


# ---- the trampoline's callbacks (see call_helpers.cc, PyCallbackSafeCall) -------------------
# Each returns nothing: a ctypes callback that converts a return value costs ~25 ns more, an
# eighth of the whole callback. A failed one sets word 3 of its callback frame to -1 (before
# raising the error: should that fail too, C still sees the failure). A result other than
# None is written to the callback frame, payload first (C takes a tagged result as a whole
# one); Ints inline.
_CB_FRAME, _CB_ARGS0, _CB_INTS1, _CB_INTS2, _CB_INTS3 = (
    C.CB_FRAME, C.CB_ARGS0, C.CB_INTS1, C.CB_INTS2, C.CB_INTS3)
_CB_Q = []  # int64 views of the callback frames, by index
_CB_D = []  # double views
for _i in range(C.CALL_HELPERS.num_callback_frames):
    _mem = (ctypes.c_int64 * C.CB_FRAME_WORDS).from_address(
        C.CALL_HELPERS.callback_frames + 8 * C.CB_FRAME_WORDS * _i)
    _CB_Q.append(memoryview(_mem).cast("B").cast(_frame.WORD_FORMAT))
    _CB_D.append(memoryview(_mem).cast("B").cast("d"))


def _cb_result(slot, rv):
    """Writes a result other than None or an int64 Int to callback frame `slot`."""
    w0, w1 = _owned_words(rv)
    q = _CB_Q[slot]
    q[1] = w1
    q[0] = w0


def _cb_failed(slot, exc):
    _CB_Q[slot][3] = -1
    set_raised_from_exception(exc)


def _cb_args0(slot, cell):
    try:
        rv = cell[0]()
        if rv is None:
            return
        if type(rv) is int and _I64_MIN <= rv <= _I64_MAX:
            q = _CB_Q[slot]
            q[1] = rv
            q[0] = 1
            return
        _cb_result(slot, rv)
    except BaseException as exc:  # noqa: BLE001 - everything must be reported to C
        _cb_failed(slot, exc)


def _cb_ints1(slot, cell, a):
    try:
        rv = cell[0](a)
        if rv is None:
            return
        if type(rv) is int and _I64_MIN <= rv <= _I64_MAX:
            q = _CB_Q[slot]
            q[1] = rv
            q[0] = 1
            return
        _cb_result(slot, rv)
    except BaseException as exc:  # noqa: BLE001
        _cb_failed(slot, exc)


def _cb_ints2(slot, cell, a, b):
    try:
        rv = cell[0](a, b)
        if rv is None:
            return
        if type(rv) is int and _I64_MIN <= rv <= _I64_MAX:
            q = _CB_Q[slot]
            q[1] = rv
            q[0] = 1
            return
        _cb_result(slot, rv)
    except BaseException as exc:  # noqa: BLE001
        _cb_failed(slot, exc)


def _cb_ints3(slot, cell, a, b, c):
    try:
        rv = cell[0](a, b, c)
        if rv is None:
            return
        if type(rv) is int and _I64_MIN <= rv <= _I64_MAX:
            q = _CB_Q[slot]
            q[1] = rv
            q[0] = 1
            return
        _cb_result(slot, rv)
    except BaseException as exc:  # noqa: BLE001
        _cb_failed(slot, exc)


def _cb_frame(slot):
    try:
        q = _CB_Q[slot]
        func = _CALLBACKS[q[2]][0]
        vals = []
        for j in range(4, 4 + 2 * q[3], 2):
            w0 = q[j]
            if w0 == 1:
                vals.append(q[j + 1])
            elif w0 == 3:
                vals.append(_CB_D[slot][j + 1])
            else:
                vals.append(_value_from_view(w0, q[j + 1]))
        rv = func(*vals)
        if rv is None:
            return
        if type(rv) is int and _I64_MIN <= rv <= _I64_MAX:
            q[1] = rv
            q[0] = 1
            return
        _cb_result(slot, rv)
    except BaseException as exc:  # noqa: BLE001
        _cb_failed(slot, exc)


_ALL_INTS = [[1] * n for n in range(16)]  # type tags of all-int argument lists


def _arg_from_view(w0, w1):
    if w0 == 3:
        return _DBL.unpack(_I64.pack(w1))[0]
    return _value_from_view(w0, w1)


def _py_safe_call(key, args, nargs, result):
    """The four-argument safe_call: the trampoline's fallback (no callback frame free, or
    more arguments than one holds), and the safe_call itself without the trampoline.

    `args` and `result` arrive as ctypes int64 pointers (see _cabi.SAFE_CALL): indexing them
    is the cheapest way to move words from Python.
    """
    try:
        func = _CALLBACKS[key][0]
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
        result[0], result[1] = _owned_words(rv)
        return 0
    except BaseException as exc:  # noqa: BLE001 - everything must be reported to C
        set_raised_from_exception(exc)
        return -1


def _addr(cfunc):
    return ctypes.cast(cfunc, ctypes.c_void_p).value


# The ctypes callbacks live as long as the module (C keeps their addresses).
_trampoline = C.SAFE_CALL(_py_safe_call)
_CB_KEEP = (_CB_FRAME(_cb_frame), _CB_ARGS0(_cb_args0), _CB_INTS1(_cb_ints1),
            _CB_INTS2(_cb_ints2), _CB_INTS3(_cb_ints3))


@C.FUNC_DELETER
def _deleter(key):
    _CALLBACKS.pop(key, None)


_DELETER_ADDR = _addr(_deleter)
if C.CALL_HELPERS.callback_safe_call:
    # This copy of the package owns the library's trampoline: hand it the callbacks.
    ctypes.CFUNCTYPE(None, ctypes.POINTER(C.PythonCallbacks))(
        C.CALL_HELPERS.set_python_callbacks)(
        ctypes.byref(C.PythonCallbacks(_addr(_trampoline), *map(_addr, _CB_KEEP))))
    _SAFE_CALL_ADDR = C.CALL_HELPERS.callback_safe_call
else:  # another copy of the package claimed it: use the four-argument safe_call directly
    _SAFE_CALL_ADDR = _addr(_trampoline)


def convert_to_function(pyfunc):
    """A Function calling the Python callable `pyfunc` (Functions are returned as they are)."""
    if isinstance(pyfunc, Function):
        return pyfunc
    if not callable(pyfunc):
        raise TypeError("expected a callable, got %s" % type(pyfunc).__name__)
    key = _keep(pyfunc)
    out = ctypes.c_void_p()
    if C.FunctionCreate(key, _SAFE_CALL_ADDR, _DELETER_ADDR, ctypes.byref(out)) != 0:
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


# Bumped whenever this process changes the global table from Python, so callers that cache
# lookups (tvm.ir._api: tens of thousands per model compile) know to look again.
GLOBALS_GENERATION = [0]


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
        GLOBALS_GENERATION[0] += 1
        return myf

    return register if f is None else register(f)


def list_global_func_names():
    """Names of all global functions (ffi.FunctionListGlobalNamesFunctor)."""
    functor = get_global_func("ffi.FunctionListGlobalNamesFunctor")()
    return [functor(i) for i in range(functor(-1))]


def remove_global_func(name):
    """Removes global `name`; returns whether it existed (ffi.FunctionRemoveGlobal)."""
    GLOBALS_GENERATION[0] += 1
    return bool(get_global_func("ffi.FunctionRemoveGlobal")(name))


def get_global_func_metadata(name):
    """Metadata of global `name` as a dict ({} when it has none)."""
    import json

    text = get_global_func("ffi.GetGlobalFuncMetadata")(name)
    return json.loads(text) if text else {}


_any.CONVERTERS["function"] = convert_to_function  # callables passed as arguments
