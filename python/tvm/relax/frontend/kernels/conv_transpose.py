"""The transposed convolution as one TE kernel, for ONNX ConvTranspose
(onnx/converters_conv_transpose.py) and torch conv_transpose1d/2d/3d (torch/aten_nn_extra.py):
the gather form, output position y takes input position x = (y + pad_begin - k * dilation)
/ stride wherever that divides exactly and lies inside the input, summed over the group's
input channels and the kernel taps. The batch and spatial extents may be symbolic; channels
and the kernel are static. The callers derive the pads and output extents."""


def conv_transpose(x, w, *, strides, dilations, pads, out_sizes, group):
    """x (N, C, *spatial) transposed-convolved with w (C, M / group, *kernel): `pads` are the
    leading pads, `out_sizes` the output's spatial extents (ints or PrimExprs)."""
    from .... import te, tir

    n, c = x.shape[0], int(x.shape[1])
    mg = int(w.shape[1])
    cg = c // group
    ks = [int(k) for k in w.shape[2:]]
    ins = list(x.shape[2:])
    sd = len(ks)
    dt = str(x.dtype)

    def i64(v):
        return tir.const(int(v), "int64")

    def f(b, m, *y):
        rc = te.reduce_axis((0, i64(cg)), "rc")
        rk = [te.reduce_axis((0, i64(k)), "rk%d" % i) for i, k in enumerate(ks)]
        g = m // mg
        ci = g * cg + rc
        src, ok = [], []
        for i in range(sd):
            # int64 throughout (the output's extents and the reduce axes may differ)
            num = tir.Cast("int64", y[i]) + pads[i] - tir.Cast("int64", rk[i]) * dilations[i]
            xi = tir.floordiv(num, strides[i])
            ok += [num >= 0, tir.EQ(tir.floormod(num, strides[i]), tir.const(0, "int64")),
                   xi < ins[i]]
            src.append(tir.Select(tir.all(*ok[-3:]), xi, tir.const(0, "int64")))
        xv = x[(b, ci) + tuple(src)]
        wv = w[(ci, m - g * mg) + tuple(rk)]
        return te.sum(tir.Select(tir.all(*ok), xv * wv, tir.const(0, dt)), axis=[rc] + rk)
    # every loop int64: the default schedule's tiling fuses and splits them together
    shape = [n, i64(mg * group)] + [i64(o) if isinstance(o, int) else tir.Cast("int64", o) for o in out_sizes]
    return te.compute(shape, f, name="conv_transpose")
