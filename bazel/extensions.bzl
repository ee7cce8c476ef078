"""Module extension for MODULE.bazel (Bazel 7/8): the machine-local repositories.

Wraps the same repository rules that WORKSPACE calls on Bazel 4. Bazel 4 never loads
this file; do not load it from a BUILD file. googletest comes from the BCR under Bzlmod
(MODULE.bazel maps it to the repo name local_gtest), so local_gtest is not created here.
"""

load("//bazel:apache_tvm.bzl", "apache_tvm_reference")
load("//bazel:cuda_configure.bzl", "local_cuda")
load("//bazel:gloo_configure.bzl", "local_gloo")
load("//bazel:python_configure.bzl", "local_python")
load("//bazel:reference_ffi.bzl", "tvm_ffi_reference")
load("//bazel:wheelhouse.bzl", "local_wheelhouse")

def _local_envs_impl(_mctx):
    local_python(name = "local_python")
    local_cuda(name = "local_cuda")
    local_gloo(name = "local_gloo")
    tvm_ffi_reference(name = "tvm_ffi_reference")
    local_wheelhouse(name = "local_wheelhouse")
    apache_tvm_reference(name = "apache_tvm_reference")

local_envs = module_extension(
    implementation = _local_envs_impl,
    doc = "local_python, local_cuda, local_gloo, tvm_ffi_reference, local_wheelhouse and apache_tvm_reference for Bzlmod.",
)
