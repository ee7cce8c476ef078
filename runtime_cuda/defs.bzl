"""When libtvm_runtime_cuda is built, for packages that ship or test it.

It builds in the default configuration whenever @local_cuda found the CUDA headers (no GPU
or driver needed: the driver is dlopen'ed at run time). Without headers its targets are
SKIPPED, except under --config=cuda (//config:cuda), where the missing toolkit is an error.

    load("//runtime_cuda:defs.bzl", "CUDA_RUNTIME_BUILT", "if_cuda_runtime")
    data = [...] + if_cuda_runtime(["//runtime_cuda:libtvm_runtime_cuda.so"])
"""

load("@local_cuda//:defs.bzl", "CUDA_FOUND", "CUDA_VERSION")

CUDA_RUNTIME_BUILT = CUDA_FOUND
CUDA_RUNTIME_VERSION = CUDA_VERSION

def if_cuda_runtime(if_true, if_false = []):
    """`if_true` when libtvm_runtime_cuda is built here, else `if_false`."""
    return if_true if CUDA_FOUND else if_false

def cuda_runtime_compatible():
    """target_compatible_with for libtvm_runtime_cuda's targets (and its tests)."""
    if CUDA_FOUND:
        return []
    return select({
        # --config=cuda without a toolkit: stay compatible so that the build fails loudly
        # (see :cuda_toolkit_required) instead of skipping.
        "//config:cuda_enabled": [],
        "//conditions:default": ["//config:incompatible"],
    })

def with_cuda_runtime_env(env, extra):
    """`env` plus `extra` when libtvm_runtime_cuda is built (BUILD files cannot use **kwargs)."""
    out = dict(env)
    if CUDA_FOUND:
        out.update(extra)
    return out
