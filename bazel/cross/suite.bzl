"""cc_toolchain_suite where the Bazel in use still has it (Bazel 4 selects C++ toolchains
with --crosstool_top/--cpu through it; newer Bazels resolve toolchain() targets instead and
are dropping the rule)."""

def cc_toolchain_suite_if_supported(name, toolchains, **kwargs):
    if hasattr(native, "cc_toolchain_suite"):
        native.cc_toolchain_suite(name = name, toolchains = toolchains, **kwargs)
