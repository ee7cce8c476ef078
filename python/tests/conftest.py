"""Shared fixtures: the C++ testing module (testing_module.cc) loaded once per session."""

import gc
import os

import pytest

import tvm_ffi


def _module_path(var):
    path = os.environ.get(var)
    if not path:
        pytest.skip("%s is not set (run through Bazel)" % var)
    return os.path.abspath(path)


@pytest.fixture(scope="session")
def mod():
    """testing_module.so: echo, nop, apply, raise_error, threads, tensors, Pair."""
    return tvm_ffi.load_module(_module_path("TVM_FFI_TESTING_MODULE"))


@pytest.fixture(scope="session")
def has_containers():
    return tvm_ffi.get_global_func("ffi.Array", allow_missing=True) is not None


@pytest.fixture
def need_containers(has_containers):
    if not has_containers:
        pytest.skip("libtvm_ffi has no container globals (ffi.Array ...) yet")


def collect():
    """Runs the garbage collector until nothing more is freed."""
    for _ in range(3):
        if gc.collect() == 0:
            break


def module_path(var):
    return _module_path(var)
