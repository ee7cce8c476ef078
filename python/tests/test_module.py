"""Modules: load_module, attribute/item access, system_lib."""

import pytest

import tvm_ffi
from conftest import module_path


def test_load_and_access(mod):
    assert isinstance(mod, tvm_ffi.Module) and mod.kind == "library"
    f = mod.add_one
    assert isinstance(f, tvm_ffi.Function) and f(1) == 2
    assert mod["add_one"](2) == 3
    assert mod.get_function("add_one")(3) == 4
    assert mod.implements_function("add_one") and not mod.implements_function("nope")


def test_missing_function_is_attribute_error(mod):
    with pytest.raises(AttributeError, match="no_such_function"):
        mod.no_such_function
    with pytest.raises(AttributeError):
        mod["no_such_function"]


def test_load_twice_and_keep_alive():
    path = module_path("TVM_FFI_TESTING_MODULE")
    m1 = tvm_ffi.load_module(path)
    f = m1.add_one
    del m1
    assert f(10) == 11  # functions keep their module alive
    m2 = tvm_ffi.load_module(path, keep_module_alive=False)
    assert m2.add_one(1) == 2


def test_load_missing_file():
    with pytest.raises(RuntimeError, match="does not exist"):
        tvm_ffi.load_module("/nonexistent/module.so")


def test_system_lib(mod):
    # testing_module.cc registers "__tvm_ffi_pytest.add_one" as a system-library symbol.
    lib = tvm_ffi.system_lib("pytest.")
    assert isinstance(lib, tvm_ffi.Module)
    assert lib["add_one"](1) == 2 and lib.add_one(2) == 3
    assert tvm_ffi.system_lib("pytest.").same_as(lib)  # one module per prefix
    with pytest.raises(AttributeError):
        lib.nothing_registered


def test_imports(mod):
    assert isinstance(mod.imports, list)
    assert mod.is_runnable()
