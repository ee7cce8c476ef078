"""What the VM lowering passes share: recognising operator calls, the void struct info of
calls made for their effect (a kernel writing its outputs, a kill), and wrapping an
ExprMutator as a module pass that also rewrites function attributes."""

from .. import expr as _expr


def op_name(e):
    """The operator name of a Call of an Op ("relax.call_tir"), else None."""
    if isinstance(e, _expr.Call) and isinstance(e.op, _expr.Op):
        return str(e.op.name)
    return None


def void_sinfo():
    """The struct info of a call made for its effect only (TVM's R.Tuple())."""
    return _expr.TupleStructInfo([])


def is_void(sinfo):
    return isinstance(sinfo, _expr.TupleStructInfo) and len(sinfo.fields) == 0


def relax_functions(mod):
    return [(str(k), f) for k, f in mod.functions.items() if isinstance(f, _expr.Function)]
