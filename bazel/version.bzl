"""The release version of the stack: the one place it is written.

Used by the wheels (//wheels), the build facts of every library (`version` in
ffi.BuildInfo's siblings runtime.BuildInfo / compiler.BuildInfo, hence `tvm.__version__`).
MODULE.bazel cannot load .bzl files, so //wheels:wheel_test checks that its
`module(version = ...)` says the same.

libtvm_ffi's own version (TVMFFIGetVersion, `tvm_ffi.__version__`) is the tvm-ffi C ABI
version it is compatible with (c_api.h), not this one.
"""

TVM_STACK_VERSION = "0.1.0"
