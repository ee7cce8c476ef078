"""Captures the native providers under other names.

`CcInfo = CcInfo` in one file fails ("global variable referenced before assignment"),
so defs.bzl imports them from here.
"""

native_cc_info = CcInfo
native_cc_common = cc_common
native_cc_toolchain_config_info = CcToolchainConfigInfo
