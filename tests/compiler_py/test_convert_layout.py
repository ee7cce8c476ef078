"""relax.transform.ConvertLayout and what it leads to: CNNs channels-last end to end (NHWC
convolutions over flattened, padded pixel tiles; NHWC pooling and concat), checked against
the unconverted module built with LegalizeOps only, on generated networks."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tvm
from tvm import relax, tir
from tvm.relax import op as R
from tvm.relax import transform as T

NHWC = {"relax.nn.conv2d": ["NHWC", "default"]}


def outputs(mod, x, pipeline):
    vm = relax.VirtualMachine(relax.build(mod, "llvm", relax_pipeline=pipeline), tvm.cpu())
    return vm["main"](tvm.runtime.tensor(x)).numpy()


def bindings(mod):
    return [b for block in mod["main"].body.blocks for b in block.bindings]


def calls(mod, name):
    return [b.value for b in bindings(mod)
            if isinstance(b.value, relax.Call) and isinstance(b.value.op, relax.Op) and str(b.value.op.name) == name]


def fire_net(rng, batch, hw, cin=3):
    """SqueezeNet's shape of network: a stem conv + bias + relu, max pool, a fire module
    (1x1 squeeze, then 1x1 and 3x3 expands concatenated), a residual add, global average
    pool, flatten."""
    n = batch if isinstance(batch, int) else tir.Var("n", "int64")
    x = relax.Var("x", relax.TensorStructInfo([n, cin, hw, hw], "float32"))

    def w(o, i, k):
        return relax.const((rng.standard_normal((o, i, k, k)) / np.sqrt(i * k * k)).astype("float32"))

    def bias(o):
        return relax.const(rng.standard_normal((1, o, 1, 1)).astype("float32") * 0.1)

    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        with bb.dataflow():
            y = bb.emit(R.nn.conv2d(x, w(16, cin, 3), strides=2, padding=1))
            y = bb.emit(R.nn.relu(bb.emit(R.add(y, bias(16)))))
            y = bb.emit(R.nn.max_pool2d(y, pool_size=3, strides=2, ceil_mode=True))
            s = bb.emit(R.nn.relu(bb.emit(R.nn.conv2d(y, w(8, 16, 1)))))
            e1 = bb.emit(R.nn.relu(bb.emit(R.nn.conv2d(s, w(8, 8, 1)))))
            e3 = bb.emit(R.nn.relu(bb.emit(R.nn.conv2d(s, w(8, 8, 3), padding=1))))
            y = bb.emit(R.add(bb.emit(R.concat([e1, e3], axis=1)), y))
            y = bb.emit(R.nn.avg_pool2d(y, pool_size=2, strides=1, padding=1, count_include_pad=False))
            y = bb.emit(R.nn.adaptive_avg_pool2d(y, output_size=[1, 1]))
            out = bb.emit_output(R.reshape(y, [n, 16]))
        bb.emit_func_output(out)
    return bb.get()


def test_fire_net_runs_channels_last_between_its_edges():
    rng = np.random.default_rng(0)
    mod = fire_net(rng, 1, 17)
    new = T.ConvertLayout(NHWC)(mod)
    convs = calls(new, "relax.nn.conv2d")
    assert len(convs) == 4 and all(str(c.attrs["data_layout"]) == "NHWC" for c in convs)
    assert all(str(c.attrs["layout"]) == "NHWC" for c in calls(new, "relax.nn.max_pool2d"))
    assert int(calls(new, "relax.concat")[0].attrs["axis"]) == 3
    # One transpose in (the input), one out (before the reshape): none between the layers.
    assert len(calls(new, "relax.permute_dims")) == 2
    x = rng.standard_normal((1, 3, 17, 17)).astype("float32")
    want = outputs(mod, x, "zero")
    np.testing.assert_allclose(outputs(new, x, "zero"), want, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(outputs(mod, x, "default"), want, rtol=1e-4, atol=1e-5)


def test_dynamic_batch():
    rng = np.random.default_rng(1)
    mod = fire_net(rng, None, 15)
    ex = relax.build(mod, "llvm")
    vm = relax.VirtualMachine(ex, tvm.cpu())
    ref = relax.VirtualMachine(relax.build(mod, "llvm", relax_pipeline="zero"), tvm.cpu())
    for batch in (1, 3):
        x = tvm.runtime.tensor(rng.standard_normal((batch, 3, 15, 15)).astype("float32"))
        np.testing.assert_allclose(vm["main"](x).numpy(), ref["main"](x).numpy(), rtol=1e-4, atol=1e-5)


@settings(max_examples=40, deadline=None)
@given(data=st.data(), batch=st.integers(1, 2), hw=st.integers(3, 14), cin=st.integers(1, 5),
       cout=st.sampled_from([8, 16, 17, 24, 40]), k=st.sampled_from([1, 3]), stride=st.integers(1, 2),
       bias_rank=st.sampled_from([0, 1, 3, 4]), pool=st.sampled_from(["max", "avg", "none"]),
       kind=st.sampled_from(["dense", "depthwise", "grouped", "multiplier"]))
def test_generated_conv_chains_match_the_unconverted_module(data, batch, hw, cin, cout, k, stride,
                                                            bias_rank, pool, kind):
    """conv (dense, depthwise, grouped or depthwise with a channel multiplier; odd sizes, tails
    of the pixel and channel tiles) -> bias of any broadcast rank -> relu -> pooling -> conv
    -> a value read both channels-last and NCHW (sigmoid output and a reduction), built by
    the default pipeline vs LegalizeOps alone."""
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    pad = data.draw(st.integers(0, k // 2))
    groups = 1
    if kind == "depthwise":
        groups, cout = cin, cin
    elif kind == "grouped":
        groups, cin, cout = 3, 3 * cin, 3 * cout
    elif kind == "multiplier":
        groups, cout = cin, 2 * cin
    x = relax.Var("x", relax.TensorStructInfo([batch, cin, hw, hw], "float32"))
    w1 = relax.const(rng.standard_normal((cout, cin // groups, k, k)).astype("float32"))
    w2 = relax.const(rng.standard_normal((16, cout, 1, 1)).astype("float32"))
    bshape = {0: (), 1: (1,), 3: (cout, 1, 1), 4: (1, cout, 1, 1)}[bias_rank]
    b = relax.const(rng.standard_normal(bshape).astype("float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        with bb.dataflow():
            y = bb.emit(R.nn.conv2d(x, w1, strides=stride, padding=pad, groups=groups))
            y = bb.emit(R.nn.relu(bb.emit(R.add(y, b))))
            if pool == "max":
                y = bb.emit(R.nn.max_pool2d(y, pool_size=2, strides=1, padding=[0, 0, 1, 1]))
            elif pool == "avg":
                y = bb.emit(R.nn.avg_pool2d(y, pool_size=2, strides=2, ceil_mode=True))
            y = bb.emit(R.sigmoid(bb.emit(R.nn.conv2d(y, w2))))
            s = bb.emit(R.sum(y, axis=[1]))  # reads the NCHW copy
            out = bb.emit_output(relax.Tuple([y, s]))
        bb.emit_func_output(out)
    mod = bb.get()
    xs = rng.standard_normal((batch, cin, hw, hw)).astype("float32")

    def run(pipeline):
        vm = relax.VirtualMachine(relax.build(mod, "llvm", relax_pipeline=pipeline), tvm.cpu())
        return [o.numpy() for o in vm["main"](tvm.runtime.tensor(xs))]

    for got, want in zip(run("default"), run("zero")):
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


def test_other_requests_are_refused():
    with pytest.raises(ValueError, match="only relax.nn.conv2d"):
        T.ConvertLayout({"relax.nn.conv3d": ["NDHWC", "default"]})
    with pytest.raises(ValueError, match="NHWC"):
        T.ConvertLayout({"relax.nn.conv2d": ["NHWC", "OHWI"]})


def test_nchw_request_changes_nothing():
    mod = fire_net(np.random.default_rng(2), 1, 9)
    new = T.ConvertLayout({"relax.nn.conv2d": ["NCHW", "default"]})(mod)
    assert not calls(new, "relax.permute_dims")


@settings(max_examples=10, deadline=None)
@given(hw=st.integers(3, 9), c=st.sampled_from([16, 24]), scale=st.booleans(), center=st.booleans(),
       seed=st.integers(0, 1000))
def test_pre_activation_batch_norm_stays_channels_last(hw, c, scale, center, seed):
    """DenseNet's order: concat -> batch_norm -> relu -> conv. The batch norm (not after a
    conv, so not folded) becomes x * scale + shift channels-last: no transpose between the
    convolutions; the numbers are the unconverted module's."""
    rng = np.random.default_rng(seed)
    x = relax.Var("x", relax.TensorStructInfo([1, 3, hw, hw], "float32"))
    w1 = relax.const(rng.standard_normal((c, 3, 3, 3)).astype("float32"))
    w2 = relax.const(rng.standard_normal((c, 2 * c, 1, 1)).astype("float32"))
    stats = [relax.const((rng.random(2 * c) + 0.5).astype("float32")) for _ in range(4)]
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        with bb.dataflow():
            a = bb.emit(R.nn.conv2d(x, w1, padding=1))
            y = bb.emit(R.concat([a, bb.emit(R.nn.relu(a))], axis=1))
            bn = bb.emit(R.nn.batch_norm(y, *stats, axis=1, epsilon=1e-3, scale=scale, center=center,
                                         training=False))
            y = bb.emit(R.nn.relu(bb.emit(relax.TupleGetItem(bn, 0))))
            out = bb.emit_output(bb.emit(R.nn.conv2d(y, w2)))
        bb.emit_func_output(out)
    mod = bb.get()
    new = T.DeadCodeElimination()(T.ConvertLayout(NHWC)(mod))
    assert not calls(new, "relax.nn.batch_norm")
    assert len(calls(new, "relax.permute_dims")) == 2  # the input and the output
    xs = rng.standard_normal((1, 3, hw, hw)).astype("float32")
    want = outputs(mod, xs, "zero")
    np.testing.assert_allclose(outputs(new, xs, "zero"), want, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(outputs(mod, xs, "default"), want, rtol=1e-4, atol=1e-4)


def shuffle_net(rng, hw, groups, per_group, swap_axes=(0, 2, 1, 3, 4)):
    """ShuffleNet's unit: a grouped 1x1 conv, the channel shuffle (reshape to (N, g, C/g, H,
    W), swap the two channel axes, reshape back), a depthwise 3x3 conv."""
    c = groups * per_group
    x = relax.Var("x", relax.TensorStructInfo([1, c, hw, hw], "float32"))
    wg = relax.const((rng.standard_normal((c, per_group, 1, 1)) / np.sqrt(per_group)).astype("float32"))
    wd = relax.const((rng.standard_normal((c, 1, 3, 3)) / 3).astype("float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        with bb.dataflow():
            y = bb.emit(R.nn.relu(bb.emit(R.nn.conv2d(x, wg, groups=groups))))
            y = bb.emit(R.reshape(y, [1, groups, per_group, hw, hw]))
            y = bb.emit(R.permute_dims(y, list(swap_axes)))
            y = bb.emit(R.reshape(y, [1, c, hw, hw]))
            out = bb.emit_output(R.nn.conv2d(y, wd, padding=1, groups=c))
        bb.emit_func_output(out)
    return bb.get()


@settings(max_examples=10, deadline=None)
@given(hw=st.integers(2, 9), groups=st.integers(1, 4), per_group=st.integers(1, 6), seed=st.integers(0, 2**16))
def test_channel_shuffle_stays_channels_last(hw, groups, per_group, seed):
    rng = np.random.default_rng(seed)
    mod = shuffle_net(rng, hw, groups, per_group)
    new = relax.transform.DeadCodeElimination()(T.ConvertLayout(NHWC)(mod))
    # The shuffle swaps the last two axes of (N, H, W, g, C/g); besides it, one transpose in
    # (the input) and one out (the output): no NCHW copy in between.
    perms = [[int(a) for a in p.attrs["axes"]] for p in calls(new, "relax.permute_dims")]
    assert sorted(perms) == sorted([[0, 2, 3, 1], [0, 1, 2, 4, 3], [0, 3, 1, 2]])
    x = rng.standard_normal((1, groups * per_group, hw, hw)).astype("float32")
    want = outputs(mod, x, "zero")
    np.testing.assert_allclose(outputs(new, x, "zero"), want, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(outputs(mod, x, "default"), want, rtol=1e-4, atol=1e-5)


def test_other_reshapes_read_nchw():
    """A reshape / permute that is not the shuffle (here the spatial axes move) is left to read
    an NCHW copy, and still computes the same."""
    rng = np.random.default_rng(3)
    mod = shuffle_net(rng, 4, 2, 3, swap_axes=(0, 1, 2, 4, 3))
    new = T.ConvertLayout(NHWC)(mod)
    assert len(calls(new, "relax.reshape")) == 2
    x = rng.standard_normal((1, 6, 4, 4)).astype("float32")
    np.testing.assert_allclose(outputs(new, x, "zero"), outputs(mod, x, "zero"), rtol=1e-4, atol=1e-5)
