"""What the VM lowering passes share: recognising operator calls, the void struct info of
calls made for their effect (a kernel writing its outputs, a kill), and wrapping an
ExprMutator as a module pass that also rewrites function attributes."""

from .. import expr as _expr


_OP_NAMES = {}  # Op handle -> name (Ops are registered once and never freed)


def op_name(e):
    """The operator name of a Call of an Op ("relax.call_tir"), else None."""
    if not isinstance(e, _expr.Call):
        return None
    op = e.op
    if not isinstance(op, _expr.Op):
        return None
    name = _OP_NAMES.get(op._h)
    if name is None:
        name = _OP_NAMES[op._h] = str(op.name)
    return name


def void_sinfo():
    """The struct info of a call made for its effect only (TVM's R.Tuple())."""
    return _expr.TupleStructInfo([])


def is_void(sinfo):
    return isinstance(sinfo, _expr.TupleStructInfo) and len(sinfo.fields) == 0


def relax_functions(mod):
    return [(str(k), f) for k, f in mod.functions.items() if isinstance(f, _expr.Function)]
