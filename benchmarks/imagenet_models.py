"""ImageNet-size CNNs for the benchmarks: the onnx package's "light" model data (the real
architectures of its model tests — SqueezeNet, ShuffleNet, ResNet-50, DenseNet-121, Inception
v1/v2, VGG-19, AlexNet, ZFNet — whose weights are ConstantOfShape nodes of one value) with every
weight replaced by a seeded random initializer, so activations stay in a realistic range and
outputs are worth comparing.

    from imagenet_models import imagenet_model, IMAGENET_MODELS
    model, feeds = imagenet_model("resnet50", seed=0)   # 1x3x224x224 float32 input

Weights: conv / Gemm weights He-scaled normal (std sqrt(2 / fan_in)), biases and batch-norm
shifts and means small normals, batch-norm scales and variances uniform in [0.5, 1.5]; other
constants (Inception v2's Mul/Add scalars) uniform in [0.5, 1.5].
"""

import os

import numpy as np

IMAGENET_MODELS = ("squeezenet", "shufflenet", "resnet50", "densenet121", "inception_v1",
                   "inception_v2", "vgg19", "bvlc_alexnet", "zfnet512")


def _light_dir():
    import onnx

    return os.path.join(os.path.dirname(onnx.__file__), "backend", "test", "data", "light")


def _random_weight(rng, shape, op_type, index):
    if op_type in ("Conv", "Gemm") and index == 1:
        fan_in = int(np.prod(shape[1:])) if len(shape) > 1 else 1
        return rng.standard_normal(shape) * np.sqrt(2.0 / max(fan_in, 1))
    if op_type == "BatchNormalization" and index in (1, 4):  # scale, variance
        return rng.uniform(0.5, 1.5, shape)
    if op_type in ("Conv", "Gemm", "BatchNormalization"):  # biases, shifts, means
        return rng.standard_normal(shape) * 0.05
    return rng.uniform(0.5, 1.5, shape)


def imagenet_model(name, seed=0):
    """(ModelProto, {input name: array}) of the light model `name` with random weights."""
    import onnx
    from onnx import numpy_helper

    if name not in IMAGENET_MODELS:
        raise ValueError("unknown model %r (one of %s)" % (name, ", ".join(IMAGENET_MODELS)))
    model = onnx.load(os.path.join(_light_dir(), "light_%s.onnx" % name))
    g = model.graph
    rng = np.random.default_rng(seed)
    inits = {t.name: numpy_helper.to_array(t) for t in g.initializer}
    consumers = {}
    for node in g.node:
        for k, inp in enumerate(node.input):
            consumers.setdefault(inp, (node.op_type, k))
    weights, keep = [], []
    for node in g.node:
        if node.op_type == "ConstantOfShape" and node.input[0] in inits:
            shape = [int(d) for d in inits[node.input[0]]]
            op_type, index = consumers.get(node.output[0], ("", 0))
            value = _random_weight(rng, shape, op_type, index).astype("float32")
            weights.append(numpy_helper.from_array(value, node.output[0]))
        else:
            keep.append(node)
    del g.node[:]
    g.node.extend(keep)
    shape_inputs = {n for n in inits if n.endswith("__SHAPE")}
    kept_inits = [t for t in g.initializer if t.name not in shape_inputs]
    del g.initializer[:]
    g.initializer.extend(kept_inits + weights)
    weight_names = {t.name for t in g.initializer}
    graph_inputs = [i for i in g.input if i.name not in weight_names and i.name not in shape_inputs]
    del g.input[:]
    g.input.extend(graph_inputs)
    feeds = {}
    for inp in graph_inputs:
        dims = [d.dim_value for d in inp.type.tensor_type.shape.dim]
        feeds[inp.name] = rng.standard_normal(dims).astype("float32")
    # IR version 4 on: initializers need not be graph inputs (here they are weights, not inputs).
    model.ir_version = max(model.ir_version, 4)
    onnx.checker.check_model(model)
    return model, feeds
