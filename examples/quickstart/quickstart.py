"""Quick start: call C++ from Python with zero-copy tensors, and Python from C++.

    python3 examples/quickstart/quickstart.py path/to/quickstart_module.so
"""

import sys

import numpy as np
import tvm_ffi


def main(module_path):
    mod = tvm_ffi.load_module(module_path)

    # numpy in, written in place by C++: the module sees the array's own memory.
    x = np.arange(8, dtype="float32")
    y = np.ones(8, dtype="float32")
    mod.saxpy(2.0, tvm_ffi.from_dlpack(x), tvm_ffi.from_dlpack(y))
    assert np.allclose(y, 2 * np.arange(8) + 1), y
    print("saxpy (numpy, zero copy):", y)

    try:  # the same call with a torch tensor, when torch is installed
        import torch

        tx, ty = torch.arange(4, dtype=torch.float32), torch.zeros(4)
        mod.saxpy(3.0, tvm_ffi.from_dlpack(tx), tvm_ffi.from_dlpack(ty))
        assert ty.tolist() == [0.0, 3.0, 6.0, 9.0], ty
        print("saxpy (torch, zero copy):", ty.tolist())
    except ImportError:
        print("saxpy (torch): torch not installed, skipped")

    # A Python function registered as a global and called from C++.
    @tvm_ffi.register_global_func("quickstart.square", override=True)
    def square(v):
        return v * v

    assert mod.call_global("quickstart.square", 12) == 144
    print("C++ called Python: quickstart.square(12) =", mod.call_global("quickstart.square", 12))


if __name__ == "__main__":
    main(sys.argv[1])
