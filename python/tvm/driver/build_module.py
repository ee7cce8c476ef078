"""The entry points `tvm.compile` and `tvm.build` (TVM's tvm/driver/build_module.py).

    exe = tvm.compile(prim_func, target="llvm")                 # -> tvm.tir.build
    exe = tvm.compile(relax_mod, target, relax_pipeline="default", tir_pipeline="default")
                                                                # -> tvm.relax.build
    exe["main"](a, b, c)
    exe.export_library("k.so")

The driver sits above tvm.relax and tvm.tir and nothing below imports it. The compile path:
relax.build / tir.build (tvm/tir/build.py, pipelines in tvm/tir/pipeline.py) -> code generators
by target kind (tvm/target/codegen.py: llvm_backend.py, cuda_backend.py) ->
tvm.runtime.Executable (tvm/runtime/executable.py: run, export_library).

The other names here (Executable, lower, lower_to_llvm_ir, default_pipeline, host_pipeline,
device_pipeline) are re-exports and shims kept for existing callers.
"""

import warnings

from ..ir import IRModule


def _has_relax(mod):
    return any(type(f).__name__ == "Function" and type(f).__module__.startswith("tvm.relax")
               for f in mod.functions.values())


def compile(mod, target=None, *, relax_pipeline="default", tir_pipeline="default",  # noqa: A001
            jit=False):
    """Compiles `mod` for `target` and returns an Executable.

    An IRModule with a Relax function goes to tvm.relax.build(mod, target,
    relax_pipeline=..., tir_pipeline=...); a PrimFunc or an IRModule of PrimFuncs to
    tvm.tir.build(mod, target, pipeline=tir_pipeline). For a GPU target ("cuda -arch=sm_90")
    the kernels become a "cuda" module imported by the host code (compiled for the target's
    host, "llvm" by default).

    jit=True (an extension of this stack, TIR on CPU targets): the host code is JIT-compiled
    in process by llvmlite's MCJIT instead of linked into a temporary library."""
    from .._compiler_guard import check_compiler

    check_compiler("tvm.compile")
    if isinstance(mod, IRModule) and _has_relax(mod):
        if jit:
            raise TypeError("tvm.compile: jit=True is for TIR modules, not Relax ones")
        from .. import relax

        return relax.build(mod, target, relax_pipeline=relax_pipeline, tir_pipeline=tir_pipeline)
    from .. import tir

    return tir.build(mod, target, pipeline=tir_pipeline, jit=jit)


def build(mod, target=None, pipeline="default", **kwargs):
    """Deprecated (as in TVM): use tvm.compile (or tvm.tir.build). Forwards to tvm.tir.build
    (a Relax module to tvm.compile)."""
    warnings.warn("tvm.build is deprecated: use tvm.compile", DeprecationWarning, stacklevel=2)
    if "name" in kwargs:  # TVM's old `name=` argument: the functions keep their own names
        kwargs.pop("name")
    if isinstance(mod, IRModule) and _has_relax(mod):
        return compile(mod, target, **kwargs)
    from .. import tir

    return tir.build(mod, target, pipeline=pipeline, **kwargs)


# ---- shims for existing callers (tests, examples); new code uses tvm.tir / tvm.runtime ----

def lower(func_or_mod):
    """The module after the TIR lowering passes (tvm.tir.pipeline.lowering_passes), under the
    current tvm.transform.PassContext."""
    from ..tir.build import as_module

    return default_pipeline()(as_module(func_or_mod))


def default_pipeline():
    from ..ir.transform import Sequential
    from ..tir.pipeline import lowering_passes

    return Sequential(lowering_passes(), name="tir.lower")


def host_pipeline():
    """MakePackedAPI then the host finalization (LowerTVMBuiltin)."""
    from ..ir.transform import Sequential
    from ..tir import transform as T

    return Sequential([T.MakePackedAPI(), T.LowerTVMBuiltin()], name="tir.host")


def device_pipeline(target):
    """BindTarget, SplitHostDevice, ThreadSync("shared")."""
    from ..ir.transform import Sequential
    from ..tir import transform as T
    from ..tir.build import BindTarget

    return Sequential([BindTarget(target), T.SplitHostDevice(), T.ThreadSync("shared")],
                      name="tir.device")


def _split_kernels(mod):
    from ..tir.build import split_host_device_mods

    host, devices = split_host_device_mods(mod)
    kernels = {}
    for _, dev in devices.values():
        kernels.update({str(k): f for k, f in dev.functions.items()})
    return host, IRModule(kernels)


def lower_to_llvm_ir(func_or_mod, target=None):
    """LLVM IR text (lowered, before LLVM's optimisation) of `func_or_mod`."""
    from ..target import llvm_backend

    return llvm_backend.lower_to_llvm_ir(host_pipeline()(lower(func_or_mod)), target)


def __getattr__(name):
    if name == "Executable":
        from ..runtime.executable import Executable

        return Executable
    raise AttributeError("module %r has no attribute %r" % (__name__, name))
