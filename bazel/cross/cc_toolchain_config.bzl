"""A C/C++ toolchain for a Debian/Ubuntu cross gcc (apt-get install g++-<prefix>).

    load("//bazel/cross:cc_toolchain_config.bzl", "cross_gcc_toolchain")
    cross_gcc_toolchain(name = "aarch64", prefix = "aarch64-linux-gnu", cpu = "aarch64")

creates, for that CPU:

  :<name>_cc_toolchain       cc_toolchain (Bazel 4: selected by --crosstool_top=//bazel/cross
                              --cpu=<cpu>, through the cc_toolchain_suite in BUILD.bazel)
  :<name>_toolchain          toolchain() of type @bazel_tools//tools/cpp:toolchain_type, for
                              toolchain resolution (Bazel 7/8, or Bazel 4 with
                              --incompatible_enable_cc_toolchain_resolution):
                              --platforms=//bazel/cross:linux_<name> --extra_toolchains=...
  :linux_<name>              platform(os:linux, cpu:<cpu>)

Every tool is `/usr/bin/<prefix>-<tool>`; the compiler goes through <prefix>-gcc.sh (this
package), which says what to install when the cross gcc is missing. Include checking knows
the cross gcc's own folders (/usr/<prefix>/include, /usr/lib/gcc-cross/<prefix>).
Flags: the same kinds the auto-configured host toolchain uses (optimisation per
compilation mode, --gc-sections in opt, redacted __DATE__ & co. for reproducible outputs);
-std=c++17 comes from --cxxopt in .bazelrc, which applies to every configuration.
"""

load("@bazel_tools//tools/build_defs/cc:action_names.bzl", "ACTION_NAMES")
load(
    "@bazel_tools//tools/cpp:cc_toolchain_config_lib.bzl",
    "feature",
    "flag_group",
    "flag_set",
    "tool_path",
    "with_feature_set",
)

_COMPILE = [
    ACTION_NAMES.assemble,
    ACTION_NAMES.preprocess_assemble,
    ACTION_NAMES.c_compile,
    ACTION_NAMES.cpp_compile,
    ACTION_NAMES.cpp_header_parsing,
    ACTION_NAMES.cpp_module_compile,
    ACTION_NAMES.cpp_module_codegen,
    ACTION_NAMES.linkstamp_compile,
]

_LINK = [
    ACTION_NAMES.cpp_link_executable,
    ACTION_NAMES.cpp_link_dynamic_library,
    ACTION_NAMES.cpp_link_nodeps_dynamic_library,
]

def _flags(actions, flags, features = None):
    return flag_set(
        actions = actions,
        flag_groups = [flag_group(flags = flags)],
        with_features = [with_feature_set(features = features)] if features else [],
    )

def _impl(ctx):
    prefix = ctx.attr.prefix
    tools = {t: "/usr/bin/%s-%s" % (prefix, t) for t in
             ["ar", "cpp", "gcov", "ld", "nm", "objcopy", "objdump", "strip"]}
    tools["gcc"] = ctx.file.gcc_wrapper.basename  # relative: this package
    features = [
        feature(name = "supports_pic", enabled = True),
        feature(name = "supports_dynamic_linker", enabled = True),
        feature(name = "supports_start_end_lib", enabled = False),
        feature(name = "opt"),
        feature(name = "dbg"),
        feature(name = "fastbuild"),
        feature(
            name = "default_compile_flags",
            enabled = True,
            flag_sets = [
                _flags(_COMPILE, [
                    "-U_FORTIFY_SOURCE",
                    "-fstack-protector",
                    "-Wall",
                    "-fno-omit-frame-pointer",
                ]),
                _flags(_COMPILE, ["-g"], ["dbg"]),
                _flags(_COMPILE, [
                    "-g0",
                    "-O2",
                    "-D_FORTIFY_SOURCE=1",
                    "-DNDEBUG",
                    "-ffunction-sections",
                    "-fdata-sections",
                ], ["opt"]),
            ],
        ),
        feature(
            name = "default_link_flags",
            enabled = True,
            flag_sets = [
                # These come after the libraries (Bazel 4's legacy order); --no-as-needed
                # must come before them, so the gcc wrapper passes it.
                _flags(_LINK, [
                    "-Wl,-z,relro,-z,now",
                    "-pass-exit-codes",
                    "-lstdc++",
                    "-lm",
                ]),
                _flags(_LINK, ["-Wl,--gc-sections"], ["opt"]),
            ],
        ),
        feature(
            # Outputs must not depend on the build machine, the time or the sandbox path.
            name = "unfiltered_compile_flags",
            enabled = True,
            flag_sets = [_flags(_COMPILE, [
                "-no-canonical-prefixes",
                "-fno-canonical-system-headers",
                "-Wno-builtin-macro-redefined",
                "-D__DATE__=\"redacted\"",
                "-D__TIMESTAMP__=\"redacted\"",
                "-D__TIME__=\"redacted\"",
            ])],
        ),
    ]
    return cc_common.create_cc_toolchain_config_info(
        ctx = ctx,
        features = features,
        cxx_builtin_include_directories = [
            "/usr/%s/include" % prefix,
            "/usr/lib/gcc-cross/%s" % prefix,
            "/usr/include",  # Debian's cross gcc searches it last
        ],
        toolchain_identifier = prefix + "-gcc",
        host_system_name = "x86_64-unknown-linux-gnu",
        target_system_name = prefix,
        target_cpu = ctx.attr.cpu,
        target_libc = "glibc",
        compiler = "gcc",
        abi_version = "gcc",
        abi_libc_version = "glibc",
        tool_paths = [tool_path(name = k, path = v) for k, v in sorted(tools.items())],
    )

cross_gcc_toolchain_config = rule(
    implementation = _impl,
    attrs = {
        "cpu": attr.string(mandatory = True),
        "prefix": attr.string(mandatory = True),
        "gcc_wrapper": attr.label(mandatory = True, allow_single_file = True),
    },
    provides = [CcToolchainConfigInfo],
)

def cross_gcc_toolchain(name, prefix, cpu):
    """The targets listed in the module doc, for the cross gcc `<prefix>-gcc`.

    Args:
      name: short name (e.g. "aarch64"), used in the target names.
      prefix: the GNU triple of the Debian cross tools, e.g. "aarch64-linux-gnu".
      cpu: the --cpu value and the @platforms//cpu constraint name, e.g. "aarch64".
    """
    wrapper = prefix + "-gcc.sh"
    cross_gcc_toolchain_config(
        name = name + "_cc_toolchain_config",
        cpu = cpu,
        prefix = prefix,
        gcc_wrapper = wrapper,
    )
    native.filegroup(name = name + "_tool_files", srcs = [wrapper])
    native.cc_toolchain(
        name = name + "_cc_toolchain",
        all_files = ":%s_tool_files" % name,
        ar_files = ":%s_tool_files" % name,
        as_files = ":%s_tool_files" % name,
        compiler_files = ":%s_tool_files" % name,
        dwp_files = ":%s_tool_files" % name,
        linker_files = ":%s_tool_files" % name,
        objcopy_files = ":%s_tool_files" % name,
        strip_files = ":%s_tool_files" % name,
        supports_param_files = 1,
        toolchain_config = ":%s_cc_toolchain_config" % name,
        toolchain_identifier = prefix + "-gcc",
    )
    native.platform(
        name = "linux_" + name,
        constraint_values = [
            "@platforms//os:linux",
            "@platforms//cpu:" + cpu,
        ],
    )
    native.toolchain(
        name = name + "_toolchain",
        exec_compatible_with = [
            "@platforms//os:linux",
            "@platforms//cpu:x86_64",
        ],
        target_compatible_with = [
            "@platforms//os:linux",
            "@platforms//cpu:" + cpu,
        ],
        toolchain = ":%s_cc_toolchain" % name,
        toolchain_type = "@bazel_tools//tools/cpp:toolchain_type",
    )
