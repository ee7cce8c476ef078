"""Stub of @rules_java//java:defs.bzl.

Bazel 4 registers @bazel_tools//tools/jdk:all toolchains by default and that BUILD file
loads this file, so even a C++-only build needs it.
"""

java_binary = native.java_binary
java_import = native.java_import
java_library = native.java_library
java_lite_proto_library = native.java_lite_proto_library
java_plugin = native.java_plugin
java_proto_library = native.java_proto_library
java_runtime = native.java_runtime
java_test = native.java_test
java_toolchain = native.java_toolchain
