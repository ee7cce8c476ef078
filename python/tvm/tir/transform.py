"""tvm.tir.transform: the TIR passes (native, in libtvm_compiler) as tvm.transform passes.

    mod = tvm.tir.transform.LowerInitBlock()(mod)
    seq = tvm.transform.Sequential([tvm.tir.transform.Simplify(),
                                    tvm.tir.transform.FlattenBuffer()])

`prim_func_pass` makes a pass from a Python function over PrimFuncs.
"""

from ..ir import _api
from .expr import PrimFunc
from ..ir.transform import FunctionPass, PassInfo, function_pass


def prim_func_pass(pass_func=None, opt_level=None, name=None, required=None, traceable=False):
    """Decorates `fn(func, mod, ctx) -> func` (or a class with transform_function)."""
    return function_pass(pass_func, opt_level, name, required, traceable)


def _native(name, opt_level=0, skip_config=None):
    def make():
        fn = _api("tir.transform." + name)

        def run(func, mod, ctx):
            if skip_config and ctx.config.get(skip_config, False):
                return func
            if not isinstance(func, PrimFunc):
                return func  # relax functions pass through TIR passes
            return fn(func)
        return FunctionPass(run, PassInfo(opt_level, "tir." + name))
    make.__name__ = name
    make.__doc__ = "The tir.transform.%s pass (docs/compiler.md, Lowering)." % name
    return make


LowerInitBlock = _native("LowerInitBlock")
ConvertBlocksToOpaque = _native("ConvertBlocksToOpaque")
CompactBufferAllocation = _native("CompactBufferAllocation")
LowerOpaqueBlock = _native("LowerOpaqueBlock")
Simplify = _native("Simplify")
FlattenBuffer = _native("FlattenBuffer")
# With PassContext(config={"tir.disable_vectorize": True}) vectorized loops stay loops.
VectorizeLoop = _native("VectorizeLoop", skip_config="tir.disable_vectorize")
LowerTVMBuiltin = _native("LowerTVMBuiltin")
HoistIfThenElse = _native("HoistIfThenElse")
UnrollLoop = _native("UnrollLoop")

def MakePackedAPI():  # noqa: N802 (TVM's name)
    """Each PrimFunc (not the device kernels) gets the tvm-ffi packed calling convention; its
    parameters become argument checks (AssertStmt) and bindings in TIR (docs/compiler.md,
    Lowering)."""
    from ..ir import IRModule
    from ..ir.transform import ModulePass

    fn = _api("tir.transform.MakePackedAPI")

    def run(mod, ctx):
        out = {}
        for name, func in mod.functions.items():
            attrs = func.attrs if isinstance(func, PrimFunc) else {}
            if not isinstance(func, PrimFunc) or (
                    "calling_conv" in attrs and str(attrs["calling_conv"]) == "device_kernel"):
                out[str(name)] = func  # relax functions and device kernels keep theirs
                continue
            symbol = str(attrs["global_symbol"]) if "global_symbol" in attrs else str(name)
            out[str(name)] = fn(func, symbol)
        return IRModule(out)
    return ModulePass(run, PassInfo(0, "tir.MakePackedAPI"))


def SplitHostDevice():  # noqa: N802 (TVM's name)
    """Functions compiled for a GPU target (attr "target") become host code that launches
    kernels: each outermost loop nest bound to blockIdx/threadIdx becomes a PrimFunc with
    calling_conv "device_kernel" (docs/compiler.md, GPU)."""
    from ..ir.transform import ModulePass

    fn = _api("tir.transform.SplitHostDevice")
    return ModulePass(lambda mod, ctx: fn(mod), PassInfo(0, "tir.SplitHostDevice"))


def ThreadSync(storage_scope="shared"):  # noqa: N802 (TVM's name)
    """Barriers between writes and reads of `storage_scope` memory by the threads of a GPU
    block, in the device kernels of the module (other functions are left alone)."""
    if storage_scope not in ("shared", "shared.dyn"):
        raise ValueError("ThreadSync: storage scope %r is not supported (shared)" % storage_scope)
    fn = _api("tir.transform.ThreadSync")

    def run(func, mod, ctx):
        cc = func.attrs["calling_conv"] if "calling_conv" in func.attrs else ""
        return fn(func) if str(cc) == "device_kernel" else func
    return FunctionPass(run, PassInfo(0, "tir.ThreadSync"))


__all__ = ["SplitHostDevice", "ThreadSync", "HoistIfThenElse", "UnrollLoop", "LowerTVMBuiltin", "MakePackedAPI", "CompactBufferAllocation", "ConvertBlocksToOpaque", "FlattenBuffer", "LowerInitBlock",
           "LowerOpaqueBlock", "Simplify", "VectorizeLoop", "prim_func_pass"]
