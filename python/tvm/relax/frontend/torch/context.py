"""What the torch frontend's two halves share: the importer (exported_program_translator)
hands each ATen node to a converter (aten_ops) as a `_Ctx`; a `Reshaped` value stays
deferred between them; TorchOpError and the dtype table. Both import this module; neither
imports the other's internals (aten_ops never imports the translator)."""

import numpy as np  # noqa: F401

from ... import expr as _expr
from .... import tir

class TorchOpError(NotImplementedError):
    """The exported program uses op overloads, inputs or dtypes the frontend does not convert."""


_DTYPES = {"float32": "float32", "float64": "float64", "float16": "float16",
           "int64": "int64", "int32": "int32", "int16": "int16", "int8": "int8", "uint8": "uint8",
           "bool": "bool"}


def torch_dtype_to_str(dt, what="value"):
    name = str(dt).replace("torch.", "")
    if name not in _DTYPES:
        raise TorchOpError("from_exported_program: %s has dtype %s, which is not supported" % (what, dt))
    return _DTYPES[name]


def same_dim(a, b):
    """Two dimensions (ints or PrimExprs) are the same expression."""
    if isinstance(a, int) or isinstance(b, int):
        return isinstance(a, int) and isinstance(b, int) and a == b
    from .... import ir
    return bool(ir.structural_equal(a, b))


def same_shape(a, b):
    return len(a) == len(b) and all(same_dim(x, y) for x, y in zip(a, b))


class Reshaped:
    """A reshape to a shape with a computed symbolic dimension (b*t of a view (b, t, d) ->
    (b*t, d) that core ATen puts around addmm/bmm), kept deferred: mm/addmm/bmm/view consume
    the un-flattened `base` directly (so the flattening disappears, and with it a computed
    dimension the VM codegen cannot allocate yet); any other use materializes the reshape."""

    def __init__(self, base, shape):
        self.base = base
        self.shape = shape
        self._done = None

    def materialize(self, bb):
        if self._done is None:
            from ... import op as R
            self._done = bb.emit(R.reshape(self.base, self.shape))
        return self._done


class _Ctx:
    """What a converter sees: the node's arguments by schema name (fx nodes replaced by their
    converted values), the node's meta, the builder."""

    def __init__(self, importer, node):
        self.importer = importer
        self.node = node
        self.bb = importer.bb
        self._args = None

    def value(self, a):
        import torch.fx
        if isinstance(a, torch.fx.Node):
            v = self.importer.env[a]
            if isinstance(v, Reshaped):
                v = v.materialize(self.bb)
            return v
        if isinstance(a, (list, tuple)):
            return type(a)(self.value(x) for x in a)
        return a

    def raw(self, i):
        """The i-th argument (schema order) as converted, a Reshaped left deferred, the
        other arguments untouched."""
        import torch.fx
        node = self.node
        schema = getattr(node.target, "_schema", None)
        if i < len(node.args):
            a = node.args[i]
        else:
            arg = schema.arguments[i]
            if arg.name in node.kwargs:
                a = node.kwargs[arg.name]
            else:
                return arg.default_value if arg.has_default_value() else None
        return self.importer.env[a] if isinstance(a, torch.fx.Node) else a

    @property
    def args(self):
        """Arguments by the op's schema names, defaults filled in."""
        if self._args is None:
            node = self.node
            schema = getattr(node.target, "_schema", None)
            out = {}
            if schema is None:
                for i, a in enumerate(node.args):
                    out[i] = self.value(a)
            else:
                for i, arg in enumerate(schema.arguments):
                    if i < len(node.args):
                        out[arg.name] = self.value(node.args[i])
                    elif arg.name in node.kwargs:
                        out[arg.name] = self.value(node.kwargs[arg.name])
                    elif arg.has_default_value():
                        out[arg.name] = arg.default_value
                    else:
                        out[arg.name] = None
            self._args = out
        return self._args

    def arg(self, i):
        """The i-th argument (positional order of the schema)."""
        return list(self.args.values())[i]

    @property
    def out_meta(self):
        return self.node.meta.get("val")

    def out_dtype(self):
        import torch
        v = self.out_meta
        if isinstance(v, (list, tuple)):
            v = v[0]
        if isinstance(v, torch.Tensor):
            return torch_dtype_to_str(v.dtype, "node " + self.node.name)
        return None

    def out_shape(self):
        """The result's shape from torch's meta (ints and tir expressions), or None."""
        import torch
        v = self.out_meta
        if not isinstance(v, torch.Tensor):
            return None
        return [self.importer.dim(d) for d in v.shape]

    def sinfo(self, e):
        return self.bb.normalize(e).struct_info

    def shape(self, e):
        s = self.sinfo(e)
        if not isinstance(s, _expr.TensorStructInfo) or not s.shape_known:
            raise TorchOpError("from_exported_program: node %s: the shape of an input is unknown"
                               % self.node.name)
        return [int(d.value) if isinstance(d, tir.IntImm) else d for d in s.shape]

    def ndim(self, e):
        return int(self.sinfo(e).ndim)

    def dtype(self, e):
        return str(self.sinfo(e).dtype)

    def emit(self, e, hint=""):
        return self.bb.emit(e, hint)
