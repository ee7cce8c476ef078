"""Large initializers read once, and the model onnx's checker is given.

onnx.checker.check_model serializes the whole model and its C++ side parses the bytes again:
two copies of every weight (VGG-19's 548 MB: 1.9 s), and reading an initializer's raw_data
(what onnx.numpy_helper.to_array does) is a third. Here a large initializer's raw_data is read
once: its bytes become the importer's array (np.frombuffer, a read-only view, as to_array
makes it), and the checker gets a copy of the model in which such an initializer is a
stand-in: its fields, but every dim 1 and one element of data.

The checker's verdict on an initializer depends on its dims and data size only through
"raw_data too small for the dims", "a negative dim" and "0 elements but data" (its other
checks read the fields the stand-in keeps; full_check is not used). A tensor that would fail
one of those is left whole, so the checker sees it and its message is the one raised.
"""

import sys

import numpy as np

# Below this many bytes of data an initializer is left as it is (a small model pays nothing).
# 64 KB: BERT-class 384 x 384 weights (0.6 MB) are stand-ins too; from_onnx best of 7,
# limit 1 MB -> 64 KB: BERT 6x384 34.7 -> 28.6 ms, ResNet-50 60.6 -> 51.1, SqueezeNet 15.2 ->
# 13.9 (4 KB gained nothing more).
_LARGE = 1 << 16

# Element types stored one element per fixed number of bytes in raw_data (not the 2-, 4- and
# 6-bit packed ones, not strings): TensorProto.DataType -> bytes per element.
_ITEMSIZE = {1: 4, 2: 1, 3: 1, 4: 2, 5: 2, 6: 4, 7: 8, 9: 1, 10: 2, 11: 8, 12: 4, 13: 8, 16: 2}


def _is_large(t):
    from onnx import TensorProto

    if sys.byteorder != "little" or t.data_type not in _ITEMSIZE or not t.HasField("raw_data") \
            or t.data_location == TensorProto.EXTERNAL or t.HasField("segment"):
        return False
    n = _ITEMSIZE[t.data_type]
    for d in t.dims:
        if d < 1:
            return False
        n *= d
    return n >= _LARGE


def _copy_fields(src, dst, skip):
    """dst gets every field of src that is set, except those named in `skip`."""
    for f in src.DESCRIPTOR.fields:
        if f.name in skip:
            continue
        value = getattr(src, f.name)
        # protobuf >= 6 names it is_repeated (and dropped `label` from upb's descriptors)
        repeated = f.is_repeated if hasattr(f, "is_repeated") else f.label == f.LABEL_REPEATED
        if repeated:
            if len(value):
                getattr(dst, f.name).extend(value)
        elif src.HasField(f.name):
            if f.message_type is not None:
                getattr(dst, f.name).CopyFrom(value)
            else:
                setattr(dst, f.name, value)


def split_large(model):
    """(the model to give the checker, {index in model.graph.initializer: raw bytes}): the
    model itself and {} when no initializer is large."""
    import onnx

    graph = model.graph
    raws = {}
    for i, t in enumerate(graph.initializer):
        if _is_large(t):
            raw = t.raw_data
            need = _ITEMSIZE[t.data_type]
            for d in t.dims:
                need *= d
            if len(raw) >= need:
                raws[i] = raw
    if not raws:
        return model, raws
    light = onnx.ModelProto()
    _copy_fields(model, light, ("graph",))
    _copy_fields(graph, light.graph, ("initializer",))
    for i, t in enumerate(graph.initializer):
        if i not in raws:
            light.graph.initializer.append(t)
            continue
        stand_in = light.graph.initializer.add()
        _copy_fields(t, stand_in, ("raw_data", "dims"))
        stand_in.dims.extend([1] * len(t.dims))
        stand_in.raw_data = raws[i][:_ITEMSIZE[t.data_type]]
    return light, raws


def to_array(t, raw=None):
    """onnx.numpy_helper.to_array(t), from `raw` (t's raw_data, read by split_large) if given."""
    from onnx import helper, numpy_helper

    try:
        np_dtype = helper.tensor_dtype_to_np_dtype(t.data_type)
    except KeyError:  # onnx's checker lets an unknown element type through; to_array's KeyError
        raise TypeError("from_onnx: initializer %r has element type %d, which ONNX does not define"
                        % (t.name, t.data_type)) from None
    if raw is None:
        return numpy_helper.to_array(t)
    return np.frombuffer(raw, dtype=np_dtype).reshape(tuple(t.dims))
