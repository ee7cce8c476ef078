"""Moved to tvm.target.cuda_backend; this name is the same module (kept for existing callers)."""

import sys

from ..target import cuda_backend as _moved

sys.modules[__name__] = _moved
