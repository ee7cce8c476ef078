"""The build pipeline for CUDA targets ("cuda -arch=sm_XX", "nvptx")."""

from .pipeline import (dataflow_lower_passes, finalize_passes, get_default_pipeline,  # noqa: F401
                       legalize_passes, library_dispatch_passes)
