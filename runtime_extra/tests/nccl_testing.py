"""Helpers of the NCCL and cuBLAS tests: what this process can run, said in skip reasons."""

import tvm_ffi

import tvm
from tvm.runtime import disco  # noqa: F401  (registers the Disco error kinds)


def nccl_reason():
    """"" when init_ccl("nccl") can run here, else why not (the plugin's own probe)."""
    return tvm_ffi.get_global_func("runtime.disco.probe_ccl")("nccl")


def cublas_reason():
    return tvm_ffi.get_global_func("tvm.contrib.cublas.probe")()


def gpu_missing_reason():
    """"" when a CUDA driver and at least one GPU are here, else why not. The only reason a
    GPU test may skip: a missing library on a machine WITH a GPU is an install step not done,
    and the tests fail on it (require_library)."""
    status = tvm.runtime.cuda_driver_status()
    if not status["available"]:
        return "no usable CUDA driver: " + str(status["reason"])
    if int(status["device_count"]) == 0:
        return "the CUDA driver sees no GPU"
    return ""


def require_library(reason, what):
    """On a machine with a GPU, fails (never skips) when `what` cannot run: `reason` is the
    library's probe, e.g. libnccl.so.2 or libcublas.so.13 not installed."""
    import pytest

    if reason:
        pytest.fail("a GPU is here but %s cannot run (install it: tools/gpu_check.sh notes the "
                    "wheels): %s" % (what, reason))


def gpu_count():
    status = tvm.runtime.cuda_driver_status()
    return int(status["device_count"]) if status["available"] else 0


def load_plugin_everywhere(sess, ccl):
    """Has every worker load `libtvm_disco_<ccl>.so` (what init_ccl does first)."""
    sess.get_global_func("runtime.disco.load_ccl_plugin")(ccl)
    sess.sync_worker_0()
