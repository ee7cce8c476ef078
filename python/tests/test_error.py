"""Errors both ways: kinds, messages and tracebacks."""

import traceback

import pytest

import tvm_ffi

KINDS = ["RuntimeError", "ValueError", "TypeError", "AttributeError", "KeyError", "IndexError",
         "AssertionError", "MemoryError"]


@pytest.mark.parametrize("kind", KINDS)
def test_c_error_kinds_map_to_builtins(mod, kind):
    cls = getattr(__builtins__, kind, None) if not isinstance(__builtins__, dict) else __builtins__[kind]
    with pytest.raises(cls) as info:
        mod.raise_error(kind, "message of " + kind)
    assert type(info.value) is cls
    assert "message of " + kind in str(info.value)


@pytest.mark.parametrize("kind", ["InternalError", "OverflowError", "SomethingElse"])
def test_unknown_kinds_are_runtime_errors(mod, kind):
    with pytest.raises(RuntimeError) as info:
        mod.raise_error(kind, "boom")
    assert type(info.value) is RuntimeError and str(info.value) == "boom"


def test_c_error_carries_c_backtrace(mod):
    with pytest.raises(ValueError) as info:
        mod.raise_error("ValueError", "bad value")
    text = "".join(traceback.format_exception(info.type, info.value, info.tb))
    assert "testing_module.cc" in text and "RaiseError" in text
    err = info.value.__tvm_ffi_error__
    assert isinstance(err, tvm_ffi.Error)
    assert err.kind == "ValueError" and err.message == "bad value"


def test_synthetic_frames_keep_no_caller_alive(mod):
    # The frames standing for C++ functions are cached; they must not hold the frames (and
    # locals) of the call that first raised through them.
    import gc
    import weakref

    class Payload:
        pass

    def first_call(name):
        payload = Payload()  # noqa: F841  (a local that a leaked frame would keep alive)
        try:
            mod.raise_error("ValueError", "never seen before: " + name)
        except ValueError as err:
            frames = [f for f, _ in traceback.walk_tb(err.__traceback__)]
            synthetic = [f for f in frames if f.f_code.co_filename.endswith(".cc")]
            assert synthetic and all(f.f_back is None for f in synthetic)
        return weakref.ref(payload)

    ref = first_call("x")
    gc.collect()
    assert ref() is None


def _raiser(x):
    raise ValueError("python says no to %d" % x)


def test_python_error_round_trip(mod):
    # Python -> C (call_repeat0) -> Python _raiser: ValueError there, ValueError here.
    with pytest.raises(ValueError) as info:
        mod.call_repeat0(lambda: _raiser(3), 1)
    assert type(info.value) is ValueError and str(info.value) == "python says no to 3"
    text = "".join(traceback.format_exception(info.type, info.value, info.tb))
    # The Python frames of the callback and the C frames that called it, in one traceback.
    assert "_raiser" in text and "__tvm_ffi_call_repeat0" in text
    bt = info.value.__tvm_ffi_error__.backtrace
    lines = [line for line in bt.splitlines() if line.strip()]
    assert all(line.startswith('  File "') and ", line " in line and ", in " in line
               for line in lines)
    # Most recent call first: the raising function, then its Python caller, then C.
    assert bt.index("_raiser") < bt.index("<lambda>") < bt.index("__tvm_ffi_call_repeat0")


def test_nested_error_keeps_all_frames(mod):
    def catch_and_reraise():
        try:
            mod.call_repeat0(lambda: _raiser(4), 1)
        except ValueError:
            raise

    with pytest.raises(ValueError) as info:
        mod.call_repeat0(catch_and_reraise, 1)
    bt = info.value.__tvm_ffi_error__.backtrace
    assert bt.index("_raiser") < bt.index("catch_and_reraise")
    assert bt.count("__tvm_ffi_call_repeat0") == 2


def test_python_error_kind_seen_by_c(mod):
    kinds = []

    def probe(x):
        try:
            mod.apply(_raiser, x)
        except Exception as e:
            kinds.append(e.__tvm_ffi_error__.kind)
        return 0

    mod.apply(probe, 1)
    assert kinds == ["ValueError"]


def test_custom_exception_class():
    class MyError(Exception):
        pass

    def raiser():
        raise MyError("custom")

    f = tvm_ffi.Function(raiser)
    with pytest.raises(RuntimeError, match="custom"):
        f()
    tvm_ffi.register_error("MyError", MyError)
    with pytest.raises(MyError, match="custom"):
        f()


def test_subclass_of_builtin_keeps_base_kind():
    class Special(KeyError):
        pass

    def raiser():
        raise Special("k")

    with pytest.raises(KeyError):
        tvm_ffi.Function(raiser)()


def test_error_object_api():
    err = tvm_ffi.Error("ValueError", "msg", '  File "a.cc", line 3, in f\n')
    assert err.kind == "ValueError" and err.message == "msg"
    py = err.py_error()
    assert isinstance(py, ValueError)
    text = "".join(traceback.format_exception(type(py), py, py.__traceback__))
    assert 'File "a.cc", line 3, in f' in text
    err.update_backtrace('  File "b.cc", line 4, in g\n')
    assert "b.cc" in err.backtrace


def test_error_passed_as_value(mod):
    err = mod.echo(ValueError("as a value"))
    assert isinstance(err, tvm_ffi.Error) and err.kind == "ValueError"
