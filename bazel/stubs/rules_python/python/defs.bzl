"""Stub of @rules_python//python:defs.bzl for Bazel 4.2.3: wraps the native rules."""

load("@bazel_tools//tools/python:toolchain.bzl", _py_runtime_pair = "py_runtime_pair")
load(":private_reexports.bzl", "native_py_info", "native_py_runtime_info")

# Keeps --incompatible_load_python_rules_from_bzl happy, as the real rules_python did.
_MIGRATION_TAG = "__PYTHON_RULES_MIGRATION_DO_NOT_USE_WILL_BREAK__"

def _add_tags(attrs):
    attrs["tags"] = list(attrs.get("tags") or []) + [_MIGRATION_TAG]
    return attrs

def py_library(**attrs):
    native.py_library(**_add_tags(attrs))

def py_binary(**attrs):
    native.py_binary(**_add_tags(attrs))

def py_test(**attrs):
    native.py_test(**_add_tags(attrs))

def py_runtime(**attrs):
    native.py_runtime(**_add_tags(attrs))

py_runtime_pair = _py_runtime_pair
PyInfo = native_py_info
PyRuntimeInfo = native_py_runtime_info
