"""tvm.contrib: interfaces to external tools, as in TVM: cc (the C compiler: create_shared,
cross_compiler), tar, utils (tempdir), cross (the toolchain of a cross target), nvcc (the
CUDA compilers NVRTC and nvcc). Pure Python; the runtime-only package has them too."""
