"""The build pipeline for CPU targets ("llvm")."""

from .pipeline import (dataflow_lower_passes, finalize_passes, get_default_pipeline,  # noqa: F401
                       legalize_passes, library_dispatch_passes)
