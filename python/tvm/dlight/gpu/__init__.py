"""GPU schedule rules (dlight.gpu), tried in this order by relax's GPU pipeline:
Matmul (shared-memory tiling of a matmul nest and its epilogue), then Fallback (every
block's outer spatial loops bound to blockIdx.x/threadIdx.x; reductions serial per output)."""

from .fallback import Fallback
from .matmul import Matmul

__all__ = ["Fallback", "Matmul"]
