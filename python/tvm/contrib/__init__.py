"""tvm.contrib: interfaces to external tools (nvcc: the CUDA compilers NVRTC and nvcc)."""
