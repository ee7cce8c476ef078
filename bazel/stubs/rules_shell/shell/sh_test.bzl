"""Stub of @rules_shell//shell:sh_test.bzl."""

sh_test = native.sh_test
