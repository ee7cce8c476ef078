"""tvm.tir.build (TVM's tvm.tirx.build): a PrimFunc or IRModule -> a tvm.runtime.Executable.

    exe = tvm.tir.build(prim_func, target="llvm")
    exe = tvm.tir.build(mod, target="cuda -arch=sm_80")   # host code + an imported "cuda" module

Steps (as TVM's): bind the target to the functions without one (the target's host: its
`host`, else the target itself for a CPU, else "llvm"); run the pipeline ("default": see
tvm.tir.pipeline; or a name, or a Pass); split the functions into the host module and one
module per device target (device kernels: calling_conv "device_kernel"); finalize both;
build each with `target.build.<kind>` (tvm.target.codegen: llvm_backend, cuda_backend); import
every device module into the host module. Also the global functions "tir.build" and
"tirx.build".
"""

import tvm_ffi

from ..ir import IRModule
from ..ir.instrument import timed_phase
from ..ir.transform import Pass, module_pass
from ..target import Target
from . import pipeline as _pipeline
from .expr import PrimFunc


def as_module(func_or_mod):
    """An IRModule of a PrimFunc (named by its global_symbol, else "main") or an IRModule."""
    if isinstance(func_or_mod, IRModule):
        return func_or_mod
    if isinstance(func_or_mod, PrimFunc):
        attrs = func_or_mod.attrs
        if "global_symbol" in attrs:
            name = str(attrs["global_symbol"])
        else:
            name = "main"
            func_or_mod = func_or_mod.with_attr("global_symbol", name)
        return IRModule({name: func_or_mod})
    if isinstance(func_or_mod, dict):
        return IRModule(func_or_mod)
    raise TypeError("tvm.tir.build expects a PrimFunc or an IRModule, got %r"
                    % type(func_or_mod).__name__)


def BindTarget(target):  # noqa: N802 (TVM's name)
    """Sets attr "target" on every PrimFunc that has none."""
    @module_pass(opt_level=0, name="tir.BindTarget")
    def bind_target(mod, ctx):
        return IRModule({str(k): (f if not isinstance(f, PrimFunc) or "target" in f.attrs
                                  else f.with_attr("target", target))
                         for k, f in mod.functions.items()})
    return bind_target


def split_host_device_mods(mod):
    """(host IRModule, {target string: device IRModule}): device kernels (calling_conv
    "device_kernel") grouped by their target, every other function on the host."""
    host, devices, targets = {}, {}, {}
    for name, func in mod.functions.items():
        attrs = func.attrs
        cc = str(attrs["calling_conv"]) if "calling_conv" in attrs else ""
        if cc == "device_kernel":
            target = attrs["target"] if "target" in attrs else None
            key = str(target) if target is not None else ""
            targets[key] = target
            devices.setdefault(key, {})[str(name)] = func
        else:
            host[str(name)] = func
    return IRModule(host), {k: (targets[k], IRModule(v)) for k, v in devices.items()}


def _host_of(target):
    if target.host is not None and str(target.host):
        return Target(str(target.host))
    if not target.is_device:
        return target
    return Target("llvm")


def _pipeline_pass(pipeline, target):
    if pipeline is None:
        return _pipeline.get_default_tir_pipeline(target)
    if isinstance(pipeline, str):
        return _pipeline.get_tir_pipeline(pipeline)
    if isinstance(pipeline, Pass) or callable(pipeline):
        return pipeline
    raise TypeError("tvm.tir.build: pipeline must be a name, a Pass or None, got %r"
                    % type(pipeline).__name__)


def lower(mod, target, pipeline="default"):
    """(host IRModule after the host finalize passes, {target string: (target, device
    IRModule)}): the TIR `pipeline` run on `mod` under `target`, split as build compiles it."""
    if target.is_device:
        mod = BindTarget(target)(mod)
    with target:
        mod = _pipeline_pass(pipeline, target)(mod)
    host_mod, device_mods = split_host_device_mods(mod)
    return _pipeline.finalize_host_passes()(host_mod), device_mods


def build(mod, target=None, pipeline="default", *, jit=False):
    """Compiles `mod` (PrimFunc or IRModule) for `target` (default: Target.current(), else
    "llvm") with the TIR `pipeline`; returns a tvm.runtime.Executable.

    jit=True (an extension of this stack, CPU targets only): the host code is JIT-compiled in
    this process by llvmlite's MCJIT instead of linked into a temporary library."""
    from .._compiler_guard import check_compiler
    from ..runtime.executable import Executable
    from ..target import codegen, cuda_backend, llvm_backend  # noqa: F401 (they register)

    check_compiler("tvm.tir.build")
    mod = as_module(mod)
    target = Target(target) if target is not None else (Target.current() or Target("llvm"))
    if jit and target.is_device:
        raise ValueError("tvm.compile: jit=True is for CPU targets; %s kernels are launched from "
                         "a loaded library (leave jit off)" % target.kind_name)
    host_target = _host_of(target)
    host_mod, device_mods = lower(mod, target, pipeline)
    device_builds = []
    for dev_target, dev_mod in device_mods.values():
        dev_mod = _pipeline.finalize_device_passes()(dev_mod)
        dev_target = dev_target if isinstance(dev_target, Target) else target
        device_builds.append(codegen.build(dev_mod, dev_target))
    with timed_phase("codegen.build"):
        if jit:
            host = llvm_backend.build(host_mod, host_target, load=False)
        else:
            host = codegen.build(host_mod, host_target)
    for dev in device_builds:  # the host/device link: device modules are imports
        if hasattr(host, "import_module"):
            host.import_module(dev.module)  # also into the loaded library
        else:
            host.module.import_module(dev.module)
    exe = Executable(host.module)
    exe.host_build = host
    exe.device_builds = device_builds
    if jit:
        exe._functions = llvm_backend.mcjit_functions(host)
    return exe


tvm_ffi.register_global_func("tir.build", lambda mod, target=None: build(mod, target).mod,
                             override=True)
tvm_ffi.register_global_func("tirx.build", lambda mod, target=None: build(mod, target).mod,
                             override=True)
