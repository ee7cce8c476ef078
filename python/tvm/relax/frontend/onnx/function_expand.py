"""Operators that ONNX defines by a function body (Attention, RMSNormalization, RotaryEmbedding,
NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss, CenterCropPad, Swish, the window
functions, ...): a node of such an op without a converter of its own is replaced by the
nodes of its body, which the importer then converts one by one (nested function ops expand
the same way). onnxruntime runs ops it has no kernel for the same way; the backend suite's
`_expanded` cases are these bodies written out.

The body is the schema's function for the largest function version <= the model's opset,
or, for a context-dependent function (one whose body depends on the node's attributes and
input types, e.g. NLL's weight/ignore_index handling), the one onnx builds for this node.
The body's nodes are converted under the function's own opset imports.
"""

import itertools

_COUNTER = itertools.count()


def schema_for(node, opset):
    """The op's schema at `opset`, or None when onnx does not define it."""
    import onnx.defs

    try:
        return onnx.defs.get_schema(node.op_type, opset, node.domain or "")
    except Exception:  # noqa: BLE001 - onnx raises SchemaError for unknown ops
        return None


def _best(versions, opset):
    ok = [v for v in versions if v <= opset]
    return max(ok) if ok else None


def has_body(node, opset):
    """Whether the node can be expanded into its function body."""
    s = schema_for(node, opset)
    if s is None:
        return False
    return (_best(s.function_opset_versions, opset) is not None
            or _best(s.context_dependent_function_opset_versions, opset) is not None)


def _type_proto(dtype, shape):
    from onnx import helper

    elem = helper.np_dtype_to_tensor_dtype(__import__("numpy").dtype(dtype)) if dtype else 0
    return helper.make_tensor_type_proto(elem, shape)


def expand(node, opset, input_types):
    """(nodes, {domain: version}) of the node's body, names made unique, attributes bound.

    input_types: per node input, (dtype, shape or None) or None for an absent input; the
    context-dependent builders read them (e.g. to make constants of the input's type).
    """
    from onnx import AttributeProto, FunctionProto, NodeProto, TypeProto

    schema = schema_for(node, opset)
    fn = FunctionProto()
    v = _best(schema.context_dependent_function_opset_versions, opset)
    if v is not None:
        types = []
        for t in input_types:
            types.append(TypeProto() if t is None else _type_proto(*t))
        fn.ParseFromString(schema.get_context_dependent_function_with_opset_version(
            v, node.SerializeToString(), [t.SerializeToString() for t in types]))
    else:
        v = _best(schema.function_opset_versions, opset)
        fn.ParseFromString(schema.get_function_with_opset_version(v))

    # The node's attributes, with the schema's defaults for those it leaves out: a body
    # attribute that refers to one (ref_attr_name) takes its value.
    attrs = {a.name: a for a in node.attribute}
    for name, a in schema.attributes.items():
        if name not in attrs and a.default_value.name:
            attrs[name] = a.default_value

    prefix = "%s_%d__" % (node.name or node.op_type, next(_COUNTER))
    rename = {}
    for k, name in enumerate(fn.input):
        rename[name] = node.input[k] if k < len(node.input) else ""
    for k, name in enumerate(fn.output):
        if k < len(node.output) and node.output[k]:
            rename[name] = node.output[k]

    def new_name(n):
        if n == "":
            return ""
        return rename.get(n, prefix + n)

    out = []
    for inner in fn.node:
        n = NodeProto()
        n.CopyFrom(inner)
        n.ClearField("input")
        n.ClearField("output")
        n.ClearField("attribute")
        n.input.extend(new_name(i) for i in inner.input)
        n.output.extend(new_name(o) for o in inner.output)
        n.name = prefix + (inner.name or inner.op_type)
        for a in inner.attribute:
            if a.ref_attr_name:
                if a.ref_attr_name in attrs:
                    b = AttributeProto()
                    b.CopyFrom(attrs[a.ref_attr_name])
                    b.name = a.name
                    n.attribute.append(b)
            else:
                n.attribute.append(a)
                _rename_subgraphs(n.attribute[-1], new_name)
        out.append(n)
    opsets = {(o.domain or ""): o.version for o in fn.opset_import}
    return out, opsets


def _rename_subgraphs(attr, new_name):
    """Renames every value name inside a graph attribute (Scan's, If's, Loop's body) as the
    function's own nodes are renamed: the body refers to the function's values by name, and
    its own names get the same prefix, so they stay consistent and unique."""
    graphs = list(attr.graphs) + ([attr.g] if attr.HasField("g") else [])
    for g in graphs:
        for vi in list(g.input) + list(g.output) + list(g.value_info):
            vi.name = new_name(vi.name)
        for init in g.initializer:
            init.name = new_name(init.name)
        for node in g.node:
            ins, outs = [new_name(i) for i in node.input], [new_name(o) for o in node.output]
            del node.input[:]
            del node.output[:]
            node.input.extend(ins)
            node.output.extend(outs)
            for a in node.attribute:
                _rename_subgraphs(a, new_name)
