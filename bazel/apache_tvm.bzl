"""Repository rule `apache_tvm_reference`: where the apache-tvm wheel for the CUDA blob interop
test (tests/interop/test_cuda_blob_apache_tvm.py) is installed.

tools/install_deps.sh installs it, with the apache-tvm-ffi it imports, into a folder of its own
(both import names, `tvm` and `tvm_ffi`, are our packages' names too):

  python3 -m pip install --no-deps --target "$APACHE_TVM_DIR" \\
      apache-tvm==0.27.0.post1 apache-tvm-ffi==0.1.15.post2

with APACHE_TVM_DIR defaulting to $HOME/.cache/tvm-stack/apache-tvm-0.27.0.post1. Its other
requirements (numpy, ml_dtypes, typing_extensions; cuda-bindings and nvidia-cuda-nvrtc for its
NVRTC path) come from the test interpreter (requirements-test.txt and their dependencies).

defs.bzl has APACHE_TVM_DIR (absolute; set even when the folder is missing, so the test FAILS
with the reason instead of being skipped), APACHE_TVM_FOUND and APACHE_TVM_VERSION. Run
`bazel sync --configure` (or restart the server) after installing it.

defs.bzl also has VISION_VENV: the virtual environment with torch 2.14.1 + torchvision 0.29.1
that tools/install_deps.sh makes for tests/compiler_py/test_vision_models.py ($TVM_VISION_VENV,
default $HOME/.cache/tvm-stack/vision-torch-2.14.1; torchvision's wheels do not load beside the
test interpreter's torch 2.13 CPU wheel). Absolute and set even when missing, as above.
"""

APACHE_TVM_VERSION = "0.27.0.post1"

def _apache_tvm_reference_impl(rctx):
    rctx.file("WORKSPACE", 'workspace(name = "%s")\n' % rctx.name)
    d = rctx.os.environ.get("APACHE_TVM_DIR", "").strip()
    if not d:
        home = rctx.os.environ.get("HOME", "")
        d = "%s/.cache/tvm-stack/apache-tvm-%s" % (home, APACHE_TVM_VERSION) if home else ""
    vision = rctx.os.environ.get("TVM_VISION_VENV", "").strip()
    if not vision:
        home = rctx.os.environ.get("HOME", "")
        vision = "%s/.cache/tvm-stack/vision-torch-2.14.1" % home if home else ""
    found = bool(d) and rctx.path("%s/apache_tvm-%s.dist-info/METADATA" % (d, APACHE_TVM_VERSION)).exists
    rctx.file("BUILD.bazel", "# Nothing to build: see defs.bzl.\n")
    rctx.file("defs.bzl", "\n".join([
        'APACHE_TVM_DIR = "%s"' % d,
        "APACHE_TVM_FOUND = %s" % found,
        'APACHE_TVM_VERSION = "%s"' % APACHE_TVM_VERSION,
        'VISION_VENV = "%s"' % vision,
        "",
    ]))

apache_tvm_reference = repository_rule(
    implementation = _apache_tvm_reference_impl,
    environ = ["APACHE_TVM_DIR", "HOME", "TVM_VISION_VENV"],
    local = True,
    configure = True,
    doc = "Where the apache-tvm wheel for the CUDA interop test is installed (defs.bzl).",
)
