"""Stub of @rules_python//python:py_runtime.bzl (modern per-rule load path)."""

load("//python:defs.bzl", _r = "py_runtime")

py_runtime = _r
