"""relax.build: a Relax IRModule -> a VM executable plus the compiled kernels.

    ex = relax.build(mod, target="llvm")            # or tvm.compile(mod, target)
    vm = relax.VirtualMachine(ex, tvm.cpu())
    out = vm["main"](x)
    ex.export_library("model.so")                   # bytecode + constants + kernels, one file

The path, pass by pass (docs/compiler.md draws it with each pass's file):
  1. relax_pipeline ("default": relax.get_default_pipeline(target), relax/pipeline.py and
     relax/backend/): graph passes, LegalizeOps, fusion, schedules, then the lowering
     (dataflow_lower_passes + finalize_passes, relax/backend/lowering.py);
  2. the lowering, where the pipeline stopped before it ("zero", a user's list, None): each of
     its passes leaves what is already lowered as it is;
  3. VMCodeGen (relax/backend/vm_codegen.py): one instruction per binding;
  4. the PrimFuncs (kernels and VMShapeLower's shape functions) compiled in one library by the
     TIR build with tir_pipeline. On a CPU with a second core, the kernels' LLVM work starts
     inside step 1, once DefaultSchedule has run (relax/backend/early_kernels.py).
"""

from ..ir import IRModule
from ..ir.instrument import timed_phase
from ..tir.build import build as _tir_build
from ..runtime import vm as _rvm
from ..runtime.vm import VMExecutable
from . import expr as _expr
from .backend.early_kernels import EarlyKernels
from .backend.early_kernels import active as early_kernels_active
from .backend.lowering import vm_lowering
from .backend.vm_codegen import vm_codegen
from .transform.static_plan_block_memory import ATTR as _PLAN_ATTR
from .transform.vm_shape_lower import LOWERED_ATTR as _LOWERED_ATTR


class VirtualMachine(_rvm.VirtualMachine):
    """relax.VirtualMachine(ex, device): ex is relax.build's result or a loaded module."""


def _memory_stats(mod):
    out = {}
    for name, f in mod.functions.items():
        if isinstance(f, _expr.Function) and _PLAN_ATTR in f.attrs:
            out[str(name)] = {str(k): int(v) for k, v in f.attrs[_PLAN_ATTR].items()}
    return out


# A graph of this many bindings or more starts its kernels' LLVM work early (EarlyKernels):
# smaller graphs have too little of it to win back a second module and the link joining them.
_EARLY_MIN_BINDINGS = 8


def _bindings(mod):
    return sum(len(block.bindings) for f in mod.functions.values() if isinstance(f, _expr.Function)
               and isinstance(f.body, _expr.SeqExpr) for block in f.body.blocks)


def build(mod, target=None, params=None, relax_pipeline="default", tir_pipeline="default",
          exec_mode="bytecode", *, system_lib=None):
    """Compiles a Relax IRModule (TVM's relax.build): `relax_pipeline` ("default":
    relax.get_default_pipeline(target), which schedules kernels for the target's kind; another
    name: relax.get_pipeline(name); a pass; or None) under `target`, the VM lowering where the
    pipeline left any of it undone, VMCodeGen, then the kernels with the TIR build
    (`tir_pipeline`). For a GPU target ("cuda -arch=sm_80") the kernels are in a CUDA module
    imported by the host library and the VM runs on tvm.cuda(). Returns a VMExecutable.

    params (TVM binds them into the executable's constants for external libraries) and
    exec_mode="compiled" (the VM program as TIR) are not supported: a ValueError says so."""
    from ..target import Target
    from .pipeline import get_default_pipeline, get_pipeline

    if not isinstance(mod, IRModule):
        raise TypeError("relax.build expects an IRModule, got %r" % type(mod).__name__)
    if params:
        raise ValueError("relax.build: params= is not supported (bind weights as relax.const "
                         "or pass them as function arguments)")
    if exec_mode != "bytecode":
        raise ValueError("relax.build: exec_mode=%r is not supported (only \"bytecode\")" % (exec_mode,))
    if system_lib:
        raise ValueError("relax.build: system_lib=True is not supported (export a shared library)")
    target = Target(target) if target is not None else (Target.current() or Target("llvm"))
    n_bindings = _bindings(mod)
    if str(target.kind) == "llvm" or target.host is not None:
        from ..target import llvm_backend

        llvm_backend.preload()  # llvmlite loads while the passes below run
    if isinstance(relax_pipeline, str):
        relax_pipeline = get_default_pipeline(target) if relax_pipeline == "default" \
            else get_pipeline(relax_pipeline)
    # The kernels' LLVM work starts when the pipeline has scheduled them (its
    # StartKernelBuild pass) and runs beside the passes after it (backend/early_kernels.py).
    early = EarlyKernels.for_build(target, tir_pipeline, n_bindings, _EARLY_MIN_BINDINGS)
    with target, early_kernels_active(early):  # passes that size things by the target read it
        if relax_pipeline is not None:
            mod = relax_pipeline(mod)
        if any(_LOWERED_ATTR not in f.attrs for f in mod.functions.values()
               if isinstance(f, _expr.Function)):
            mod = vm_lowering()(mod)
    with timed_phase("relax.VMCodeGen"):
        bytecode = vm_codegen(mod)
    prims = {str(k): f for k, f in mod.functions.items() if not isinstance(f, _expr.Function)}
    with timed_phase("tir.build"):
        kernels = early.finish(prims) if early is not None and prims else None
        if kernels is None and prims:
            kernels = _tir_build(IRModule(prims), target, pipeline=tir_pipeline)
    return VMExecutable(bytecode.mod, kernels, _memory_stats(mod))
