"""tvm.relax.transform: Relax passes (tvm.transform passes over IRModules)."""

from .annotate_op_pattern import AnnotateTIROpPattern
from .attach_global_symbol import AttachGlobalSymbol
from .call_tir_rewrite import CallTIRRewrite
from .kill_after_last_use import KillAfterLastUse
from .lower_alloc_tensor import LowerAllocTensor
from .lower_runtime_builtin import LowerRuntimeBuiltin, VMBuiltinLower
from .static_plan_block_memory import StaticPlanBlockMemory
from .to_non_dataflow import RemovePurityChecking, ToNonDataflow
from .vm_shape_lower import VMShapeLower
from .canonicalize_bindings import CanonicalizeBindings
from .dead_code_elimination import DeadCodeElimination
from .default_schedule import DefaultSchedule
from .eliminate_common_subexpr import EliminateCommonSubexpr
from .fold_batchnorm_to_conv2d import FoldBatchnormToConv2D
from .convert_layout import ConvertLayout
from .fold_constant import FoldConstant
from .fuse_ops import FuseOps
from .fuse_tir import FuseTIR
from .run_codegen import RunCodegen
from .legalize_ops import LEGALIZE, LegalizeOps, register_legalize
from . import legalize_nn  # noqa: F401 (registers the nn/indexing/creation legalizations)
from . import legalize_ccl  # noqa: F401 (relax.ccl.* -> runtime.disco.* calls)

__all__ = ["AnnotateTIROpPattern", "AttachGlobalSymbol", "CallTIRRewrite", "KillAfterLastUse",
           "LowerAllocTensor", "LowerRuntimeBuiltin", "RemovePurityChecking", "StaticPlanBlockMemory",
           "ToNonDataflow", "VMBuiltinLower", "VMShapeLower", "CanonicalizeBindings", "DeadCodeElimination", "DefaultSchedule",
           "ConvertLayout", "EliminateCommonSubexpr", "FoldBatchnormToConv2D", "FoldConstant", "FuseOps", "FuseTIR",
           "LEGALIZE", "LegalizeOps", "RunCodegen", "register_legalize"]
