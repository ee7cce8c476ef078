"""Code generators by target kind (`target.build.<kind>`, TVM's registry names).

A backend registers a builder with `register_build(kind)`: fn(mod, target) -> an artifact
with `.module` (the runtime Module: kind "llvm" for CPUs, "cuda" for NVIDIA kernels) and
whatever the backend keeps of the build (LLVM IR, object, PTX...). The builder is also the
global function `target.build.<kind>` (returning the module), so C++ and other languages reach
it by name. `build(mod, target)` runs the builder of the target's kind.

    llvm_backend.py   llvmlite: CPU object code, and the NVPTX emission cuda_backend uses
    cuda_backend.py   kernels -> PTX (llvm) or cubin (nvrtc/nvcc) -> a "cuda" module
"""

import tvm_ffi

_BUILDERS = {}


class Artifact:
    """What a builder found only by its global name returns: the module alone."""

    def __init__(self, module):
        self.module = module


def register_build(*kinds):
    """Decorator: fn(mod, target) -> artifact becomes the builder of `kinds`."""
    def register(fn):
        for kind in kinds:
            _BUILDERS[kind] = fn

            def by_name(mod, target, _fn=fn):
                from . import Target
                return _fn(mod, Target(str(target))).module
            tvm_ffi.register_global_func("target.build." + kind, by_name, override=True)
        return fn
    return register


def build(mod, target):
    """The artifact of compiling the lowered IRModule `mod` for `target` (a Target). The
    backends register when imported (tvm.tir.build imports llvm_backend and cuda_backend)."""
    kind = target.kind_name
    fn = _BUILDERS.get(kind)
    if fn is not None:
        return fn(mod, target)
    by_name = tvm_ffi.get_global_func("target.build." + kind, allow_missing=True)
    if by_name is None:
        raise ValueError("target.build.%s is not enabled (no code generator for target kind "
                         "%r)" % (kind, kind))
    return Artifact(by_name(mod, target))
