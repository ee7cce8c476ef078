"""Global functions and Python callables as FFI functions."""

import threading

import pytest

import tvm_ffi


def test_register_get_call_remove():
    @tvm_ffi.register_global_func("pytest.fn.add")
    def add(a, b):
        return a + b

    f = tvm_ffi.get_global_func("pytest.fn.add")
    assert isinstance(f, tvm_ffi.Function)
    assert f(1, 2) == 3 and f("a", "b") == "ab"
    assert "pytest.fn.add" in tvm_ffi.list_global_func_names()
    assert tvm_ffi.remove_global_func("pytest.fn.add") is True
    assert tvm_ffi.remove_global_func("pytest.fn.add") is False
    assert tvm_ffi.get_global_func("pytest.fn.add", allow_missing=True) is None
    with pytest.raises(ValueError):
        tvm_ffi.get_global_func("pytest.fn.add")


def test_register_override():
    tvm_ffi.register_global_func("pytest.fn.ovr", lambda: 1)
    with pytest.raises(RuntimeError, match="already registered"):
        tvm_ffi.register_global_func("pytest.fn.ovr", lambda: 2)
    tvm_ffi.register_global_func("pytest.fn.ovr", lambda: 3, override=True)
    assert tvm_ffi.get_global_func("pytest.fn.ovr")() == 3

    @tvm_ffi.register_global_func("pytest.fn.ovr", override=True)
    def four():
        return 4

    assert tvm_ffi.get_global_func("pytest.fn.ovr")() == 4
    tvm_ffi.remove_global_func("pytest.fn.ovr")


def test_decorator_without_name():
    @tvm_ffi.register_global_func
    def pytest_fn_bare(x):
        return x * 2

    assert tvm_ffi.get_global_func("pytest_fn_bare")(21) == 42
    tvm_ffi.remove_global_func("pytest_fn_bare")


def test_builtin_globals_listed():
    names = tvm_ffi.list_global_func_names()
    for name in ("ffi.FunctionRemoveGlobal", "ffi.FunctionListGlobalNamesFunctor",
                 "ffi.ModuleLoadFromFile"):
        assert name in names


def test_python_callable_as_argument(mod):
    assert mod.apply(lambda: 7) == 7
    assert mod.apply(lambda a, b, c: a * b + c, 2, 3, 4) == 10
    assert mod.apply(len, "hello") == 5


def test_function_passed_back_and_forth(mod):
    f = tvm_ffi.Function(lambda x: x + 1)
    g = mod.echo(f)
    assert g.same_as(f) and g(1) == 2
    assert mod.apply(mod.apply, f, 41) == 42


def test_returning_functions_from_callbacks(mod):
    make = lambda k: (lambda x: x * k)  # noqa: E731
    times3 = mod.apply(make, 3)
    assert isinstance(times3, tvm_ffi.Function) and times3(5) == 15


def test_many_arguments(mod):
    args = list(range(40))
    assert mod.num_args(*args) == 40
    assert mod.apply(lambda *a: sum(a), *args) == sum(args)


def test_calls_from_native_threads(mod):
    def f(t, k):
        return t * 1000 + k

    expected = sum(t * 1000 + k for t in range(4) for k in range(200))
    assert mod.call_from_threads(f, 4, 200) == expected


def test_calls_from_python_threads(mod):
    errors = []

    def worker(i):
        try:
            for k in range(300):
                assert mod.apply(lambda x: x + i, k) == k + i
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors


def test_release_gil_flag(mod):
    f = mod.add_one
    assert f.release_gil
    f.release_gil = False
    assert f(1) == 2
    f.release_gil = True


def test_from_extern_c(mod):
    import ctypes

    # The testing module's raw export `__tvm_ffi_add_one`, wrapped as a Function.
    lib = ctypes.CDLL(mod_path())
    addr = ctypes.cast(lib.__tvm_ffi_add_one, ctypes.c_void_p).value
    f = tvm_ffi.Function.__from_extern_c__(addr, keep_alive_object=lib)
    assert f(41) == 42


def mod_path():
    from conftest import module_path

    return module_path("TVM_FFI_TESTING_MODULE")


def test_metadata_of_python_global():
    tvm_ffi.register_global_func("pytest.fn.meta", lambda: None)
    assert tvm_ffi.get_global_func_metadata("pytest.fn.meta") == {}
    tvm_ffi.remove_global_func("pytest.fn.meta")


def test_init_ffi_api():
    import types
    import sys

    tvm_ffi.register_global_func("pytestns.double", lambda x: 2 * x)
    module = types.ModuleType("pytestns_api")
    sys.modules["pytestns_api"] = module
    tvm_ffi.init_ffi_api("pytestns", "pytestns_api")
    assert module.double(4) == 8
    tvm_ffi.remove_global_func("pytestns.double")
