"""local_wheelhouse: where the offline wheel-install test finds the wheels of its dependencies.

tools/install_deps.sh downloads numpy and llvmlite wheels (the full wheel's requirements) into
$TVM_STACK_WHEELHOUSE, default $HOME/.cache/tvm-stack/wheelhouse, while it has the package
index; //wheels:wheel_install_test then installs our wheels with `pip --no-index
--find-links` that folder. The repository only writes the folder's path into defs.bzl
(WHEELHOUSE_DIR): tests do not see $HOME. A missing folder is the test's clear failure,
not a skip.
"""

def _local_wheelhouse_impl(rctx):
    d = rctx.os.environ.get("TVM_STACK_WHEELHOUSE", "").strip()
    if not d:
        home = rctx.os.environ.get("HOME", "")
        d = "%s/.cache/tvm-stack/wheelhouse" % home if home else ""
    rctx.file("WORKSPACE", 'workspace(name = "%s")\n' % rctx.name)
    rctx.file("BUILD.bazel", "")
    rctx.file("defs.bzl", 'WHEELHOUSE_DIR = "%s"\n' % d)

local_wheelhouse = repository_rule(
    implementation = _local_wheelhouse_impl,
    environ = ["TVM_STACK_WHEELHOUSE", "HOME"],
    local = True,
    configure = True,
    doc = "Writes WHEELHOUSE_DIR (the offline wheelhouse's path) into defs.bzl.",
)
