"""Repository rule `local_cuda`: an optional, locally installed CUDA toolkit.

Search order for the toolkit root (first one with include/cuda.h wins):
  $CUDA_HOME, $CUDA_PATH, /usr/local/cuda, then pip wheels: site-packages/nvidia/*/
  (CUDA 13 wheels: nvidia/cu13/{include,lib}) of $PYTHON_BIN_PATH or python3.
$LOCAL_CUDA_DISABLE=1 pretends nothing is installed.

Generated targets (all public):
  :cuda_driver_headers  cuda.h, cudaTypedefs.h (compile against the driver API; dlopen
                        libcuda.so.1 at run time, never link it: there may be no driver)
  :cuda_headers         top-level *.h and crt/** (CCCL is left out: thousands of files)
  :cudart_static        libcudart_static.a (+ -ldl -lrt -lpthread)
  :nvcc                 the nvcc executable (filegroup), for genrules
and defs.bzl with CUDA_FOUND, CUDA_VERSION (e.g. 13000), CUDA_HOME, CUDA_INCLUDE, NVCC.

When nothing is found every target carries target_compatible_with =
["@//config:incompatible"], so dependents are SKIPPED by `bazel test //...` instead of
failing. Run `bazel sync --configure` after installing CUDA.
"""

_FOUND_BUILD = """\
load("@rules_cc//cc:defs.bzl", "cc_library")

package(default_visibility = ["//visibility:public"])

cc_library(
    name = "cuda_driver_headers",
    hdrs = glob(["include/cuda.h", "include/cudaTypedefs.h"]),
    includes = ["include"],
)

cc_library(
    name = "cuda_headers",
    hdrs = glob(["include/*.h", "include/crt/**"]),
    includes = ["include"],
)

cc_library(
    name = "cudart_static",
    srcs = {cudart_srcs},
    linkopts = ["-ldl", "-lrt", "-lpthread"],
    deps = [":cuda_headers"],
    target_compatible_with = {cudart_compat},
)

filegroup(
    name = "nvcc",
    srcs = {nvcc_srcs},
)

cc_library(
    name = "no_nvcc",
    target_compatible_with = ["@//config:incompatible"],
    visibility = ["//visibility:private"],
)
"""

_MISSING_BUILD = """\
load("@rules_cc//cc:defs.bzl", "cc_library")

package(default_visibility = ["//visibility:public"])

# No CUDA toolkit was found: everything here is incompatible, so dependents are SKIPPED.
[cc_library(
    name = n,
    target_compatible_with = ["@//config:incompatible"],
) for n in ["cuda_driver_headers", "cuda_headers", "cudart_static"]]

# filegroup has no target_compatible_with in Bazel 4: it inherits incompatibility
# from its (incompatible) srcs instead.
filegroup(
    name = "nvcc",
    srcs = [":cuda_headers"],
)
"""

_PIP_PROBE = """
import glob, os, site, sys
paths = list(site.getsitepackages()) + [site.getusersitepackages()]
for sp in paths:
    for h in sorted(glob.glob(os.path.join(sp, "nvidia", "*", "include", "cuda.h"))):
        print(os.path.dirname(os.path.dirname(h)))
        sys.exit(0)
"""

def _exists(rctx, p):
    return p and rctx.path(p).exists

def _find_root(rctx):
    env = rctx.os.environ
    if env.get("LOCAL_CUDA_DISABLE", "") in ("1", "true", "True"):
        return None
    for cand in [env.get("CUDA_HOME", ""), env.get("CUDA_PATH", ""), "/usr/local/cuda"]:
        if cand and _exists(rctx, cand + "/include/cuda.h"):
            return cand
    python = env.get("PYTHON_BIN_PATH", "") or rctx.which("python3")
    if python:
        res = rctx.execute([str(python), "-c", _PIP_PROBE])
        root = res.stdout.strip()
        if res.return_code == 0 and root and _exists(rctx, root + "/include/cuda.h"):
            return root
    return None

def _cuda_version(rctx, root):
    for line in rctx.read(root + "/include/cuda.h").splitlines():
        # Bazel 4's str.split() needs an explicit separator.
        parts = [p for p in line.replace("\t", " ").split(" ") if p]
        if len(parts) >= 3 and parts[0] == "#define" and parts[1] == "CUDA_VERSION":
            return int(parts[2])
    return 0

def _local_cuda_impl(rctx):
    rctx.file("WORKSPACE", 'workspace(name = "%s")\n' % rctx.name)
    root = _find_root(rctx)
    if not root:
        rctx.file("BUILD.bazel", _MISSING_BUILD)
        rctx.file("defs.bzl", "\n".join([
            "CUDA_FOUND = False",
            "CUDA_VERSION = 0",
            'CUDA_HOME = ""',
            'CUDA_INCLUDE = ""',
            'NVCC = ""',
            "",
        ]))
        return

    rctx.symlink(root + "/include", "include")
    libdir = None
    for d in ["lib64", "lib"]:
        if _exists(rctx, "%s/%s/libcudart_static.a" % (root, d)):
            libdir = d
            break
    if libdir:
        rctx.symlink("%s/%s" % (root, libdir), "lib")
    nvcc = root + "/bin/nvcc"
    has_nvcc = _exists(rctx, nvcc)
    if has_nvcc:
        rctx.symlink(nvcc, "bin/nvcc")

    rctx.file("BUILD.bazel", _FOUND_BUILD.format(
        cudart_srcs = '["lib/libcudart_static.a"]' if libdir else "[]",
        cudart_compat = "[]" if libdir else '["@//config:incompatible"]',
        nvcc_srcs = '["bin/nvcc"]' if has_nvcc else '[":no_nvcc"]',
    ))
    rctx.file("defs.bzl", "\n".join([
        "CUDA_FOUND = True",
        "CUDA_VERSION = %d" % _cuda_version(rctx, root),
        'CUDA_HOME = "%s"' % root,
        'CUDA_INCLUDE = "%s/include"' % root,
        'NVCC = "%s"' % (nvcc if has_nvcc else ""),
        "",
    ]))

local_cuda = repository_rule(
    implementation = _local_cuda_impl,
    environ = ["CUDA_HOME", "CUDA_PATH", "PYTHON_BIN_PATH", "LOCAL_CUDA_DISABLE"],
    local = True,
    configure = True,
    doc = "Exposes a locally installed CUDA toolkit, or incompatible placeholders.",
)
