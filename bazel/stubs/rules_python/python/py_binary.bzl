"""Stub of @rules_python//python:py_binary.bzl (modern per-rule load path)."""

load("//python:defs.bzl", _r = "py_binary")

py_binary = _r
