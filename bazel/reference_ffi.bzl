"""Repository rule `tvm_ffi_reference`: the real apache-tvm-ffi wheel, for interop tests.

The wheel is installed (tools/install_deps.sh) into a folder of its own, because its
import name `tvm_ffi` is the same as our Python package's:

  python3 -m pip install --no-deps --target "$TVM_FFI_REFERENCE_DIR" apache-tvm-ffi==0.1.15.post2

with TVM_FFI_REFERENCE_DIR defaulting to $HOME/.cache/tvm-stack/apache-tvm-ffi-0.1.15.post2.

Generated targets (all public):
  :headers  header-only cc_library over the wheel's tvm_ffi/include (tvm/ffi/**, dlpack/**).
            It deliberately has no library: code compiled against it must link *our*
            libtvm_ffi.so (see tvm_reference_module_library in //bazel:tvm_library.bzl).
  :lib      the wheel's libtvm_ffi.so, as a plain file (data for tests, never linked)
  :files    the wheel's tvm_ffi/ package tree (data for tests)
and defs.bzl with REFERENCE_FOUND, REFERENCE_DIR (absolute path of the --target folder,
to put on PYTHONPATH of a *separate* interpreter) and REFERENCE_VERSION.

When the wheel (of exactly this version) is missing, every target is incompatible with
@//config:incompatible, so dependents are SKIPPED, exactly like @local_cuda. Run
`bazel sync --configure` (or restart the server) after installing it.
"""

REFERENCE_VERSION = "0.1.15.post2"

_FOUND_BUILD = """\
load("@rules_cc//cc:defs.bzl", "cc_library")

package(default_visibility = ["//visibility:public"])

cc_library(
    name = "headers",
    hdrs = glob([
        "site/tvm_ffi/include/tvm/**/*.h",
        "site/tvm_ffi/include/dlpack/**/*.h",
    ]),
    includes = ["site/tvm_ffi/include"],
)

filegroup(
    name = "lib",
    srcs = ["site/tvm_ffi/lib/libtvm_ffi.so"],
)

filegroup(
    name = "files",
    srcs = glob(
        ["site/tvm_ffi/**"],
        exclude = [
            "**/__pycache__/**",
            "site/tvm_ffi/3rdparty/**",
            "site/tvm_ffi/src/**",
        ],
    ),
)
"""

_MISSING_BUILD = """\
load("@rules_cc//cc:defs.bzl", "cc_library")

package(default_visibility = ["//visibility:public"])

# The apache-tvm-ffi {version} wheel was not found in {dir}:
# everything here is incompatible, so dependents are SKIPPED.
# Install it with tools/install_deps.sh, then `bazel sync --configure`.
cc_library(
    name = "headers",
    target_compatible_with = ["@//config:incompatible"],
)

# filegroup has no target_compatible_with in Bazel 4: it inherits incompatibility
# from its (incompatible) srcs instead.
[filegroup(
    name = n,
    srcs = [":headers"],
) for n in ["lib", "files"]]
"""

def _default_dir(rctx):
    d = rctx.os.environ.get("TVM_FFI_REFERENCE_DIR", "").strip()
    if d:
        return d
    home = rctx.os.environ.get("HOME", "")
    if not home:
        return ""
    return "%s/.cache/tvm-stack/apache-tvm-ffi-%s" % (home, REFERENCE_VERSION)

def _tvm_ffi_reference_impl(rctx):
    rctx.file("WORKSPACE", 'workspace(name = "%s")\n' % rctx.name)
    d = _default_dir(rctx)
    found = bool(d) and all([
        rctx.path("%s/%s" % (d, p)).exists
        for p in [
            "apache_tvm_ffi-%s.dist-info/METADATA" % REFERENCE_VERSION,
            "tvm_ffi/include/tvm/ffi/c_api.h",
            "tvm_ffi/lib/libtvm_ffi.so",
        ]
    ])
    if found:
        rctx.symlink(d, "site")
        rctx.file("BUILD.bazel", _FOUND_BUILD)
    else:
        rctx.file("BUILD.bazel", _MISSING_BUILD.format(version = REFERENCE_VERSION, dir = d or "<unset>"))
    rctx.file("defs.bzl", "\n".join([
        "REFERENCE_FOUND = %s" % found,
        'REFERENCE_DIR = "%s"' % (d if found else ""),
        'REFERENCE_VERSION = "%s"' % REFERENCE_VERSION,
        "",
    ]))

tvm_ffi_reference = repository_rule(
    implementation = _tvm_ffi_reference_impl,
    environ = ["TVM_FFI_REFERENCE_DIR", "HOME"],
    local = True,
    configure = True,
    doc = "Exposes the apache-tvm-ffi reference wheel's headers and files, or incompatible placeholders.",
)
