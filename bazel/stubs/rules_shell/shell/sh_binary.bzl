"""Stub of @rules_shell//shell:sh_binary.bzl."""

sh_binary = native.sh_binary
