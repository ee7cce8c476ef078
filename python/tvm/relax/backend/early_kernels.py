"""The kernels' LLVM work started as soon as their schedules are final, so it runs beside the
Relax passes that follow (the dataflow lowering, memory planning, VMShapeLower, VMCodeGen:
0.1-0.2 s of Python on a BERT-class encoder), not after them.

    early = EarlyKernels.for_build(target, tir_pipeline, n_bindings)   # relax.build
    with active(early):
        mod = relax_pipeline(mod)        # its StartKernelBuild pass calls early.start(mod)
    exe = early.finish(prims)            # an Executable, or None: build the kernels as usual

StartKernelBuild sits in the CPU pipeline right after DefaultSchedule. start() lowers the
kernels with the TIR pipeline (here, at once) and hands their LLVM IR to
llvm_backend.EarlyHostBuild (a thread per part). finish() takes the early
objects only when every kernel it compiled reaches the end of the pipeline unchanged (the
same body, parameters and attributes but the global symbol AttachGlobalSymbol adds); the
functions it lacks (VMShapeLower's shape functions) are compiled then and linked in. Anything
else (a kernel rewritten later, a device kernel, an error) discards the early work and the
kernels are built as before, so the result is the same executable either way.
"""

import os
import threading
from contextlib import contextmanager

from ...ir import IRModule
from ...ir.transform import ModulePass, PassInfo
from .. import expr as _expr

_STATE = threading.local()


@contextmanager
def active(early):
    """StartKernelBuild passes run inside it start `early` (None: they do nothing)."""
    saved = getattr(_STATE, "early", None)
    _STATE.early = early
    try:
        yield early
    finally:
        _STATE.early = saved


def StartKernelBuild():  # noqa: N802 - a pass, named like one
    """Starts the LLVM build of the module's PrimFuncs when relax.build asked for it (see the
    module's doc); the module is returned as it is."""

    def run(mod, ctx):  # noqa: ARG001
        early = getattr(_STATE, "early", None)
        if early is not None:
            early.start(mod)
        return mod

    return ModulePass(run, PassInfo(0, "relax.StartKernelBuild"))


def _prim_funcs(mod):
    return {str(k): f for k, f in mod.functions.items() if not isinstance(f, _expr.Function)}


def _unchanged(early_f, final_f, name):
    """Whether `final_f` is `early_f` but for the global symbol AttachGlobalSymbol adds."""
    if final_f.same_as(early_f):
        return True
    if not final_f.body.same_as(early_f.body) or len(final_f.params) != len(early_f.params):
        return False
    if not all(a.same_as(b) for a, b in zip(final_f.params, early_f.params)):
        return False
    a, b = dict(early_f.attrs), dict(final_f.attrs)
    for attrs in (a, b):
        if str(attrs.get("global_symbol", name)) == name:
            attrs.pop("global_symbol", None)
    if set(a) != set(b):
        return False
    return all(a[k] is b[k] or (hasattr(a[k], "same_as") and a[k].same_as(b[k])) or a[k] == b[k] for k in a)


class EarlyKernels:
    """One relax.build's early kernel build (see the module's doc)."""

    def __init__(self, target, tir_pipeline):
        self.target = target
        self.tir_pipeline = tir_pipeline
        self.funcs = None   # name -> PrimFunc as StartKernelBuild saw it
        self.build = None   # the llvm_backend.EarlyHostBuild under way

    @classmethod
    def for_build(cls, target, tir_pipeline, n_bindings, min_bindings):
        """An EarlyKernels for a CPU build of the host that has a second core for it, else None
        (TVM_LLVM_PARALLEL=0 turns it off with the parallel LLVM parts)."""
        from ...target import llvm_backend

        if str(target.kind) != "llvm" or target.is_device or n_bindings < min_bindings:
            return None
        if llvm_backend._cores() < 2 or os.environ.get("TVM_LLVM_PARALLEL") == "0":
            return None
        # no -mtriple is the host: asking LLVM would wait for llvm_backend.preload's thread
        if target.mtriple and not llvm_backend.same_cpu(target.mtriple):
            return None
        return cls(target, tir_pipeline)

    def start(self, mod):
        if self.funcs is not None:
            return  # a pipeline running the pass twice: the first time counts
        funcs = _prim_funcs(mod)
        self.funcs = funcs
        if not funcs:
            return
        from ...target import llvm_backend
        from ...tir.build import lower
        from ..transform import AttachGlobalSymbol

        try:
            host_mod, device_mods = lower(AttachGlobalSymbol()(IRModule(funcs)), self.target, self.tir_pipeline)
            if device_mods:
                return
            self.build = llvm_backend.EarlyHostBuild(host_mod, self.target)
        except Exception:  # noqa: BLE001 - the usual build (after the pipeline) reports it
            self.build = None

    def finish(self, final_funcs):
        """The kernels' Executable with the early objects, or None when they do not apply."""
        from ...runtime.executable import Executable
        from ...target import llvm_backend
        from ...tir.build import lower

        if self.build is None:
            return None
        build, self.build = self.build, None
        same = all(name in final_funcs and _unchanged(f, final_funcs[name], name) for name, f in self.funcs.items())
        if not same:
            try:
                build.finish()  # the parts' threads end; their work is dropped
            except Exception:  # noqa: BLE001
                pass
            return None
        rest = {name: f for name, f in final_funcs.items() if name not in self.funcs}
        rest_mod = None
        if rest:
            rest_mod, device_mods = lower(IRModule(rest), self.target, self.tir_pipeline)
            if device_mods:
                build.finish()
                return None
        host = llvm_backend.build_after_early(build, rest_mod, self.target)
        exe = Executable(host.module)
        exe.host_build = host
        exe.device_builds = []
        return exe
