"""Legalization of relax.ccl.* (TVM's): destination-passing calls of the runtime.disco.*
globals, which run on a Disco worker and forward to the collective library that
session.init_ccl bound (runtime_extra/src/disco/ccl.cc)."""

from ... import topi
from .. import expr as _expr
from ..op import call_dps_packed
from .legalize_ops import _attr, register_legalize

_REDUCE = {"sum": 0, "prod": 1, "min": 2, "max": 3, "avg": 4}


def _flag(value):
    return _expr.PrimValue(bool(value))


@register_legalize("relax.ccl.allreduce")
def _allreduce(bb, call):
    kind = _REDUCE[str(_attr(call, "op_type", "sum"))]
    return call_dps_packed("runtime.disco.allreduce",
                           [call.args[0], _expr.ShapeExpr([kind]),
                            _flag(_attr(call, "in_group", True))], call.struct_info)


@register_legalize("relax.ccl.allgather")
def _allgather(bb, call):
    return call_dps_packed("runtime.disco.allgather",
                           [call.args[0], _flag(_attr(call, "in_group", True))], call.struct_info)


@register_legalize("relax.ccl.broadcast_from_worker0")
def _broadcast(bb, call):
    return call_dps_packed("runtime.disco.broadcast_from_worker0",
                           [call.args[0], _flag(False)], call.struct_info)


@register_legalize("relax.ccl.scatter_from_worker0")
def _scatter(bb, call):
    x = call.args[0]
    n = int(_attr(call, "num_workers"))
    axis = int(_attr(call, "axis", 0))
    shape = [int(d) for d in x.struct_info.shape]
    axis = axis + len(shape) if axis < 0 else axis
    if axis != 0:
        # Bring the parts to the front: (.., n, d/n, ..) -> (n, .., d/n, ..), then scatter rows.
        split = shape[:axis] + [n, shape[axis] // n] + shape[axis + 1:]
        order = [axis] + [i for i in range(len(split)) if i != axis]

        def parts(t):
            return topi.transpose(topi.reshape(t, split), order)

        x = bb.emit_te(parts, x, primfunc_name_hint="scatter_parts")
    return call_dps_packed("runtime.disco.scatter_from_worker0", [x, _flag(False)],
                           call.struct_info)
