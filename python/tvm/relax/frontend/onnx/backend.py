"""An onnx backend (`onnx.backend.base.Backend`) over from_onnx + tvm.compile + the Relax VM,
as `onnxruntime.backend` is one over onnxruntime:

    from tvm.relax.frontend.onnx import backend
    rep = backend.prepare(model, "CPU")          # imports and compiles once
    outputs = rep.run([x, y])                    # or {"x": x, "y": y}; a list of numpy arrays
    backend.run_model(model, [x, y])             # prepare + run
    backend.supports_device("CUDA")              # True only where a CUDA device is usable

Every graph input that is not an initializer is an input of the compiled function (nothing is
frozen: parameters such as axes or shapes fed as inputs stay inputs). onnx's BackendTest can
drive it (`onnx.backend.test.BackendTest(backend, __name__)`); our conformance run over the
whole suite is tools/onnx_ops_report.py (docs/onnx_ops.md).
"""

import numpy as np

try:  # onnx is needed only when the backend is used, never by `import tvm`
    from onnx.backend.base import Backend as _Backend, BackendRep as _BackendRep, Device as _Device
except ImportError:  # pragma: no cover - without onnx the module still imports
    _Backend, _BackendRep, _Device = object, object, None


def _tvm_device(device):
    """(target, tvm device) for an onnx device string ("CPU", "CUDA", "CUDA:1")."""
    import tvm

    kind, _, idx = str(device).upper().partition(":")
    idx = int(idx) if idx else 0
    if kind == "CPU":
        return "llvm", tvm.cpu(idx)
    if kind == "CUDA":
        dev = tvm.cuda(idx)
        if not dev.exist:
            raise RuntimeError("onnx backend: device %s is not usable here (no CUDA device)" % device)
        major, minor = str(dev.compute_version).split(".")[:2]
        return "cuda -arch=sm_%s%s" % (major, minor), dev
    raise ValueError("onnx backend: unknown device %r (CPU or CUDA[:n])" % (device,))


def _to_numpy(value):
    if isinstance(value, np.ndarray):
        return value
    if hasattr(value, "numpy"):
        return value.numpy()
    if isinstance(value, (list, tuple)) or hasattr(value, "__len__"):
        return [_to_numpy(v) for v in value]
    return np.asarray(value)


class TVMBackendRep(_BackendRep):
    """A compiled model: run(inputs) -> list of numpy arrays, one per graph output."""

    def __init__(self, model, device="CPU", **kwargs):
        import tvm
        from tvm import relax
        from .onnx_frontend import from_onnx

        self.model = model
        inits = {i.name for i in model.graph.initializer}
        self.input_names = [i.name for i in model.graph.input if i.name not in inits]
        self.output_names = [o.name for o in model.graph.output]
        target, self.device = _tvm_device(device)
        frontend_args = {k: kwargs[k] for k in ("shape_dict", "dtype_dict", "opset") if k in kwargs}
        self.mod = from_onnx(model, **frontend_args)
        self.executable = tvm.compile(self.mod, target)
        self.vm = relax.VirtualMachine(self.executable, self.device)

    def run(self, inputs, **kwargs):  # noqa: ARG002 - onnx's signature
        import tvm

        if isinstance(inputs, dict):
            missing = [n for n in self.input_names if n not in inputs]
            if missing:
                raise ValueError("onnx backend: inputs %s are missing" % missing)
            values = [inputs[n] for n in self.input_names]
        else:
            values = list(inputs) if isinstance(inputs, (list, tuple)) else [inputs]
            if len(values) != len(self.input_names):
                raise ValueError("onnx backend: the model takes %d inputs (%s), got %d"
                                 % (len(self.input_names), ", ".join(self.input_names), len(values)))
        args = [tvm.runtime.tensor(np.array(v, order="C"), self.device) for v in values]
        out = self.vm["main"](*args)
        if len(self.output_names) == 1:
            return [_to_numpy(out)]
        return [_to_numpy(o) for o in out]


class TVMBackend(_Backend):
    """onnx.backend.base.Backend over tvm-stack (CPU always; CUDA where a device exists)."""

    @classmethod
    def is_compatible(cls, model, device="CPU", **kwargs):  # noqa: ARG003
        """True when every node's operator has a converter for the model's opset."""
        from .converters import CONVERTERS

        opsets = {(o.domain or ""): o.version for o in model.opset_import}
        for n in model.graph.node:
            key = n.op_type if n.domain in ("", "ai.onnx") else "%s:%s" % (n.domain, n.op_type)
            conv = CONVERTERS.get(key)
            if conv is None or conv.impl_for(opsets.get(n.domain or "", 1)) is None:
                return False
        return True

    @classmethod
    def prepare(cls, model, device="CPU", **kwargs):
        if isinstance(model, (str, bytes)):
            import onnx
            model = onnx.load(model) if isinstance(model, str) else onnx.load_from_string(model)
        return TVMBackendRep(model, device, **kwargs)

    @classmethod
    def run_model(cls, model, inputs, device="CPU", **kwargs):
        return cls.prepare(model, device, **kwargs).run(inputs)

    @classmethod
    def run_node(cls, node, inputs, device="CPU", outputs_info=None, **kwargs):
        """Runs one node: a model with that node, inputs typed from the arrays given."""
        from onnx import helper

        opset = kwargs.pop("opset_version", None)
        values = list(inputs.values()) if isinstance(inputs, dict) else list(inputs)
        names = [n for n in node.input]
        graph_inputs = []
        for name, v in zip(names, values):
            v = np.asarray(v)
            graph_inputs.append(helper.make_tensor_value_info(
                name, helper.np_dtype_to_tensor_dtype(v.dtype), list(v.shape)))
        graph_outputs = []
        for k, name in enumerate(node.output):
            if outputs_info and k < len(outputs_info):
                dt, shape = outputs_info[k]
                graph_outputs.append(helper.make_tensor_value_info(
                    name, helper.np_dtype_to_tensor_dtype(np.dtype(dt)), list(shape)))
            else:
                graph_outputs.append(helper.make_empty_tensor_value_info(name))
        graph = helper.make_graph([node], "run_node", graph_inputs, graph_outputs)
        opsets = [helper.make_opsetid(node.domain or "", opset)] if opset else None
        model = helper.make_model(graph, opset_imports=opsets) if opsets else helper.make_model(graph)
        if not outputs_info:
            import onnx
            model = onnx.shape_inference.infer_shapes(model)  # output types from the node
        return cls.run_model(model, values[:len(names)], device, **kwargs)

    @classmethod
    def supports_device(cls, device):
        kind = str(device).upper().partition(":")[0]
        if kind == "CPU":
            return True
        if kind == "CUDA":
            try:
                import tvm
                return bool(tvm.cuda(0).exist)
            except Exception:  # noqa: BLE001 - no CUDA runtime at all
                return False
        return False


prepare = TVMBackend.prepare
run_model = TVMBackend.run_model
run_node = TVMBackend.run_node
supports_device = TVMBackend.supports_device
is_compatible = TVMBackend.is_compatible

__all__ = ["TVMBackend", "TVMBackendRep", "prepare", "run_model", "run_node", "supports_device",
           "is_compatible"]
