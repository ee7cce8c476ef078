"""Helpers of the NCCL and cuBLAS tests: what this process can run, said in skip reasons."""

import tvm_ffi

import tvm
from tvm.runtime import disco  # noqa: F401  (registers the Disco error kinds)


def nccl_reason():
    """"" when init_ccl("nccl") can run here, else why not (the plugin's own probe)."""
    return tvm_ffi.get_global_func("runtime.disco.probe_ccl")("nccl")


def cublas_reason():
    return tvm_ffi.get_global_func("tvm.contrib.cublas.probe")()


def gpu_count():
    status = tvm.runtime.cuda_driver_status()
    return int(status["device_count"]) if status["available"] else 0


def load_plugin_everywhere(sess, ccl):
    """Has every worker load `libtvm_disco_<ccl>.so` (what init_ccl does first)."""
    sess.get_global_func("runtime.disco.load_ccl_plugin")(ccl)
    sess.sync_worker_0()
