"""Stub of @rules_cc//cc:defs.bzl: re-exports Bazel 4.2.3's native C++ rules.

Needed because @bazel_tools//tools/cpp:BUILD loads it, and so that our BUILD files can
load the rules explicitly (which Bazel 8 requires).
"""

load(
    ":private_reexports.bzl",
    "native_cc_common",
    "native_cc_info",
    "native_cc_toolchain_config_info",
)

cc_binary = native.cc_binary
cc_import = native.cc_import
cc_library = native.cc_library
cc_test = native.cc_test
cc_toolchain = native.cc_toolchain
cc_toolchain_suite = native.cc_toolchain_suite
cc_proto_library = native.cc_proto_library
fdo_prefetch_hints = native.fdo_prefetch_hints
fdo_profile = native.fdo_profile
objc_import = native.objc_import
objc_library = native.objc_library

CcInfo = native_cc_info
CcToolchainConfigInfo = native_cc_toolchain_config_info
cc_common = native_cc_common
