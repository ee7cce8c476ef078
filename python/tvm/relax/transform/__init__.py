"""tvm.relax.transform: Relax passes (tvm.transform passes over IRModules)."""

from .default_schedule import DefaultSchedule
from .fuse_ops import FuseAndLegalizeOps
from .legalize_ops import LEGALIZE, LegalizeOps, register_legalize
from . import legalize_nn  # noqa: F401 (registers the nn/indexing/creation legalizations)

__all__ = ["DefaultSchedule", "FuseAndLegalizeOps", "LEGALIZE", "LegalizeOps", "register_legalize"]
