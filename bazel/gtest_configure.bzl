"""Repository rule `local_gtest`: googletest from the system (Debian libgtest-dev).

Generated targets:
  @local_gtest//:gtest       headers + libgtest.a (+ -pthread)
  @local_gtest//:gtest_main  :gtest + libgtest_main.a (provides main())

Looks for include/gtest/gtest.h and libgtest.a / libgtest_main.a under $GTEST_ROOT
(if set), then /usr and /usr/local (lib/x86_64-linux-gnu, lib64, lib). Only the gtest/
header directory is exposed, not all of /usr/include. Fails with an install hint when
they are missing. Under Bzlmod, MODULE.bazel maps the same repo name to BCR googletest.
"""

_BUILD = """\
load("@rules_cc//cc:defs.bzl", "cc_import", "cc_library")

package(default_visibility = ["//visibility:public"])

cc_import(
    name = "gtest_lib",
    static_library = "lib/libgtest.a",
    visibility = ["//visibility:private"],
)

cc_import(
    name = "gtest_main_lib",
    static_library = "lib/libgtest_main.a",
    visibility = ["//visibility:private"],
)

cc_library(
    name = "gtest",
    hdrs = glob(["include/gtest/**/*.h"]),
    includes = ["include"],
    linkopts = ["-pthread"],
    deps = [":gtest_lib"],
)

cc_library(
    name = "gtest_main",
    deps = [
        ":gtest",
        ":gtest_main_lib",
    ],
)
"""

_LIBDIRS = ["lib/x86_64-linux-gnu", "lib/aarch64-linux-gnu", "lib64", "lib"]

def _local_gtest_impl(rctx):
    roots = []
    if rctx.os.environ.get("GTEST_ROOT", ""):
        roots.append(rctx.os.environ["GTEST_ROOT"])
    roots += ["/usr", "/usr/local"]

    found = None
    for root in roots:
        if not rctx.path(root + "/include/gtest/gtest.h").exists:
            continue
        for d in _LIBDIRS:
            lib = "%s/%s" % (root, d)
            if rctx.path(lib + "/libgtest.a").exists and rctx.path(lib + "/libgtest_main.a").exists:
                found = (root, lib)
                break
        if found:
            break
    if not found:
        fail("\n".join([
            "local_gtest: system googletest not found (looked for include/gtest/gtest.h,",
            "libgtest.a and libgtest_main.a under %s)." % ", ".join(roots),
            "Install it with:  sudo apt-get install -y libgtest-dev",
            "(or run tools/install_deps.sh; or set GTEST_ROOT), then `bazel sync --configure`.",
        ]))

    root, lib = found
    rctx.symlink(root + "/include/gtest", "include/gtest")
    rctx.symlink(lib + "/libgtest.a", "lib/libgtest.a")
    rctx.symlink(lib + "/libgtest_main.a", "lib/libgtest_main.a")
    rctx.file("WORKSPACE", 'workspace(name = "%s")\n' % rctx.name)
    rctx.file("BUILD.bazel", _BUILD)

local_gtest = repository_rule(
    implementation = _local_gtest_impl,
    environ = ["GTEST_ROOT"],
    local = True,
    configure = True,
    doc = "Exposes the system googletest as @<name>//:gtest and :gtest_main.",
)
