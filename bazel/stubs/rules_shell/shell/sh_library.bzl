"""Stub of @rules_shell//shell:sh_library.bzl."""

sh_library = native.sh_library
