"""Moved to tvm.contrib.cross; this name is the same module (kept for existing callers)."""

import sys

from ..contrib import cross as _moved

sys.modules[__name__] = _moved
