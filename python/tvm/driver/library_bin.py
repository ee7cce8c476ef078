"""Moved to tvm.runtime.library_bin; this name is the same module (kept for existing callers)."""

import sys

from ..runtime import library_bin as _moved

sys.modules[__name__] = _moved
