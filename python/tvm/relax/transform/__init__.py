"""tvm.relax.transform: Relax passes (tvm.transform passes over IRModules)."""

from .default_schedule import DefaultSchedule
from .legalize_ops import LEGALIZE, LegalizeOps, register_legalize

__all__ = ["DefaultSchedule", "LEGALIZE", "LegalizeOps", "register_legalize"]
