"""torch.export -> Relax (TVM's tvm.relax.frontend.torch.from_exported_program).

    ep = torch.export.export(model.eval(), (x,), dynamic_shapes={"x": {0: Dim("batch")}})
    mod = from_exported_program(ep)

- The ExportedProgram is first decomposed to core ATen (`ep.run_decompositions()`) unless
  run_ep_decomposition=False; then ep.graph_module.graph is walked once, node by node.
- Placeholders follow ep.graph_signature: user inputs become the parameters of "main" (a
  dynamic dimension, a torch SymInt, becomes one int64 tir.Var named after its symbol and
  shared by every input and every shape computation that uses it; its range constraint goes
  to the function attrs tir_var_lower_bound / tir_var_upper_bound); parameters, buffers and
  lifted constants become relax constants, or with keep_params_as_input=True parameters of
  "main" after the user inputs (attr "num_input"; the call then returns
  (mod, {"main": [numpy arrays]}), as from_onnx here does).
- Call nodes are converted by the function registered (aten_ops.CONVERTERS) under the op
  overload's name, "aten.addmm.default"; values the graph computes on SymInts (sym_size,
  symbolic arithmetic) are taken from the node's meta as tir expressions.
- Outputs: the user outputs, as a tuple (TVM's convention) unless unwrap_unit_return_tuple
  and there is one; buffer mutations (BatchNorm's running statistics in train mode) are
  dropped.
- Every op overload without a converter is listed in one TorchOpError (overload and node
  names) before anything is converted.

torch is imported here (and in aten_ops) only, never by `import tvm`.
"""

from ... import expr as _expr
from ...block_builder import BlockBuilder
from .... import tir
from .aten_ops import CONVERTERS, NO_OPS
from .context import Reshaped, TorchOpError, _Ctx, torch_dtype_to_str  # noqa: F401


def _clean(name):
    s = "".join(c if c.isalnum() or c == "_" else "_" for c in str(name))
    return s if s and not s[0].isdigit() else "v_" + s


def _key(node):
    """The converter key of a call_function node: the overload's name ("aten.addmm.default"),
    or the Python function's (operator.getitem is "getitem")."""
    import torch
    t = node.target
    if isinstance(t, torch._ops.OpOverload):
        return str(t)
    return getattr(t, "__name__", str(t))


class ExportedProgramImporter:
    def __init__(self, ep, keep_params_as_input, unwrap_unit_return_tuple, no_bind_return_tuple):
        self.ep = ep
        self.keep_params = keep_params_as_input
        self.unwrap = unwrap_unit_return_tuple
        self.no_bind = no_bind_return_tuple
        self.env = {}        # fx.Node -> relax Expr, tir PrimExpr, python value or list of them
        self.sym = {}        # sympy symbol name -> tir.Var
        self.bb = BlockBuilder()

    # ---- symbolic integers ----
    def sym_var(self, name):
        if name not in self.sym:
            self.sym[name] = tir.Var(name, "int64")
        return self.sym[name]

    def sympy_to_tir(self, e):
        import sympy
        if isinstance(e, sympy.Integer) or (e.is_number and e.is_integer):
            return tir.IntImm("int64", int(e))
        if isinstance(e, sympy.Symbol):
            return self.sym_var(str(e))
        if isinstance(e, sympy.Add):
            out = None
            for a in e.args:
                v = self.sympy_to_tir(a)
                out = v if out is None else out + v
            return out
        if isinstance(e, sympy.Mul):
            out = None
            for a in e.args:
                v = self.sympy_to_tir(a)
                out = v if out is None else out * v
            return out
        fname = type(e).__name__
        if fname == "FloorDiv":
            return tir.floordiv(self.sympy_to_tir(e.args[0]), self.sympy_to_tir(e.args[1]))
        if fname in ("Mod", "PythonMod"):
            return tir.floormod(self.sympy_to_tir(e.args[0]), self.sympy_to_tir(e.args[1]))
        if fname == "Max":
            return tir.max(*[self.sympy_to_tir(a) for a in e.args[:2]])
        if fname == "Min":
            return tir.min(*[self.sympy_to_tir(a) for a in e.args[:2]])
        raise TorchOpError("from_exported_program: symbolic expression %s (%s) is not supported"
                           % (e, fname))

    def dim(self, d):
        """A torch size entry (int or SymInt) as an int or a tir PrimExpr."""
        import torch
        if isinstance(d, torch.SymInt):
            expr = d.node.expr
            if expr.is_number:
                return int(expr)
            return self.sympy_to_tir(expr)
        return int(d)

    def tensor_sinfo(self, fake, what):
        dtype = torch_dtype_to_str(fake.dtype, what)
        return _expr.TensorStructInfo([self.dim(d) for d in fake.shape], dtype)

    # ---- checks ----
    def check_supported(self, graph):
        import torch
        missing = {}
        for node in graph.nodes:
            if node.op != "call_function":
                if node.op not in ("placeholder", "output", "get_attr"):
                    missing.setdefault("<%s %s>" % (node.op, node.target), []).append(node.name)
                continue
            if isinstance(node.meta.get("val"), (torch.SymInt, torch.SymFloat, torch.SymBool)):
                continue  # computed from the node's meta
            key = _key(node)
            if key not in CONVERTERS and key not in NO_OPS:
                missing.setdefault(key, []).append(node.name)
        if missing:
            lines = ["  %s: %s" % (k, ", ".join(v[:5]) + (" ..." if len(v) > 5 else ""))
                     for k, v in sorted(missing.items())]
            raise TorchOpError("from_exported_program: %d op overload(s) are not supported:\n%s"
                               % (len(missing), "\n".join(lines)))

    # ---- the walk ----
    def _numpy(self, t, what):
        t = t.detach().cpu()
        torch_dtype_to_str(t.dtype, what)  # raises on unsupported dtypes
        return t.contiguous().numpy()

    def run(self):
        import torch
        from torch.export.graph_signature import InputKind, OutputKind

        ep = self.ep
        graph = ep.graph_module.graph
        self.check_supported(graph)
        sig = ep.graph_signature
        state = dict(ep.state_dict)
        consts = dict(getattr(ep, "constants", {}) or {})
        placeholders = {n.name: n for n in graph.nodes if n.op == "placeholder"}

        user_inputs, params, param_values = [], [], []
        for spec in sig.input_specs:
            name = spec.arg.name
            node = placeholders.get(name)
            if spec.kind == InputKind.USER_INPUT:
                val = node.meta.get("val") if node is not None else None
                if not isinstance(val, torch.Tensor):
                    raise TorchOpError("from_exported_program: user input %s is a %s; only tensor "
                                       "inputs are supported" % (name, type(val).__name__))
                v = _expr.Var(_clean(name), self.tensor_sinfo(val, "input " + name))
                user_inputs.append(v)
                self.env[node] = v
            elif spec.kind in (InputKind.PARAMETER, InputKind.BUFFER, InputKind.CONSTANT_TENSOR):
                src = state if spec.target in state else consts
                if spec.target not in src:
                    raise TorchOpError("from_exported_program: no value for %s %s"
                                       % (spec.kind.name.lower(), spec.target))
                value = src[spec.target]
                if not isinstance(value, torch.Tensor):
                    raise TorchOpError("from_exported_program: %s %s is a %s, not a tensor"
                                       % (spec.kind.name.lower(), spec.target, type(value).__name__))
                arr = self._numpy(value, "%s %s" % (spec.kind.name.lower(), spec.target))
                if self.keep_params and spec.kind == InputKind.PARAMETER:
                    v = _expr.Var(_clean(name), _expr.TensorStructInfo(list(arr.shape), str(arr.dtype)))
                    params.append(v)
                    param_values.append(arr)
                    self.env[node] = v
                else:
                    self.env[node] = _expr.const(arr)
            else:
                raise TorchOpError("from_exported_program: input %s of kind %s is not supported"
                                   % (name, spec.kind.name))

        user_outputs = [o.arg.name for o in sig.output_specs if o.kind == OutputKind.USER_OUTPUT]

        attrs = {}
        if self.keep_params:
            attrs["num_input"] = len(user_inputs)
        lower, upper = self.bounds()
        if lower:
            attrs["tir_var_lower_bound"] = lower
        if upper:
            attrs["tir_var_upper_bound"] = upper

        with self.bb.function("main", user_inputs + params, attrs=attrs):
            with self.bb.dataflow():
                output = None
                for node in graph.nodes:
                    if node.op == "call_function":
                        self.convert_node(node)
                    elif node.op == "get_attr":
                        value = getattr(ep.graph_module, node.target)
                        if isinstance(value, torch.Tensor):
                            self.env[node] = _expr.const(self._numpy(value, "attribute " + node.target))
                        else:
                            self.env[node] = value
                    elif node.op == "output":
                        output = self.outputs(node, user_outputs)
            self.bb.emit_func_output(output)
        mod = self.bb.get()
        if self.keep_params:
            return mod, {"main": param_values}
        return mod

    def bounds(self):
        """Range constraints of the symbols used by the inputs, as int bounds by name."""
        lower, upper = {}, {}
        for sym, rng in (getattr(self.ep, "range_constraints", {}) or {}).items():
            name = str(sym)
            if name not in self.sym:
                continue
            try:
                lo = int(rng.lower)
                lower[name] = lo
            except (TypeError, ValueError, OverflowError):
                pass
            try:
                hi = int(rng.upper)
                if hi < 2 ** 62:
                    upper[name] = hi
            except (TypeError, ValueError, OverflowError):
                pass
        return lower, upper

    def outputs(self, node, user_outputs):
        args = node.args[0]
        args = list(args) if isinstance(args, (list, tuple)) else [args]
        by_name = {a.name: a for a in args if hasattr(a, "name")}
        outs = []
        for name in user_outputs:
            a = by_name.get(name)
            value = self.env.get(a) if a is not None else None
            if not isinstance(value, (_expr.Expr, Reshaped)):
                raise TorchOpError("from_exported_program: output %s is not a tensor (%r)"
                                   % (name, type(value).__name__))
            if isinstance(value, Reshaped):
                value = value.materialize(self.bb)
            outs.append(value)
        if self.unwrap and len(outs) == 1:
            return self.bb.emit_output(outs[0])
        if self.no_bind:
            return _expr.Tuple([self.bb.emit_output(o) for o in outs])
        return self.bb.emit_output(_expr.Tuple(outs))

    def convert_node(self, node):
        import torch
        val = node.meta.get("val")
        if isinstance(val, (torch.SymInt, torch.SymFloat, torch.SymBool)):
            expr = val.node.expr
            if isinstance(val, torch.SymInt):
                self.env[node] = self.dim(val)
            else:
                self.env[node] = float(expr) if expr.is_number else expr
            return
        key = _key(node)
        if key in NO_OPS:
            self.env[node] = None
            return
        ctx = _Ctx(self, node)
        try:
            out = CONVERTERS[key](ctx)
        except TorchOpError:
            raise
        except (ValueError, TypeError, NotImplementedError, KeyError, IndexError) as err:
            raise TorchOpError("from_exported_program: node %s (%s): %s" % (node.name, key, err)) from err
        if isinstance(out, _expr.Expr) and not isinstance(out, (_expr.Var, _expr.Constant)):
            out = self.bb.emit(out, _clean(node.name))
        self.env[node] = out


def from_exported_program(exported_program, *, keep_params_as_input=False,
                          unwrap_unit_return_tuple=False, no_bind_return_tuple=False,
                          run_ep_decomposition=True):
    """Converts a torch.export.ExportedProgram to a Relax IRModule with function "main".

    Args:
        keep_params_as_input: parameters become function parameters after the user inputs
            (attr "num_input"); returns (mod, {"main": [numpy arrays]}) then.
        unwrap_unit_return_tuple: a single output is returned as itself, not a 1-tuple.
        no_bind_return_tuple: the result tuple is not bound to a variable (each field is).
        run_ep_decomposition: run ep.run_decompositions() (core ATen) first; False converts
            the graph as exported (linear, conv2d, layer_norm, scaled_dot_product_attention...).
    Raises:
        TorchOpError (a NotImplementedError) for unsupported op overloads (all listed at once,
        with node names), inputs that are not tensors, and unsupported dtypes.
    """
    try:
        import torch
    except ImportError as err:
        raise ImportError("from_exported_program needs torch (pip install torch)") from err
    if not isinstance(exported_program, torch.export.ExportedProgram):
        raise TypeError("from_exported_program expects a torch.export.ExportedProgram, got %r"
                        % type(exported_program).__name__)
    if run_ep_decomposition:
        exported_program = exported_program.run_decompositions()
    return ExportedProgramImporter(exported_program, keep_params_as_input, unwrap_unit_return_tuple,
                                   no_bind_return_tuple).run()


__all__ = ["from_exported_program"]
