"""ConvTranspose (opsets 1, 11): 1-d, 2-d and 3-d, strides, dilations, groups, pads,
output_padding, output_shape and auto_pad, with the pads and output extents onnx's
reference derives (onnx/reference/ops/op_conv_transpose.py):

- pads given (or none and no auto_pad): out = stride * (in - 1) + output_padding
  + (kernel - 1) * dilation + 1 - pad_begin - pad_end, unless output_shape names it;
- no pads but output_shape or SAME_*: total = stride * (in - 1) + output_padding
  + (kernel - 1) * dilation + 1 - out (out = in * stride for SAME_*), split evenly with the
  odd one at the end for SAME_UPPER, at the beginning otherwise.

The kernel (kernels/conv_transpose.py, shared with the torch frontend) is the gather form
of the transposed convolution.

The batch and spatial extents may be symbolic (a model exported with a dynamic batch or image
size): the output extents are then expressions of them. Channels and the kernel are static;
output_shape and SAME_* auto_pad with a symbolic spatial extent need the static form (their
pads depend on the extent) and raise NotImplementedError."""

from ... import op as R
from ..kernels.conv_transpose import conv_transpose
from .converters import Converter, register


@register("ConvTranspose")
class ConvTranspose(Converter):
    @classmethod
    def _impl_v1(cls, ctx, inputs, attrs):
        x, w = inputs[0], inputs[1]
        b = inputs[2] if len(inputs) > 2 else None
        from .... import tir

        xs, ws = ctx.shape_of(x), ctx.static_shape(w)
        if xs is None or ws is None or not isinstance(xs[1], tir.IntImm):
            raise NotImplementedError("ConvTranspose: input channels or weight of a shape unknown at import")
        # static extents as ints, symbolic ones (batch, image size) as PrimExprs
        xs = [int(d.value) if isinstance(d, tir.IntImm) else d for d in xs]
        sd = len(xs) - 2
        ins = xs[2:]
        symbolic = any(not isinstance(d, int) for d in ins)
        ks = [int(k) for k in attrs.get("kernel_shape", ws[2:])]
        strides = [int(s) for s in attrs.get("strides", [1] * sd)]
        dil = [int(d) for d in attrs.get("dilations", [1] * sd)]
        opad = [int(p) for p in attrs.get("output_padding", [0] * sd)][:sd]
        group = int(attrs.get("group", 1))
        auto_pad = attrs.get("auto_pad", "NOTSET")
        pads = attrs.get("pads")
        out_shape = attrs.get("output_shape")
        full = [strides[i] * (ins[i] - 1) + opad[i] + (ks[i] - 1) * dil[i] + 1 for i in range(sd)]
        if pads is None and (out_shape is not None or auto_pad in ("SAME_UPPER", "SAME_LOWER")):
            if symbolic:
                raise NotImplementedError("ConvTranspose: output_shape or auto_pad=%s with a spatial "
                                          "extent unknown at import" % auto_pad)
            out = [int(o) for o in out_shape] if out_shape is not None else \
                [ins[i] * strides[i] for i in range(sd)]
            out = out[-sd:]
            total = [full[i] - out[i] for i in range(sd)]
            begin = [t // 2 if auto_pad == "SAME_UPPER" else t - t // 2 for t in total]
        else:
            pads = [int(p) for p in (pads or [0] * (2 * sd))]
            begin = pads[:sd]
            out = [int(o) for o in out_shape][-sd:] if out_shape is not None else \
                [full[i] - pads[i] - pads[i + sd] for i in range(sd)]
        if xs[1] % group or ws[0] != xs[1]:
            raise ValueError("ConvTranspose: %d input channels, weight %s, group %d"
                             % (xs[1], ws, group))
        y = ctx.bb.emit_te(conv_transpose, x, w, strides=strides, dilations=dil, pads=begin,
                           out_sizes=out, group=group, primfunc_name_hint="conv_transpose")
        if b is not None:
            y = R.add(y, R.reshape(b, [1, -1] + [1] * sd))
        return y
