"""Repository rule `local_gloo`: the optional gloo library (Debian's libgloo-dev).

Looks for include/gloo/allreduce.h and libgloo.so under $GLOO_ROOT (if set), then /usr and
/usr/local (lib/x86_64-linux-gnu, lib/aarch64-linux-gnu, lib64, lib). $LOCAL_GLOO_DISABLE=1
pretends it is absent.

Generated:
  @local_gloo//:gloo   the gloo/ headers + `-L<libdir> -lgloo` (NEEDED libgloo.so.0, found by
                       the system loader at run time; Debian's libgloo0)
  @local_gloo//:defs.bzl  GLOO_FOUND, GLOO_LIBDIR

When gloo is absent :gloo is incompatible, so the gloo plugin (runtime_extra/ccl/gloo) and its
tests are SKIPPED and `init_ccl("gloo")` says what to install. `bazel sync --configure` after
installing it.
"""

_FOUND_BUILD = """\
load("@rules_cc//cc:defs.bzl", "cc_library")

package(default_visibility = ["//visibility:public"])

cc_library(
    name = "gloo",
    hdrs = glob(["include/gloo/**/*.h"]),
    includes = ["include"],
    linkopts = ["-L{libdir}", "-lgloo", "-pthread"],
)
"""

_MISSING_BUILD = """\
load("@rules_cc//cc:defs.bzl", "cc_library")

package(default_visibility = ["//visibility:public"])

# gloo was not found (install libgloo-dev, then `bazel sync --configure`).
cc_library(
    name = "gloo",
    target_compatible_with = ["@//config:incompatible"],
)
"""

_LIBDIRS = ["lib/x86_64-linux-gnu", "lib/aarch64-linux-gnu", "lib64", "lib"]

def _find(rctx):
    if rctx.os.environ.get("LOCAL_GLOO_DISABLE", "") == "1":
        return None
    roots = []
    if rctx.os.environ.get("GLOO_ROOT", ""):
        roots.append(rctx.os.environ["GLOO_ROOT"])
    roots += ["/usr", "/usr/local"]
    for root in roots:
        if not rctx.path(root + "/include/gloo/allreduce.h").exists:
            continue
        for d in _LIBDIRS:
            lib = "%s/%s" % (root, d)
            if rctx.path(lib + "/libgloo.so").exists:
                return (root, lib)
    return None

def _local_gloo_impl(rctx):
    rctx.file("WORKSPACE", 'workspace(name = "%s")\n' % rctx.name)
    found = _find(rctx)
    if not found:
        rctx.file("BUILD.bazel", _MISSING_BUILD)
        rctx.file("defs.bzl", 'GLOO_FOUND = False\nGLOO_LIBDIR = ""\n')
        return
    root, lib = found
    rctx.symlink(root + "/include/gloo", "include/gloo")
    rctx.file("BUILD.bazel", _FOUND_BUILD.format(libdir = lib))
    rctx.file("defs.bzl", 'GLOO_FOUND = True\nGLOO_LIBDIR = "%s"\n' % lib)

local_gloo = repository_rule(
    implementation = _local_gloo_impl,
    environ = ["GLOO_ROOT", "LOCAL_GLOO_DISABLE"],
    local = True,
    configure = True,
    doc = "Exposes the system gloo as @<name>//:gloo, or an incompatible placeholder.",
)
