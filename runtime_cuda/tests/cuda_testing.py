"""Helpers for the CUDA runtime tests.

The fake driver (fake_driver/fake_cuda.c, loaded through TVM_CUDA_DRIVER_LIBRARY) stands in
for libcuda.so.1 to test the runtime's HOST-SIDE logic only: probing, error mapping,
contexts, copies over host memory, streams as handles, module loading and the bytes handed to
cuLaunchKernelEx. It runs no GPU code (two tiny kernels are emulated on the host so a VM
program can run end to end); device behaviour is checked on a GPU (tools/gpu_check).
"""

import ctypes
import json
import os
import subprocess
import sys

from tvm.runtime.cuda_support import FunctionInfo, pack_module_blob

FAKE_DRIVER = os.path.abspath(os.environ.get("TVM_CUDA_DRIVER_LIBRARY", ""))

HANDLE = (3, 64, 1)
I32, I64, U8, U16, U32 = (0, 32, 1), (0, 64, 1), (1, 8, 1), (1, 16, 1), (1, 32, 1)
F32, F64 = (2, 32, 1), (2, 64, 1)

# PTX whose .entry signatures the fake parses for parameter sizes.
PTX = """//
// Test kernels for the fake driver (host-side logic only).
//
.version 8.0
.target sm_90
.address_size 64

.visible .entry fake_vadd_f32(
\t.param .u64 .ptr .global .align 1 a,
\t.param .u64 .ptr .global .align 1 b,
\t.param .u64 .ptr .global .align 1 c,
\t.param .u32 n
)
{
\tret;
}

.visible .entry fake_fill_i32(
\t.param .u64 .ptr .global .align 1 p,
\t.param .u32 value,
\t.param .u32 n
)
{
\tret;
}

.visible .entry scalars(
\t.param .u32 a_i32,
\t.param .u64 a_i64,
\t.param .f32 a_f32,
\t.param .f64 a_f64,
\t.param .u64 a_ptr,
\t.param .u8 a_u8,
\t.param .u16 a_u16,
\t.param .u32 a_u32
)
{
\tret;
}

.visible .entry dyn_smem(
\t.param .u64 .ptr .global .align 1 p
)
{
\tret;
}
"""

FUNCTIONS = {
    "fake_vadd_f32": FunctionInfo("fake_vadd_f32", [HANDLE, HANDLE, HANDLE, I32],
                                  ["blockIdx.x", "threadIdx.x"], [0, 0, 0, 0]),
    "fake_fill_i32": FunctionInfo("fake_fill_i32", [HANDLE, I32, I32],
                                  ["blockIdx.x", "threadIdx.x"], [0, 0, 0]),
    "scalars": FunctionInfo("scalars", [I32, I64, F32, F64, HANDLE, U8, U16, U32],
                            ["blockIdx.x", "blockIdx.y", "blockIdx.z", "threadIdx.x",
                             "threadIdx.y", "threadIdx.z"], [0] * 8),
    "dyn_smem": FunctionInfo("dyn_smem", [HANDLE],
                             ["blockIdx.x", "threadIdx.x", "tirx.use_dyn_shared_memory"], [0]),
}


def test_blob(fmt="ptx", functions=None, code=PTX):
    return pack_module_blob(fmt, FUNCTIONS if functions is None else functions, code)


test_blob.__test__ = False  # a helper, not a test


class Launch(ctypes.Structure):
    _fields_ = [
        ("name", ctypes.c_char * 128),
        ("grid", ctypes.c_uint * 3),
        ("block", ctypes.c_uint * 3),
        ("shared_mem_bytes", ctypes.c_uint),
        ("stream", ctypes.c_void_p),
        ("context", ctypes.c_void_p),
        ("num_params", ctypes.c_int),
        ("param_size", ctypes.c_size_t * 64),
        ("params", ctypes.c_ubyte * 2048),
        ("max_dynamic_shared_attr", ctypes.c_int),
    ]

    def param_bytes(self):
        out, off = [], 0
        for i in range(self.num_params):
            n = self.param_size[i]
            out.append(bytes(self.params[off:off + n]))
            off += n
        return out


class Stats(ctypes.Structure):
    _fields_ = [
        ("launches", ctypes.c_int),
        ("module_loads", ctypes.c_int),
        ("module_unloads", ctypes.c_int),
        ("live_allocations", ctypes.c_int),
        ("live_streams", ctypes.c_int),
        ("ctx_set_current", ctypes.c_int),
        ("primary_ctx_retains", ctypes.c_int),
        ("last_image_size", ctypes.c_size_t),
        ("last_image_head", ctypes.c_ubyte * 16),
    ]


class FakeDriver:
    """The fake's introspection functions (the same loaded copy the runtime dlopen'ed)."""

    def __init__(self, path=FAKE_DRIVER):
        self.lib = ctypes.CDLL(path)

    def last_launch(self):
        out = Launch()
        assert self.lib.fake_cuda_last_launch(ctypes.byref(out)) == 0, "no launch recorded"
        return out

    def stats(self):
        out = Stats()
        self.lib.fake_cuda_stats(ctypes.byref(out))
        return out

    def reset(self):
        self.lib.fake_cuda_reset()


def run_probe(env_updates, code):
    """Runs `code` in a fresh Python (the driver state is cached per process) with the
    environment changed by env_updates (None values delete); returns its JSON output."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    for k, v in env_updates.items():
        if v is None:
            env.pop(k, None)
        else:
            env[k] = v
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])
