"""Legalization of the nn (conv, pooling, batch_norm, dropout, pad), indexing (split,
strided_slice, take, gather, broadcast_to, tile) and creation operators to TE (tvm.topi),
registered in LegalizeOps' table."""

import numpy as np

from ... import topi
from ...topi import activation, creation, indexing, nn_conv, normalization, pooling
from ...topi._layout import transpose_from, transpose_to
from .. import expr as _expr
from .legalize_f16 import in_float32
from .legalize_ops import _attr, register_legalize

_DATA = {1: "NCW", 2: "NCHW", 3: "NCDHW"}
_KERNEL = {1: "OIW", 2: "OIHW", 3: "OIDHW"}


def _ints(v):
    return None if v is None else [int(a) for a in v]


def _is_f16(x):
    return str(x.struct_info.dtype) == "float16"


def _conv_legalize(nsp):
    def legalize(bb, call):
        dl = str(_attr(call, "data_layout", _DATA[nsp]))
        kl = str(_attr(call, "kernel_layout", _KERNEL[nsp]))
        ol = str(_attr(call, "out_layout", dl))
        od = _attr(call, "out_dtype")
        strides, padding = _ints(_attr(call, "strides")), _ints(_attr(call, "padding"))
        dilation, groups = _ints(_attr(call, "dilation")), int(_attr(call, "groups", 1))

        res = str(call.struct_info.dtype)
        # float16 data accumulates in float32 (in_float32), then becomes the result type
        acc = None if od is None or (res == "float16" and _is_f16(call.args[0])) else str(od)

        weight = call.args[1]
        depthwise = _depthwise_legalize(bb, call, nsp, dl, kl, ol, strides, padding, dilation, groups, acc, res)
        if depthwise is not None:
            return depthwise
        if groups == 1 and isinstance(weight, _expr.Constant) and _out_channels(weight, kl) >= CHANNELS_LAST_MIN_O:
            # Constant weight: transposed once, here, to (*kernel, I, O), and the convolution
            # computed channels-last (nn_conv.conv_channels_last), whose register tile runs
            # over (last spatial, O) like a matmul's. The input's layout change rides on the
            # padding copy; the output goes back to `ol` in a stage DefaultSchedule inlines.
            # (A float16 weight is widened here too, not in every call.)
            spatial = _KERNEL[nsp][2:]
            w = weight.data.numpy().transpose([kl.index(c) for c in spatial + "IO"])
            if _is_f16(call.args[0]) and str(w.dtype) == "float16":
                w = w.astype("float32")
            last = "N" + spatial + "C"
            out_sp = _static_spatial(call, ol, spatial)
            tile = _pixel_tile(out_sp, w.shape[-1])
            if tile is not None:
                # Static output: the product runs over flattened output pixels and output
                # channels padded to the register tile (nn_conv.conv_pixels_last), so no
                # tile is predicated; the weight's extra columns are zeros made here, once.
                pixels, o_pad = tile
                o = w.shape[-1]
                if o_pad != o:
                    w = np.concatenate([w, np.zeros(w.shape[:-1] + (o_pad - o,), w.dtype)], axis=-1)
                w = nn_conv.pack_conv_weight(w, _tile_cols(pixels, o_pad))  # each tile's weights contiguous

                def te_conv_px(x, w):
                    if dl == last and not any(padding):  # already the layout the product reads
                        padded = x
                    else:
                        padded = nn_conv.pad_channels_last(x, dl, padding[:nsp], padding[nsp:])
                    flat = nn_conv.conv_pixels_last(padded, w, out_sp, strides, dilation, pixels, acc)
                    return transpose_from(nn_conv.conv_pixels_unflatten(flat, out_sp, o), last, ol)
                return bb.call_te(in_float32(te_conv_px, res), call.args[0], _expr.const(w),
                                  primfunc_name_hint="conv%dd" % nsp)

            def te_conv_cl(x, w):
                padded = nn_conv.pad_channels_last(x, dl, padding[:nsp], padding[nsp:])
                out = nn_conv.conv_channels_last(padded, w, strides, dilation, acc)
                return transpose_from(out, last, ol)
            return bb.call_te(in_float32(te_conv_cl, res), call.args[0], _expr.const(w),
                              primfunc_name_hint="conv%dd" % nsp)

        def te_conv(x, w):
            out = nn_conv.conv(transpose_to(x, dl, _DATA[nsp]), transpose_to(w, kl, _KERNEL[nsp]),
                               strides, padding, dilation, groups, acc)
            return transpose_from(out, _DATA[nsp], ol)
        return bb.call_te(in_float32(te_conv, res), call.args[0], call.args[1], primfunc_name_hint="conv%dd" % nsp)
    return legalize


# Below this many output channels the channels-last tile (16 channels wide) would be mostly
# padding; the canonical layout's tile over (H, W) serves those convolutions better.
CHANNELS_LAST_MIN_O = 16


def _depthwise_legalize(bb, call, nsp, dl, kl, ol, strides, padding, dilation, groups, acc, res):
    """A depthwise convolution (groups = input channels = output channels) with a constant
    weight and static output: channels-last over flattened pixels (nn_conv.depthwise_pixels_last),
    the weight transposed to (*kernel, C) and padded to the tile's columns once, here. None
    when it does not apply."""
    weight = call.args[1]
    if groups == 1 or not isinstance(weight, _expr.Constant):
        return None
    w = weight.data.numpy()
    o, ipg = w.shape[kl.index("O")], w.shape[kl.index("I")]
    if ipg != 1 or o != groups:
        return _grouped_legalize(bb, call, nsp, dl, kl, ol, strides, padding, dilation, groups, acc, res)
    spatial = _KERNEL[nsp][2:]
    last = "N" + spatial + "C"
    out_sp = _static_spatial(call, ol, spatial)
    tile = _pixel_tile(out_sp, o)
    if tile is None:
        return None
    pixels, o_pad = tile
    w = w.transpose([kl.index(c) for c in spatial + "IO"]).reshape([w.shape[kl.index(c)] for c in spatial] + [o])
    if str(w.dtype) == "float16":
        w = w.astype("float32")
    if o_pad != o:
        w = np.concatenate([w, np.zeros(w.shape[:-1] + (o_pad - o,), w.dtype)], axis=-1)

    def te_depthwise(x, w):
        padded = nn_conv.pad_channels_last(x, dl, padding[:nsp], padding[nsp:], channels_to=o_pad)
        flat = nn_conv.depthwise_pixels_last(padded, w, out_sp, strides, dilation, pixels, acc)
        return transpose_from(nn_conv.conv_pixels_unflatten(flat, out_sp, o), last, ol)
    return bb.call_te(in_float32(te_depthwise, res), call.args[0], _expr.const(w),
                      primfunc_name_hint="conv%dd_depthwise" % nsp)


def _grouped_legalize(bb, call, nsp, dl, kl, ol, strides, padding, dilation, groups, acc, res):
    """A grouped convolution (ShuffleNet's group-4 1x1 convs) with a constant weight and static
    output: each group a product over flattened pixels x its output channels padded to the
    tile's columns (nn_conv.grouped_pixels_last), the weight rearranged to (G, *kernel, I, O_w)
    once, here. None when it does not apply."""
    w = call.args[1].data.numpy()
    spatial = _KERNEL[nsp][2:]
    out_sp = _static_spatial(call, ol, spatial)
    o = w.shape[kl.index("O")]
    if o % groups:
        return None
    opg = o // groups
    tile = _pixel_tile(out_sp, opg)
    if tile is None:
        return None
    pixels, opg_pad = tile
    w = w.transpose([kl.index(c) for c in "OI" + spatial])  # (O, I, *kernel)
    w = w.reshape((groups, opg) + w.shape[1:])  # (G, O/G, I, *kernel)
    w = w.transpose([0] + list(range(3, 3 + nsp)) + [2, 1])  # (G, *kernel, I, O/G)
    if str(w.dtype) == "float16":
        w = w.astype("float32")
    if opg_pad != opg:
        w = np.concatenate([w, np.zeros(w.shape[:-1] + (opg_pad - opg,), w.dtype)], axis=-1)
    last = "N" + spatial + "C"

    def te_grouped(x, w):
        if dl == last and not any(padding):  # already the layout the product reads: no copy
            padded = x
        else:
            padded = nn_conv.pad_channels_last(x, dl, padding[:nsp], padding[nsp:])
        flat = nn_conv.grouped_pixels_last(padded, w, out_sp, strides, dilation, pixels, acc)
        return transpose_from(nn_conv.conv_groups_unflatten(flat, out_sp, groups, opg), last, ol)
    return bb.call_te(in_float32(te_grouped, res), call.args[0], _expr.const(np.ascontiguousarray(w)),
                      primfunc_name_hint="conv%dd_grouped" % nsp)


def _channels_last(nsp):
    """The channels-last layout of an nsp-d operator: NWC, NHWC, NDHWC."""
    return "N" + _DATA[nsp][2:] + "C"


def _static_spatial(call, layout, spatial):
    """The output's spatial extents (in `spatial` letter order) when all are static, else None."""
    shape = call.struct_info.shape
    if shape is None:
        return None
    dims = []
    for c in spatial:
        e = shape[layout.index(c)]
        if not hasattr(e, "value"):
            return None
        dims.append(int(e.value))
    return dims


def _pixel_tile(out_spatial, out_channels):
    """(pixels, padded output channels) for nn_conv.conv_pixels_last: the flattened pixel
    count rounded up to the register tile's rows (DefaultSchedule's tile_shape for this
    target; 4 when that pads a quarter less) and the channels to its columns. None for symbolic
    spatial extents (the channels-last form without flattening serves those)."""
    from ...target import Target
    from .default_schedule import narrow_cols, tile_shape

    if out_spatial is None:
        return None
    target = Target.current()
    if target is not None and target.is_device:
        return None
    npix = int(np.prod(out_spatial))
    lanes = (target or Target("llvm")).fp32_lanes
    rows, _ = tile_shape(lanes, None, None)
    rows, cols = tile_shape(lanes, rows * 4, -(-out_channels // 16) * 16)
    # AVX2 only: on AVX-512 the 16 x 8 tile narrow_cols gives 8/24 columns ran ShuffleNet's
    # 24-channel stem conv 2.5x slower than the 8 x 32 tile over channels padded to 32.
    narrow = narrow_cols(lanes, -(-out_channels // 8) * 8) if lanes == 8 else None
    if narrow:  # the 12 x 8 tile DefaultSchedule gives such a product (tile_shape)
        rows, cols = tile_shape(lanes, 12 * narrow, narrow)
    if npix <= rows:
        return npix, -(-out_channels // cols) * cols
    pixels = -(-npix // rows) * rows
    if rows > 4 and pixels > 1.25 * npix:  # a short image: fewer rows pad less
        pixels = min(pixels, -(-npix // 4) * 4)
    return pixels, -(-out_channels // cols) * cols


def _tile_cols(rows, cols):
    """The register tile's column count DefaultSchedule gives a (rows x cols) product on the
    current target (the packed weights' panel width must be it)."""
    from ...target import Target
    from .default_schedule import tile_shape

    return tile_shape((Target.current() or Target("llvm")).fp32_lanes, rows, cols)[1]


def _out_channels(weight, kernel_layout):
    return int(weight.data.shape[kernel_layout.index("O")])


def _pool_legalize(nsp, kind):
    def legalize(bb, call):
        layout = str(_attr(call, "layout", _DATA[nsp]))
        ol = str(_attr(call, "out_layout", layout))
        args = dict(pool_size=_ints(_attr(call, "pool_size")), strides=_ints(_attr(call, "strides")),
                    padding=_ints(_attr(call, "padding")), dilation=_ints(_attr(call, "dilation")),
                    ceil_mode=bool(_attr(call, "ceil_mode", False)),
                    count_include_pad=bool(_attr(call, "count_include_pad", False)))

        last = _channels_last(nsp)

        def te_pool(x):
            if layout == last and ol == last:  # channels-last (ConvertLayout): no transposes
                return pooling.pool(x, kind, channels_last=True, **args)
            out = pooling.pool(transpose_to(x, layout, _DATA[nsp]), kind, **args)
            return transpose_from(out, _DATA[nsp], ol)
        fn = in_float32(te_pool) if kind == "avg" else te_pool
        return bb.call_te(fn, call.args[0], primfunc_name_hint="%s_pool%dd" % (kind, nsp))
    return legalize


def _adaptive_legalize(nsp):
    def legalize(bb, call):
        layout = str(_attr(call, "layout", _DATA[nsp]))
        ol = str(_attr(call, "out_layout", layout))
        size = _ints(_attr(call, "output_size"))

        last = _channels_last(nsp)

        def te_pool(x):
            if layout == last and ol == last:
                return pooling.adaptive_avg_pool(x, size, channels_last=True)
            out = pooling.adaptive_avg_pool(transpose_to(x, layout, _DATA[nsp]), size)
            return transpose_from(out, _DATA[nsp], ol)
        return bb.call_te(in_float32(te_pool), call.args[0], primfunc_name_hint="adaptive_avg_pool%dd" % nsp)
    return legalize


for _n in (1, 2, 3):
    register_legalize("relax.nn.conv%dd" % _n, _conv_legalize(_n))
    register_legalize("relax.nn.max_pool%dd" % _n, _pool_legalize(_n, "max"))
    register_legalize("relax.nn.avg_pool%dd" % _n, _pool_legalize(_n, "avg"))
    register_legalize("relax.nn.adaptive_avg_pool%dd" % _n, _adaptive_legalize(_n))
del _n


@register_legalize("relax.nn.batch_norm")
def _batch_norm(bb, call):
    return bb.call_te(in_float32(normalization.batch_norm), *call.args, axis=int(_attr(call, "axis", 1)),
                      epsilon=float(_attr(call, "epsilon", 1e-5)), center=bool(_attr(call, "center", True)),
                      scale=bool(_attr(call, "scale", True)), momentum=float(_attr(call, "momentum", 0.1)),
                      training=bool(_attr(call, "training", True)), primfunc_name_hint="batch_norm")


@register_legalize("relax.nn.dropout")
def _dropout(bb, call):
    return bb.call_te(normalization.dropout_inference, call.args[0], primfunc_name_hint="dropout")


@register_legalize("relax.nn.pad")
def _pad(bb, call):
    return bb.call_te(indexing.pad, call.args[0], pad_width=_ints(_attr(call, "pad_width")),
                      pad_mode=str(_attr(call, "pad_mode", "constant")),
                      pad_value=float(_attr(call, "pad_value", 0.0)), primfunc_name_hint="pad")


@register_legalize("relax.split")
def _split(bb, call):
    ios = _attr(call, "indices_or_sections")
    ios = int(ios) if isinstance(ios, int) else _ints(ios)
    if ios == 1 or ios == []:  # one part: the input itself, as a 1-tuple (call_tir would not make one)
        from ..expr import Tuple
        return Tuple([call.args[0]])
    return bb.call_te(indexing.split, call.args[0], indices_or_sections=ios, axis=int(_attr(call, "axis", 0)),
                      primfunc_name_hint="split")


@register_legalize("relax.strided_slice")
def _strided_slice(bb, call):
    axes = _ints(_attr(call, "axes"))
    strides = _ints(_attr(call, "strides")) or [1] * len(axes)
    def values(v):
        return [a if not isinstance(a, int) else int(a) for a in v]
    return bb.call_te(indexing.strided_slice, call.args[0], axes=axes, begin=values(_attr(call, "begin")),
                      end=values(_attr(call, "end")), strides=strides,
                      out_shape=list(call.struct_info.shape), primfunc_name_hint="strided_slice")


@register_legalize("relax.take")
def _take(bb, call):
    axis = _attr(call, "axis")
    return bb.call_te(indexing.take, call.args[0], call.args[1], axis=None if axis is None else int(axis),
                      mode=str(_attr(call, "mode", "fast")), primfunc_name_hint="take")


@register_legalize("relax.gather_elements")
def _gather_elements(bb, call):
    return bb.call_te(indexing.gather_elements, call.args[0], call.args[1], axis=int(_attr(call, "axis", 0)),
                      primfunc_name_hint="gather_elements")


@register_legalize("relax.gather_nd")
def _gather_nd(bb, call):
    return bb.call_te(indexing.gather_nd, call.args[0], call.args[1],
                      batch_dims=int(_attr(call, "batch_dims", 0)), primfunc_name_hint="gather_nd")


@register_legalize("relax.broadcast_to")
def _broadcast_to(bb, call):
    return bb.call_te(indexing.broadcast_to, call.args[0], shape=list(call.struct_info.shape),
                      primfunc_name_hint="broadcast_to")


@register_legalize("relax.tile")
def _tile(bb, call):
    return bb.call_te(indexing.tile, call.args[0], repeats=_ints(_attr(call, "repeats")), primfunc_name_hint="tile")


def _const_fill(value):
    def legalize(bb, call):
        sinfo = call.struct_info
        shape, dtype = list(sinfo.shape), str(sinfo.dtype)
        return bb.call_te(lambda: creation.full(shape, dtype, value), primfunc_name_hint="full")
    return legalize


for _name, _v in (("zeros", 0), ("ones", 1), ("zeros_like", 0), ("ones_like", 1)):
    register_legalize("relax." + _name, _const_fill(_v))
del _name, _v


def _tensor_fill(bb, call):
    sinfo = call.struct_info
    shape, dtype = list(sinfo.shape), str(sinfo.dtype)
    return bb.call_te(lambda v: creation.full(shape, dtype, v), call.args[1], primfunc_name_hint="full")


register_legalize("relax.full", _tensor_fill)
register_legalize("relax.full_like", _tensor_fill)


@register_legalize("relax.arange")
def _arange(bb, call):
    sinfo = call.struct_info
    dtype = str(sinfo.dtype)
    start, step = _attr(call, "start", 0), _attr(call, "step", 1)
    n = sinfo.shape[0]
    return bb.call_te(lambda: creation.arange(start, step, n, dtype), primfunc_name_hint="arange")


@register_legalize("relax.nn.selu")
def _selu(bb, call):
    return bb.call_te(activation.selu, call.args[0], primfunc_name_hint="selu")


@register_legalize("relax.nn.softplus")
def _softplus(bb, call):
    return bb.call_te(activation.softplus, call.args[0], beta=float(_attr(call, "beta", 1.0)),
                      threshold=float(_attr(call, "threshold", 20.0)), primfunc_name_hint="softplus")


@register_legalize("relax.nn.prelu")
def _prelu(bb, call):
    return bb.call_te(activation.prelu, call.args[0], call.args[1], axis=int(_attr(call, "axis", 1)),
                      primfunc_name_hint="prelu")


__all__ = ["topi"]
