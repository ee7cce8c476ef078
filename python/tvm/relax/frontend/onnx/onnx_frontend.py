"""ONNX -> Relax (TVM's tvm.relax.frontend.onnx.from_onnx).

    mod = from_onnx(onnx.load("model.onnx"), shape_dict={"x": [1, 3, 224, 224]})

- Inputs become parameters of "main" (shapes from `shape_dict`, else the model's; a named
  dynamic dimension becomes one int64 TIR Var shared by every input that names it).
- Initializers become constants (or, with keep_params_in_input=True, parameters after the
  inputs, and the function carries attr "num_input").
- Each node is converted by the class registered for its op type; the class's `_impl_vN` with
  the largest N <= the model's opset for that domain is used (opsets 7 to 21).
- Values that only depend on constants are computed at import with numpy (the Shape /
  Gather / Concat / Reshape chains of exported models fold away when shapes are static).
- Every op type without a converter is listed in one error (op type and node names) before
  anything is converted.

onnx is imported by this module only, never by `import tvm`.
"""

import numpy as np

from ... import expr as _expr
from ... import op as R
from ...block_builder import BlockBuilder
from ....ir import IRModule
from .... import tir

from .converters import CONVERTERS, OnnxOpError, _supported_dtype
from . import function_expand
from . import initializers
from . import shape_values


def _np_dtype(elem_type):
    from onnx import helper
    return np.dtype(helper.tensor_dtype_to_np_dtype(elem_type))


class GraphImporter:
    def __init__(self, model, shape_dict, dtype_dict, keep_params_in_input, opset, raws=None):
        self.model = model
        self.raws = raws or {}  # initializer index -> its raw_data, already read (initializers.py)
        self.graph = model.graph
        self.shape_dict = dict(shape_dict or {})
        self.dtype_dict = dtype_dict if isinstance(dtype_dict, dict) else {}
        self.default_dtype = dtype_dict if isinstance(dtype_dict, str) else "float32"
        self.keep_params = keep_params_in_input
        self.opset = opset
        self.values = {}      # ONNX value name -> relax Expr
        self.consts = {}      # ONNX value name -> numpy array (values known at import)
        # ONNX value name -> SymShape (int values of symbolic elements, shape_values.py); its
        # tensor goes into `values` only when an op needs one (value())
        self.shape_values = {}
        self.sym = {}         # dim_param name -> tir.Var
        self.producers = {}   # ONNX value name -> the node that computes it (qdq.py reads it)
        self.bb = BlockBuilder()

    # ---- helpers used by converters ----
    def const_value(self, name):
        """The numpy value of `name` when it is known at import, else None."""
        return self.consts.get(name)

    def value(self, name):
        """The relax expression of ONNX value `name` (a shape value materialized once)."""
        if name not in self.values and name in self.shape_values:
            self.values[name] = self.bb.emit(self.shape_values[name].materialize(), _clean(name))
        return self.values[name]

    def dim(self, d):
        if isinstance(d, str):
            if d not in self.sym:
                self.sym[d] = tir.Var(d, "int64")
            return self.sym[d]
        return int(d)

    def _input_sinfo(self, vi):
        from .converters import _supported_dtype
        name = vi.name
        if not vi.type.HasField("tensor_type"):
            raise NotImplementedError("from_onnx: input %s is a %s; only tensor inputs are supported"
                                      % (name, vi.type.WhichOneof("value")))
        t = vi.type.tensor_type
        dtype = self.dtype_dict.get(name) or (
            _supported_dtype(_np_dtype(t.elem_type), "input " + name) if t.elem_type else self.default_dtype)
        if name in self.shape_dict:
            shape = [self.dim(d) for d in self.shape_dict[name]]
        else:
            shape = []
            for k, d in enumerate(t.shape.dim):
                if d.HasField("dim_value"):
                    shape.append(int(d.dim_value))
                else:
                    shape.append(self.dim(d.dim_param or "%s_dim%d" % (name, k)))
        return _expr.TensorStructInfo(shape, dtype)

    def _converter(self, node, opsets):
        """The converter's impl for the node, None when the op expands into its function
        body (function_expand.py), or OnnxOpError naming the op, the node and the opset."""
        key = node.op_type if node.domain in ("", "ai.onnx") else "%s:%s" % (node.domain, node.op_type)
        opset = opsets.get(node.domain or "", 1)
        conv = CONVERTERS.get(key)
        impl = conv.impl_for(opset) if conv is not None else None
        if impl is not None or function_expand.has_body(node, opset):
            return impl
        # the same form as check_supported's list (the conformance report parses it)
        raise OnnxOpError("from_onnx: 1 operator type(s) are not supported:\n  %s: %s (opset %d)"
                          % (key, node.name or "?", opset))

    def check_supported(self):
        missing, domains = {}, {}
        for node in self.graph.node:
            try:
                self._converter(node, self.opset)
            except OnnxOpError:
                key = node.op_type if node.domain in ("", "ai.onnx") else "%s:%s" % (node.domain, node.op_type)
                missing.setdefault(key, []).append(node.name or "(unnamed %s)" % node.op_type)
                domains[key] = self.opset.get(node.domain or "", 1)
        if missing:
            lines = ["  %s: %s (opset %d)" % (k, ", ".join(v[:5]) + (" ..." if len(v) > 5 else ""), domains[k])
                     for k, v in sorted(missing.items())]
            raise OnnxOpError("from_onnx: %d operator type(s) are not supported:\n%s"
                              % (len(missing), "\n".join(lines)))

    def run(self):
        self.check_supported()
        init_names = set()
        params, param_values = [], []
        for i, init in enumerate(self.graph.initializer):
            try:
                arr = initializers.to_array(init, self.raws.get(i))
            except ValueError as err:  # data that does not fill its dims (a truncated file)
                raise ValueError("from_onnx: initializer %r (dims %s) cannot be read: %s"
                                 % (init.name, list(init.dims), err)) from err
            _supported_dtype(arr.dtype, "initializer " + init.name)
            init_names.add(init.name)
            if self.keep_params:
                v = _expr.Var(init.name, _expr.TensorStructInfo(list(arr.shape), str(arr.dtype)))
                self.values[init.name] = v
                param_values.append(arr)
                params.append(v)
            else:
                self.consts[init.name] = arr
                self.values[init.name] = _expr.const(arr)
        inputs = []
        for vi in self.graph.input:
            if vi.name in init_names:
                continue
            v = _expr.Var(vi.name, self._input_sinfo(vi))
            self.values[vi.name] = v
            inputs.append(v)
        attrs = {"num_input": len(inputs)} if self.keep_params else {}
        with self.bb.function("main", inputs + params, attrs=attrs):
            with self.bb.dataflow():
                for node in self.graph.node:
                    self.convert_node(node)
                outs = []
                for o in self.graph.output:
                    if o.name not in self.values and o.name not in self.shape_values:
                        raise OnnxOpError("from_onnx: graph output %s is never computed" % o.name)
                    outs.append(self.value(o.name))
                out = outs[0] if len(outs) == 1 else _expr.Tuple(outs)
                gv = self.bb.emit_output(out)
            self.bb.emit_func_output(gv)
        mod = self.bb.get()
        if self.keep_params:
            return mod, {"main": param_values}
        return mod

    def _expand(self, node, opsets):
        """Converts the nodes of the node's function body under the body's opsets."""
        types = []
        for name in node.input:
            if not name:
                types.append(None)
                continue
            si = self.bb.normalize(self.value(name)).struct_info
            shape = None
            if isinstance(si, _expr.TensorStructInfo) and si.shape_known:
                shape = [int(d.value) if isinstance(d, tir.IntImm) else None for d in si.shape]
            types.append((str(si.dtype), shape))
        try:
            body, body_opsets = function_expand.expand(node, opsets.get(node.domain or "", 1), types)
        except Exception as err:  # noqa: BLE001 - onnx's function builders raise their own types
            raise OnnxOpError("from_onnx: node %s (%s): cannot expand its function body: %s"
                              % (node.name or "?", node.op_type, err)) from err
        merged = dict(opsets)
        merged.update(body_opsets)
        for inner in body:
            self.convert_node(inner, merged)

    def convert_node(self, node, opsets=None):
        from onnx import helper

        opsets = self.opset if opsets is None else opsets
        impl = self._converter(node, opsets)
        if impl is None:
            return self._expand(node, opsets)
        attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
        for k, v in list(attrs.items()):
            if isinstance(v, bytes):
                attrs[k] = v.decode()
        consts = [self.consts.get(i) if i else None for i in node.input]
        opset = opsets.get(node.domain or "", 1)
        ctx = _Ctx(self, node, consts, opset)
        try:
            out = shape_values.propagate(ctx, attrs)
            if out is None:
                out = impl(ctx, _Inputs(self, node.input), attrs)
        except (ValueError, TypeError, NotImplementedError) as err:
            raise type(err)("from_onnx: node %s (%s): %s" % (node.name or "?", node.op_type, err)) from err
        outs = list(out) if isinstance(out, (list, tuple)) else [out]
        names = [n for n in node.output]
        if len(outs) < len([n for n in names if n]):
            if len(outs) == 1 and isinstance(outs[0], _expr.Expr) and isinstance(
                    self.bb.normalize(outs[0]).struct_info, _expr.TupleStructInfo):
                tup = self.bb.emit(outs[0])
                outs = [_expr.TupleGetItem(tup, i) for i in range(len(names))]
        for name in names:
            if name:
                self.producers[name] = node
        for name, value in zip(names, outs):
            if not name or value is None:
                continue
            if isinstance(value, np.generic):  # numpy ops on 0-d arrays return scalars
                value = np.array(value)
            if isinstance(value, shape_values.SymShape):
                self.shape_values[name] = value
            elif isinstance(value, np.ndarray):
                self.consts[name] = value
                self.values[name] = _expr.const(value)
            else:
                if not isinstance(value, (_expr.Var, _expr.Constant)):
                    value = self.bb.emit(value, _clean(name))
                self.values[name] = value


class _Inputs(list):
    """A node's input expressions, resolved when read: a shape value that a converter only
    reads through ctx.shape_value / dims_of (Reshape's target, ...) never becomes a tensor."""

    def __init__(self, importer, names):
        super().__init__(names)
        self._importer = importer

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        name = super().__getitem__(i)
        return self._importer.value(name) if name else None

    def __iter__(self):
        return (self[k] for k in range(len(self)))


class _Ctx:
    """What a converter sees besides its inputs: the node, constant inputs, the builder."""

    def __init__(self, importer, node, consts, opset):
        self.importer = importer
        self.node = node
        self.consts = consts
        self.opset = opset
        self.bb = importer.bb

    def input(self, i):
        return self.importer.value(self.node.input[i])

    def shape_value(self, i):
        """Input i's SymShape when it is an int value with symbolic elements, else None."""
        name = self.node.input[i] if i < len(self.node.input) else ""
        return self.importer.shape_values.get(name) if name else None

    def all_const(self, inputs=None):
        idx = range(len(self.consts)) if inputs is None else inputs
        return all(self.consts[i] is not None for i in idx if i < len(self.consts))

    def shape_of(self, expr):
        s = self.bb.normalize(expr).struct_info
        if not isinstance(s, _expr.TensorStructInfo) or not s.shape_known:
            return None
        return list(s.shape)

    def static_shape(self, expr):
        shape = self.shape_of(expr)
        if shape is None:
            return None
        out = []
        for d in shape:
            if isinstance(d, tir.IntImm):
                out.append(int(d.value))
            else:
                return None
        return out

    def dtype_of(self, expr):
        return str(self.bb.normalize(expr).struct_info.dtype)


def _clean(name):
    s = "".join(c if c.isalnum() or c == "_" else "_" for c in name)
    return s if s and not s[0].isdigit() else "v_" + s


def from_onnx(model, shape_dict=None, dtype_dict="float32", opset=None, keep_params_in_input=False,
              sanitize_input_names=True):
    """Converts an onnx.ModelProto (or a path to a .onnx file) to a Relax IRModule.

    Args:
        shape_dict: input name -> shape (ints, or strings for named dynamic dimensions).
        dtype_dict: input name -> dtype, or one dtype for every input whose type is unknown.
        opset: overrides the model's default-domain opset.
        keep_params_in_input: initializers become parameters after the inputs; returns
            (mod, {"main": [numpy arrays]}) then.
    """
    try:
        import onnx
    except ImportError as err:
        raise ImportError("from_onnx needs the onnx package (pip install onnx)") from err
    if isinstance(model, (str, bytes)) and not isinstance(model, onnx.ModelProto):
        try:
            model = onnx.load(model) if isinstance(model, str) else onnx.load_from_string(model)
        except Exception as err:  # noqa: BLE001 - protobuf raises its own types
            raise ValueError("from_onnx: cannot read the model: %s" % err) from err
    if not isinstance(model, onnx.ModelProto):
        raise TypeError("from_onnx expects an onnx.ModelProto or a file path, got %r" % type(model).__name__)
    checked, raws = initializers.split_large(model)  # the checker without copies of the weights
    try:
        onnx.checker.check_model(checked)
    except Exception as err:  # noqa: BLE001 - onnx's checker raises ValidationError
        raise ValueError("from_onnx: the model is not valid ONNX: %s" % err) from err
    opsets = {(o.domain or ""): o.version for o in model.opset_import}
    if opset is not None:
        opsets[""] = int(opset)
    return GraphImporter(model, shape_dict, dtype_dict, keep_params_in_input, opsets, raws).run()


__all__ = ["IRModule", "from_onnx"]
