"""tvm.tirx: TVM 0.27's name for the tensor-level IR; here the same package as tvm.tir (the
same module objects: tvm.tirx is tvm.tir, tvm.tirx.transform is tvm.tir.transform,
tvm.tirx.build is tvm.tir.build, tvm.tirx.pipeline is tvm.tir.pipeline)."""

import sys

from .. import tir as _tir
from ..tir import build as _build, expr, op, pipeline, schedule, transform  # noqa: F401

for _name in ("expr", "op", "pipeline", "schedule", "transform"):
    sys.modules[__name__ + "." + _name] = sys.modules[_tir.__name__ + "." + _name]
sys.modules[__name__ + ".build_module"] = sys.modules[_tir.__name__ + ".build"]
sys.modules[__name__] = _tir
