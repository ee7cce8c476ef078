"""Stub of @rules_python//python:py_test.bzl (modern per-rule load path)."""

load("//python:defs.bzl", _r = "py_test")

py_test = _r
