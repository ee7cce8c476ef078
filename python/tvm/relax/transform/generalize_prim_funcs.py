"""Scheduled PrimFuncs that differ only in one dimension kept once, generic in it: an MLP's
784- and 512-input layers (the same schedule but for K), DenseNet's 1x1 convolutions over
64 + 32k input channels. LLVM's work per kernel is most of a small model's build; one
kernel with a shape variable bound from its arguments at run time (as a symbolic batch is)
costs it once.

Candidates share a structural hash that leaves integer constants out; each pair is then
anti-unified by tir.GeneralizeDim (compiler/src/tir/transforms/generalize_dim.cc), which
checks that the generic function is both of them at their values and refuses loops that need
a constant extent and dimensions under MIN_DIM. The first of a group is replaced by the
generic function under its own name and the calls of the others are redirected to it.
"""

from ...ir import IRModule, structural_equal
from ...ir import _api
from .. import expr as _expr
from .dedup_prim_funcs import _Redirect

# Dimensions below this stay constants: loops that short gain from constant trip counts
# (full unrolling, exact tails), and their kernels are cheap to compile.
MIN_DIM = 64


def generalize_prim_funcs(mod, min_dim=MIN_DIM):
    """`mod` with each group of PrimFuncs that differ in one dimension's value only reduced to
    one generic PrimFunc; `mod` itself when there are none."""
    hash_ints_out = _api("ir.StructuralHashModuloInts")
    generalize = _api("tir.GeneralizeDim")
    funcs = {str(gv): f for gv, f in mod.functions.items()}
    # Compared without their names: each carries its own global_symbol.
    anonymous = {n: f.with_attr("global_symbol", "_") for n, f in funcs.items()
                 if not isinstance(f, _expr.Function) and "global_symbol" in f.attrs}
    buckets = {}
    for name, func in funcs.items():
        if not isinstance(func, _expr.Function):
            buckets.setdefault(int(hash_ints_out(anonymous.get(name, func))), []).append(name)
    target_of, generic_of = {}, {}
    for names in buckets.values():
        while len(names) > 1:
            first, rest = names[0], []
            generic = None
            for other in names[1:]:
                g = generalize(anonymous.get(first, funcs[first]), anonymous.get(other, funcs[other]),
                               min_dim, "dim")
                if g is not None and (generic is None or structural_equal(g, generic, True)):
                    generic = generic or g
                    target_of[other] = first
                else:
                    rest.append(other)
            if generic is not None:
                attrs = funcs[first].attrs
                generic_of[first] = (generic.with_attr("global_symbol", attrs["global_symbol"])
                                     if "global_symbol" in attrs else generic)
            names = rest
    if not target_of:
        return mod
    new = _Redirect(mod, target_of).transform_module()
    out = {}
    for gv, f in new.functions.items():
        name = str(gv)
        if name not in target_of:
            out[name] = generic_of.get(name, f)
    return IRModule(out)
