"""tvm.relax.backend: what turns a graph into something a machine runs. Per target kind, the
build pipeline's four stages (TVM's layout: `cpu_generic`, `cuda`, each with
library_dispatch_passes, legalize_passes, dataflow_lower_passes, finalize_passes and
get_default_pipeline), and VMCodeGen (vm_codegen.py), which writes the bytecode of a
function the finalize passes lowered."""

from . import cpu_generic, cuda  # noqa: F401
from .vm_codegen import vm_codegen  # noqa: F401
