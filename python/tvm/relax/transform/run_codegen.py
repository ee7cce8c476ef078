"""RunCodegen (TVM's name): hands each function that a partition pass marked with attr
"Codegen": "<name>" to the external code generator registered as the global
`relax.ext.<name>`, and puts what it returns in its place.

In TVM the generator returns runtime modules (cuBLAS: a JSON graph run by cuBLASLt). Here a
generator returns a Relax function computing the same thing through registered packed
functions (`call_dps_packed("tvm.contrib.cublas.matmul", ...)`), so the offloaded calls are
compiled into the VM bytecode of the one exported library like any other call, and find
their implementation in the registry at run time (libtvm_runtime_extra for cuBLAS).
"""

import tvm_ffi

from ...ir import IRModule
from .. import expr as _expr


def _codegen_name(func):
    attrs = func.attrs
    if attrs is None or "Codegen" not in attrs:
        return None
    return str(attrs["Codegen"])


def RunCodegen(target_options=None, entry_functions=None):  # noqa: N802 (TVM's name)
    """The pass. `target_options` ({codegen name: options dict}) is passed to each generator;
    `entry_functions` is accepted for TVM's signature (every function is kept here)."""
    from ...ir.transform import ModulePass, PassInfo

    del entry_functions  # nothing is removed: functions without users are harmless
    options = dict(target_options or {})

    def run(mod, ctx):  # noqa: ARG001
        out = {}
        for gvar, func in mod.functions.items():
            out[str(gvar)] = func
            name = _codegen_name(func) if isinstance(func, _expr.Function) else None
            if name is None:
                continue
            gen = tvm_ffi.get_global_func("relax.ext." + name, allow_missing=True)
            if gen is None:
                raise ValueError(
                    "RunCodegen: function %s is marked for codegen %r, but relax.ext.%s is not "
                    "registered (import its backend, e.g. tvm.relax.backend.cuda.cublas)"
                    % (gvar, name, name))
            out[str(gvar)] = gen(func, options.get(name, {}))
        return IRModule(out)

    return ModulePass(run, PassInfo(0, "relax.RunCodegen"))
