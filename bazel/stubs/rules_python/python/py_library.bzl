"""Stub of @rules_python//python:py_library.bzl (modern per-rule load path)."""

load("//python:defs.bzl", _r = "py_library")

py_library = _r
