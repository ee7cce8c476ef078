"""aarch64_files: the files (and runfiles) of some targets, built for aarch64 Linux.

    load("//bazel/cross:transition.bzl", "aarch64_files")
    aarch64_files(name = "arm_libs", srcs = ["//runtime:libtvm_runtime.so"])

A host test puts `:arm_libs` in its `data` and gets the cross-built files; `bazel test //...`
builds them with //bazel/cross's cross gcc (the same settings as --config=aarch64, see
.bazelrc) while the test itself stays on the host configuration. Executables among `srcs`
keep their runfiles (the _solib_aarch64 links their RUNPATH names).
"""

# The flags of `--config=aarch64` (.bazelrc), as a configuration transition. Bazel 4 picks
# the C++ toolchain by --crosstool_top/--cpu; toolchain resolution (Bazel 7+) by
# --platforms and the toolchain() named in extra_toolchains. --copt/--linkopt are reset:
# the host's sanitizer flags (--config=asan) must not reach programs run under qemu-user.
_AARCH64 = {
    "//command_line_option:copt": [],
    "//command_line_option:linkopt": [],
    "//command_line_option:cpu": "aarch64",
    "//command_line_option:crosstool_top": "//bazel/cross:toolchains",
    "//command_line_option:host_crosstool_top": "@bazel_tools//tools/cpp:toolchain",
    "//command_line_option:platforms": "//bazel/cross:linux_aarch64",
    "//command_line_option:extra_toolchains": ["//bazel/cross:aarch64_toolchain"],
    "//command_line_option:platform_suffix": "aarch64",
}

def _to_aarch64_impl(settings, attr):
    return _AARCH64

to_aarch64 = transition(
    implementation = _to_aarch64_impl,
    inputs = [],
    outputs = _AARCH64.keys(),
)

def _aarch64_files_impl(ctx):
    files = depset(transitive = [t[DefaultInfo].files for t in ctx.attr.srcs])
    runfiles = ctx.runfiles(transitive_files = files)
    for t in ctx.attr.srcs:
        runfiles = runfiles.merge(t[DefaultInfo].default_runfiles)
    return [DefaultInfo(files = files, runfiles = runfiles)]

aarch64_files = rule(
    implementation = _aarch64_files_impl,
    attrs = {
        "srcs": attr.label_list(cfg = to_aarch64, allow_files = True),
        # Bazel 4 allows Starlark transitions only for rules that name this allowlist.
        "_allowlist_function_transition": attr.label(
            default = "@bazel_tools//tools/allowlists/function_transition_allowlist",
        ),
    },
)
