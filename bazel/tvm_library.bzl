"""The one way to build a shipped shared library, and test modules that plug into it.

tvm_shared_library
==================

    load("//bazel:tvm_library.bzl", "tvm_shared_library")

    tvm_shared_library(
        name = "tvm_runtime",
        srcs = glob(["src/**/*.cc", "src/**/*.h"]),
        hdrs = glob(["include/**/*.h"]),
        includes = ["include"],
        version_script = "tvm_runtime.lds",
        shared_deps = ["//ffi:tvm_ffi"],
    )

creates, in the calling package:

  :libtvm_runtime.so       the shipped file. cc_binary(linkshared = 1, linkstatic = 1):
                           everything in `deps` is linked in statically, every
                           `shared_deps` library becomes DT_NEEDED. Linked with
                           --version-script (exports only what the script lists),
                           -soname libtvm_runtime.so, -z defs (no undefined symbols),
                           --gc-sections and RUNPATH $ORIGIN (plus
                           $ORIGIN/../../tvm_ffi/lib with shared_deps: finds its
                           siblings in a wheel). Use it as `data` or for packaging.
  :tvm_runtime             what dependents put in `deps`: the public headers plus the
                           .so through cc_import, plus the shared_deps. A cc_test or
                           another tvm_shared_library that depends on it gets
                           `NEEDED libtvm_runtime.so`, never a static copy (a static copy
                           would mean a second type table / registry in the process).
  :tvm_runtime_headers     header-only cc_library (hdrs + includes + the shared_deps'
                           _headers). For code that must not link the library.
  :tvm_runtime_shared      the .so alone through cc_import, no headers. For code compiled
                           against other headers of the same ABI (interop modules).
  :tvm_runtime_objects     PRIVATE: the compiled objects (cc_library, alwayslink = 1,
                           copts -fvisibility=hidden -fvisibility-inlines-hidden -O2
                           -ffunction-sections -fdata-sections -fPIC). Only visible to
                           `objects_visibility` (default: this package), e.g. white-box
                           tests of internals.

The public C entry points must be declared with default visibility
(`__attribute__((visibility("default")))`) *and* matched by the version script, e.g.

    TVM_RUNTIME_0.1 { global: TVMRuntime*; local: *; };

`-fvisibility=hidden` alone is not enough: libstdc++ template instantiations stay
exported without the `local: *` of a version script.

Never put `:<name>_objects` and `:<name>` (or anything NEEDing lib<name>.so) into one
binary: that is two copies of the library's globals (two registries).

Name clash to avoid: no other target in the package may be named `<name>` or produce
`lib<name>.so` (a cc_library named X implicitly outputs libX.so).

tvm_module_library / tvm_reference_module_library
=================================================

    tvm_module_library(name = "testing_module", srcs = ["testing_module.cc"])

creates `:testing_module.so`, a loadable module (linkshared cc_binary) that links
//ffi:tvm_ffi dynamically (NEEDED libtvm_ffi.so), compiled with our ffi headers; and
`:testing_module`, a filegroup with just that file (for `data` and $(rootpath)).

    tvm_reference_module_library(name = "interop_module", srcs = ["interop_module.cc"])

is the same, but compiled against the apache-tvm-ffi wheel's headers
(@tvm_ffi_reference//:headers) while linking *our* libtvm_ffi.so: the binary-
compatibility check. It is SKIPPED when the reference wheel is not installed.

Both take `ffi` (default "//ffi:tvm_ffi") to link another tvm_shared_library instead.
Modules are built with -fvisibility=hidden: export entry points explicitly
(TVM_FFI_DLL_EXPORT / visibility("default")).
"""

load("@rules_cc//cc:defs.bzl", "cc_binary", "cc_import", "cc_library")
load(":version.bzl", "TVM_STACK_VERSION")

# Compile options of every shipped library object.
TVM_LIBRARY_COPTS = [
    "-fvisibility=hidden",
    "-fvisibility-inlines-hidden",
    "-O2",
    "-ffunction-sections",
    "-fdata-sections",
    "-fPIC",
]

# Compile options of test modules.
TVM_MODULE_COPTS = [
    "-fvisibility=hidden",
    "-fvisibility-inlines-hidden",
    "-fPIC",
]

def _sibling(label, suffix):
    """'//ffi:tvm_ffi' -> '//ffi:tvm_ffi<suffix>'; also ':x', '//ffi' and '@r//p:x'."""
    if ":" in label:
        return label + suffix
    if label.startswith("//") or label.startswith("@"):
        # Package-only label: the target name is the last path component.
        return "%s:%s%s" % (label, label.rsplit("/", 1)[-1], suffix)
    return ":%s%s" % (label, suffix)

def tvm_shared_library(
        name,
        srcs = [],
        hdrs = [],
        includes = [],
        version_script = None,
        deps = [],
        shared_deps = [],
        copts = [],
        linkopts = [],
        visibility = None,
        objects_visibility = None,
        tags = [],
        target_compatible_with = None):
    """Builds lib<name>.so plus the targets needed to depend on it (see module doc).

    Args:
      name: library name without "lib"/".so", e.g. "tvm_ffi" -> libtvm_ffi.so.
      srcs: .cc files and private headers.
      hdrs: public headers (exposed by :<name> and :<name>_headers).
      includes: include dirs, relative to the package, added for dependents (-isystem).
      version_script: label of the linker version script (required).
      deps: cc_library targets linked *statically* into the .so (private).
      shared_deps: other tvm_shared_library `:<name>` targets, linked dynamically
        (DT_NEEDED) and re-exported to dependents of :<name>.
      copts: extra compile options, appended to TVM_LIBRARY_COPTS.
      linkopts: extra link options for the .so.
      visibility: visibility of :<name>, :<name>_headers, :<name>_shared, :lib<name>.so.
      objects_visibility: visibility of :<name>_objects; default is this package only.
      tags: tags for all generated targets.
      target_compatible_with: forwarded to all generated targets.
    """
    if not version_script:
        fail("tvm_shared_library(%s): version_script is required; every shipped .so exports only its C API." % name)
    if not hdrs and not srcs:
        fail("tvm_shared_library(%s): no srcs and no hdrs." % name)

    so_name = "lib%s.so" % name
    common = {"tags": tags}
    if target_compatible_with != None:
        common["target_compatible_with"] = target_compatible_with

    cc_library(
        name = name + "_headers",
        hdrs = hdrs,
        includes = includes,
        deps = [_sibling(d, "_headers") for d in shared_deps],
        visibility = visibility,
        **common
    )

    cc_library(
        name = name + "_objects",
        srcs = srcs,
        copts = TVM_LIBRARY_COPTS + copts,
        deps = [":%s_headers" % name] + deps + shared_deps,
        alwayslink = 1,
        linkstatic = 1,
        visibility = objects_visibility or ["//visibility:private"],
        **common
    )

    cc_binary(
        name = so_name,
        linkshared = 1,
        linkstatic = 1,
        additional_linker_inputs = [version_script],
        linkopts = [
            "-Wl,--version-script=$(location %s)" % version_script,
            "-Wl,-soname," + so_name,
            "-Wl,-z,defs",
            "-Wl,--gc-sections",
            "-Wl,-rpath,$$ORIGIN",
        ] + (
            # The wheel layout (wheels/): libtvm_ffi in tvm_ffi/lib, everything above it in
            # tvm/lib, so dependents of libtvm_ffi also look two folders up.
            ["-Wl,-rpath,$$ORIGIN/../../tvm_ffi/lib"] if shared_deps else []
        ) + linkopts,
        deps = [":%s_objects" % name],
        visibility = visibility,
        **common
    )

    # Bazel 4's cc_import has no target_compatible_with; it inherits incompatibility from
    # the (incompatible) .so it imports.
    cc_import(
        name = name + "_shared",
        shared_library = ":" + so_name,
        visibility = visibility,
        tags = tags,
    )

    cc_library(
        name = name,
        deps = [
            ":%s_headers" % name,
            ":%s_shared" % name,
        ] + shared_deps,
        visibility = visibility,
        **common
    )

def _module(name, srcs, deps, copts, linkopts, visibility, tags, target_compatible_with, testonly):
    so_name = name + ".so"
    common = {"tags": tags, "testonly": testonly}
    if target_compatible_with != None:
        common["target_compatible_with"] = target_compatible_with
    cc_binary(
        name = so_name,
        srcs = srcs,
        copts = TVM_MODULE_COPTS + copts,
        linkshared = 1,
        linkstatic = 1,
        linkopts = [
            "-Wl,-z,defs",
            "-Wl,-rpath,$$ORIGIN",
        ] + linkopts,
        deps = deps,
        visibility = visibility,
        **common
    )
    native.filegroup(
        name = name,
        srcs = [":" + so_name],
        visibility = visibility,
        **common
    )

def tvm_module_library(
        name,
        srcs,
        deps = [],
        ffi = "//ffi:tvm_ffi",
        copts = [],
        linkopts = [],
        visibility = None,
        tags = [],
        target_compatible_with = None,
        testonly = True):
    """A loadable module `:<name>.so` compiled with our ffi headers, linking libtvm_ffi.so.

    Args:
      name: module name; the file is <name>.so, `:<name>` is a filegroup of it.
      srcs: sources.
      deps: extra cc deps (link statically unless they are tvm_shared_library targets).
      ffi: the tvm_shared_library to link against (default //ffi:tvm_ffi).
      copts, linkopts: extra options.
      visibility, tags, target_compatible_with, testonly: as usual (testonly defaults True).
    """
    _module(name, srcs, [ffi] + deps, copts, linkopts, visibility, tags, target_compatible_with, testonly)

def tvm_reference_module_library(
        name,
        srcs,
        deps = [],
        ffi = "//ffi:tvm_ffi",
        copts = [],
        linkopts = [],
        visibility = None,
        tags = [],
        target_compatible_with = None,
        testonly = True):
    """Like tvm_module_library, but compiled against apache-tvm-ffi's headers.

    Links our `<ffi>_shared` (the .so only, no headers), so the module sees the
    reference wheel's headers and our binary. SKIPPED when the wheel is missing.
    Do not put targets carrying our ffi headers in `deps` (two tvm/ffi/*.h trees).
    """
    _module(
        name,
        srcs,
        ["@tvm_ffi_reference//:headers", _sibling(ffi, "_shared")] + deps,
        copts,
        linkopts,
        visibility,
        tags,
        target_compatible_with,
        testonly,
    )

def tvm_build_info(name, srcs, deps):
    """The build-facts object of a shipped library, in a target of its own.

    The git revision (`--define=TVM_GIT_REVISION=<rev>`, set by tools/*.sh; .bazelrc defaults
    it to "unknown") changes with every commit, so it is compiled into this one small target
    instead of every object of the library. Put `:<name>` in the library's `deps`.

    Args:
      name: target name.
      srcs: the build-info source (and private headers it includes).
      deps: headers it needs (e.g. the library's `_headers` target).
    """
    cc_library(
        name = name,
        srcs = srcs,
        copts = TVM_LIBRARY_COPTS + [
            '-DTVM_GIT_REVISION=\\"$(TVM_GIT_REVISION)\\"',
            '-DTVM_STACK_VERSION=\\"%s\\"' % TVM_STACK_VERSION,
        ],
        deps = deps + ["//bazel:build_facts"],
        alwayslink = 1,
    )

def tvm_public_headers(name = "headers"):
    """The package's public headers (include/**/*.h) as plain files, for builds outside Bazel,
    packaging and libinfo's include directory."""
    native.filegroup(
        name = name,
        srcs = native.glob(["include/**/*.h"]),
        visibility = ["//visibility:public"],
    )
