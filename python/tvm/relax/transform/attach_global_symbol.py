"""AttachGlobalSymbol (TVM's pass): every function of the module without a `global_symbol`
gets its name in the module as its symbol, which is what the VM and the kernel library expose
(VMCodeGen calls kernels and functions by it)."""

from .. import expr as _expr


def AttachGlobalSymbol():  # noqa: N802 - TVM's pass name
    from ...ir.transform import ModulePass, PassInfo

    def run(mod, ctx):
        funcs = {}
        for name, f in mod.functions.items():
            if "global_symbol" not in f.attrs:
                f = f.with_attr("global_symbol", str(name))
            funcs[str(name)] = f
        return type(mod)(funcs)
    return ModulePass(run, PassInfo(0, "relax.AttachGlobalSymbol"))
