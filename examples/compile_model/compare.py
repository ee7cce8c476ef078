"""Compares the C++ runner's output with onnxruntime's: python3 compare.py GOT.npy WANT.npy."""

import sys

import numpy as np

got, want = np.load(sys.argv[1]), np.load(sys.argv[2])
err = float(np.abs(got - want).max())
print("compare: output %s, max abs difference vs onnxruntime %.2e" % (got.shape, err))
sys.exit(0 if got.shape == want.shape and err < 1e-4 else 1)
