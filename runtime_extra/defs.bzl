"""Whether libtvm_runtime_extra is built, for packages that ship or test it.

It is built by default; --//config:runtime_extra=false (or --define=runtime_extra=off, or
--config=no_extra) leaves it out, and then its targets are SKIPPED by `bazel test //...`.

    load("//runtime_extra:defs.bzl", "if_runtime_extra", "runtime_extra_compatible")
    data = [...] + if_runtime_extra(["//runtime_extra:libtvm_runtime_extra.so"])
"""

load("@local_gloo//:defs.bzl", "GLOO_FOUND")
load("//runtime_cuda:defs.bzl", "CUDA_RUNTIME_BUILT")

def if_runtime_extra(if_true, if_false = []):
    """A select: `if_true` when libtvm_runtime_extra is built, else `if_false`."""
    return select({
        "//config:runtime_extra_disabled": if_false,
        "//conditions:default": if_true,
    })

def runtime_extra_compatible():
    """target_compatible_with for libtvm_runtime_extra's targets and its tests."""
    return select({
        "//config:runtime_extra_disabled": ["//config:incompatible"],
        "//conditions:default": [],
    })

def if_gloo_plugin(if_true, if_false = []):
    """`if_true` where the gloo plugin is built (gloo found by @local_gloo and runtime_extra on)."""
    if not GLOO_FOUND:
        return if_false
    return if_runtime_extra(if_true, if_false)

def if_nccl_plugin(if_true, if_false = []):
    """`if_true` where the NCCL plugin is built: libtvm_runtime_cuda is built (CUDA headers found
    by @local_cuda) and runtime_extra is on. NCCL itself is dlopen'ed at run time."""
    if not CUDA_RUNTIME_BUILT:
        return if_false
    return if_runtime_extra(if_true, if_false)

def nccl_plugin_compatible():
    """target_compatible_with for the NCCL plugin and the tests that need it."""
    if not CUDA_RUNTIME_BUILT:
        return ["//config:incompatible"]
    return runtime_extra_compatible()

def if_cublas(if_true, if_false = []):
    """`if_true` where libtvm_runtime_extra holds cuBLAS (libtvm_runtime_cuda is built too)."""
    return if_true if CUDA_RUNTIME_BUILT else if_false
