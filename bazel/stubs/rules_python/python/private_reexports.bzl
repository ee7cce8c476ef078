"""Captures the native providers under other names (see defs.bzl)."""

native_py_info = PyInfo
native_py_runtime_info = PyRuntimeInfo
