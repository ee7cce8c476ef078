"""GPU schedule rules (dlight.gpu): Fallback binds every block's outer spatial loops to
blockIdx.x/threadIdx.x; reductions run serially in one thread per output element."""

from .fallback import Fallback

__all__ = ["Fallback"]
