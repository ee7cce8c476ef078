"""Stub of @rules_python//python:py_runtime_pair.bzl (modern per-rule load path)."""

load("//python:defs.bzl", _r = "py_runtime_pair")

py_runtime_pair = _r
