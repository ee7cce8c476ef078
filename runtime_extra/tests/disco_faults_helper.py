"""Functions the fault tests run on workers (imported there with import_python_module)."""

import os
import time

import tvm_ffi


def _rank():
    return int(tvm_ffi.get_global_func("runtime.disco.worker_rank")())


@tvm_ffi.register_global_func("tests.disco_faults.raise_on", override=True)
def _raise_on(rank):
    if _rank() == rank:
        raise ValueError("boom on rank %d" % rank)
    return 0


@tvm_ffi.register_global_func("tests.disco_faults.sleep_on", override=True)
def _sleep_on(rank, seconds):
    if rank < 0 or _rank() == rank:
        time.sleep(seconds)
    return 0


@tvm_ffi.register_global_func("tests.disco_faults.pid", override=True)
def _pid():
    return os.getpid()


@tvm_ffi.register_global_func("tests.disco_faults.zeros_by_rank", override=True)
def _zeros_by_rank(rows, cols):
    """A (rows, cols + rank) float32 tensor: workers disagree on the shape."""
    import numpy as np

    import tvm

    return tvm.runtime.tensor(np.zeros((rows, cols + _rank()), "float32"))
