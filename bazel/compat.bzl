"""target_compatible_with helpers for optional features.

  cc_test(..., target_compatible_with = cuda_only())
  py_test(..., target_compatible_with = reference_only())

Dependents of @local_cuda / @tvm_ffi_reference targets already become incompatible by
propagation; use these for targets that need the feature without depending on those
targets (e.g. a py_test that only reads REFERENCE_DIR from the environment).
Do not write `cuda_only() + ["//config:incompatible"]` (duplicate label error).
"""

load("@local_cuda//:defs.bzl", "CUDA_FOUND")
load("@tvm_ffi_reference//:defs.bzl", "REFERENCE_FOUND")

_INCOMPATIBLE = Label("//config:incompatible")

def cuda_only():
    """Compatible only with --config=cuda on a machine where local_cuda found a toolkit."""
    return select({
        # Bazel 4 wants label strings as select() keys, not Label objects.
        str(Label("//config:cuda_enabled")): [] if CUDA_FOUND else [_INCOMPATIBLE],
        "//conditions:default": [_INCOMPATIBLE],
    })

def reference_only():
    """Compatible only when the apache-tvm-ffi reference wheel is installed."""
    return [] if REFERENCE_FOUND else [_INCOMPATIBLE]
