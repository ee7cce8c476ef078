"""tvm.relax.transform: Relax passes (tvm.transform passes over IRModules)."""

from .annotate_op_pattern import AnnotateTIROpPattern
from .default_schedule import DefaultSchedule
from .fuse_ops import FuseOps
from .fuse_tir import FuseTIR
from .legalize_ops import LEGALIZE, LegalizeOps, register_legalize
from . import legalize_nn  # noqa: F401 (registers the nn/indexing/creation legalizations)

__all__ = ["AnnotateTIROpPattern", "DefaultSchedule", "FuseOps", "FuseTIR", "LEGALIZE", "LegalizeOps",
           "register_legalize"]
