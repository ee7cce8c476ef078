"""Collectives over gloo match numpy: generated shapes, dtypes and ops (hypothesis), 2 and 4
workers, Threaded and Process sessions, num_groups 1 and 2, in_group both ways; the point to
point ops; bad input is a typed error; a worker killed in a collective ends the wait in
bounded time with no process left; without the plugin init_ccl says what to install."""

import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tvm
from tvm.runtime import disco

from disco_testing import disco_workers, make_session
from gloo_reference import DTYPES, OPS, assert_close, make_input, members, np_dtype, reduce

CONFIGS = [(kind, n, g) for kind in ("threaded", "process") for n in (2, 4) for g in (1, 2)]
EXAMPLES = settings(max_examples=30, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture])


@pytest.fixture(scope="module", params=CONFIGS, ids=lambda c: "%s-%dw-%dg" % c)
def sess(request):
    kind, n, g = request.param
    s = make_session(kind, n, g)
    s.set_timeout(60)
    s.import_python_module("disco_gloo_helper")
    s.init_ccl("gloo")
    yield s
    s.shutdown()
    assert not disco_workers()


def put(sess, arrays):
    """A DRef holding arrays[i] on worker i."""
    ref = sess.empty(arrays[0].shape, str(arrays[0].dtype))
    for i, a in enumerate(arrays):
        ref.debug_copy_from(i, a)
    return ref


def get(ref, worker):
    return ref.debug_get_from_remote(worker).numpy()


shapes = st.lists(st.integers(1, 5), min_size=1, max_size=3).map(tuple)
dtypes = st.sampled_from(DTYPES)
seeds = st.integers(0, 2**32 - 1)


def inputs(sess, shape, dtype, seed):
    rng = np.random.default_rng(seed)
    return [make_input(rng, shape, dtype) for _ in range(sess.num_workers)]


@EXAMPLES
@given(shape=shapes, dtype=dtypes, op=st.sampled_from(OPS), in_group=st.booleans(), seed=seeds)
def test_allreduce(sess, shape, dtype, op, in_group, seed):
    xs = inputs(sess, shape, dtype, seed)
    src, dst = put(sess, xs), sess.empty(shape, dtype)
    sess.allreduce(src, dst, op, in_group)
    n, g = sess.num_workers, sess.num_groups
    for i in range(n):
        expected = reduce([xs[j] for j in members(i, n, g, in_group)], op, dtype)
        assert_close(get(dst, i), expected, dtype, "%s on worker %d" % (op, i))
        # The ring reads `src` in place of copying it to `dst` first: it must stay as it was.
        np.testing.assert_array_equal(get(src, i), xs[i])


# Buffers of several ring segments per block (1 MB to 4 MB each, a short last one) and
# element counts that the ring's blocks do not divide evenly.
@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(n=st.sampled_from([(9 << 20) // 4 + 3, (17 << 20) // 4 + 1, 5, 1]),
       dtype=st.sampled_from(["float32", "int32"]), op=st.sampled_from(["sum", "max"]),
       seed=seeds)
def test_allreduce_of_large_and_uneven_buffers(sess, n, dtype, op, seed):
    xs = inputs(sess, (n,), dtype, seed)
    src, dst = put(sess, xs), sess.empty((n,), dtype)
    sess.allreduce(src, dst, op, False)
    expected = reduce(xs, op, dtype)
    for i in range(sess.num_workers):
        assert_close(get(dst, i), expected, dtype, "%s on worker %d" % (op, i))
        np.testing.assert_array_equal(get(src, i), xs[i])


@EXAMPLES
@given(shape=shapes, dtype=dtypes, in_group=st.booleans(), seed=seeds)
def test_allgather(sess, shape, dtype, in_group, seed):
    xs = inputs(sess, shape, dtype, seed)
    n, g = sess.num_workers, sess.num_groups
    k = len(members(0, n, g, in_group))
    dst = sess.empty((k * shape[0],) + shape[1:], dtype)
    sess.allgather(put(sess, xs), dst, in_group)
    for i in range(n):
        expected = np.concatenate([xs[j] for j in members(i, n, g, in_group)])
        np.testing.assert_array_equal(get(dst, i), expected)


@EXAMPLES
@given(shape=shapes, dtype=dtypes, in_group=st.booleans(), seed=seeds)
def test_broadcast_scatter_gather(sess, shape, dtype, in_group, seed):
    xs = inputs(sess, shape, dtype, seed)
    n, g = sess.num_workers, sess.num_groups
    k = len(members(0, n, g, in_group))
    src = put(sess, xs)
    # broadcast_from_worker0: every worker gets its leader's tensor.
    dst = sess.empty(shape, dtype)
    sess.broadcast_from_worker0(src, dst, in_group)
    for i in range(n):
        np.testing.assert_array_equal(get(dst, i), xs[members(i, n, g, in_group)[0]])
    # gather_to_worker0: the leader gets its members' tensors in order.
    big = sess.empty((k * shape[0],) + shape[1:], dtype)
    sess.gather_to_worker0(src, big, in_group)
    for i in range(0, n, k):
        np.testing.assert_array_equal(
            get(big, i), np.concatenate([xs[j] for j in members(i, n, g, in_group)]))
    # scatter_from_worker0: member r gets shard r of its leader's tensor.
    shards = [np.concatenate([make_input(np.random.default_rng(seed + j), shape, dtype)
                              for _ in range(k)]) for j in range(n)]
    part = sess.empty(shape, dtype)
    sess.scatter_from_worker0(put(sess, shards), part, in_group)
    for i in range(n):
        group = members(i, n, g, in_group)
        r = group.index(i)
        np.testing.assert_array_equal(get(part, i), shards[group[0]][r * shape[0]:(r + 1) * shape[0]])


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(shape=shapes, dtype=dtypes, seed=seeds, data=st.data())
def test_point_to_point(sess, shape, dtype, seed, data):
    n, g = sess.num_workers, sess.num_groups
    xs = inputs(sess, shape, dtype, seed)
    sender = data.draw(st.integers(0, n - 1))
    receiver = data.draw(st.integers(0, n - 1).filter(lambda r: r != sender))
    buf = put(sess, xs)
    sess.get_global_func("tests.disco_gloo.send_recv")(buf, sender, receiver)
    for i in range(n):
        np.testing.assert_array_equal(get(buf, i), xs[sender] if i == receiver else xs[i])
    buf = put(sess, xs)
    sess.get_global_func("tests.disco_gloo.from_worker0")(buf, receiver or 1)
    np.testing.assert_array_equal(get(buf, receiver or 1), xs[0])
    if g > 1:
        buf = put(sess, xs)
        sess.get_global_func("tests.disco_gloo.pipeline")(buf)
        size = n // g
        for i in range(n):
            np.testing.assert_array_equal(get(buf, i), xs[i % size])


def test_session_level_broadcast_and_scatter(sess):
    n = sess.num_workers
    x = np.arange(n * 6, dtype="float32").reshape(n, 2, 3)
    everywhere = sess.broadcast(x, in_group=False)
    mine = sess.scatter(x, in_group=False)
    for i in range(n):
        np.testing.assert_array_equal(get(everywhere, i), x)
        np.testing.assert_array_equal(get(mine, i), x[i])


def drain(sess):
    """Waits until every worker's error of the last command has been raised."""
    for _ in range(sess.num_workers):
        try:
            sess._sync_all()
            return
        except disco.DiscoWorkerError:
            pass


def test_bad_input_is_a_typed_error_and_the_session_goes_on(sess):
    a = sess.empty((4,), "float32")
    b = sess.empty((4,), "int32")
    with pytest.raises(disco.DiscoWorkerError, match="same dtype") as info:
        sess.allreduce(a, b, "sum")
        sess._sync_all()
    assert info.value.kind == "TypeError"
    drain(sess)
    c = sess.empty((5,), "float32")
    with pytest.raises(disco.DiscoWorkerError, match="elements") as info:
        sess.allreduce(a, c, "sum")
        sess._sync_all()
    assert info.value.kind == "ValueError"
    drain(sess)
    with pytest.raises(ValueError, match="op must be one of"):
        sess.allreduce(a, a, "mean")
    ok = put(sess, [np.full((4,), i, "float32") for i in range(sess.num_workers)])
    sess.allreduce(ok, a, "max", in_group=False)
    assert get(a, 0)[0] == sess.num_workers - 1


@pytest.mark.parametrize("kind", ["threaded", "process"])
def test_init_ccl_checks(kind):
    before = set(disco_workers())  # the module's sessions may still be alive
    with make_session(kind, 2) as s:
        with pytest.raises(disco.DiscoWorkerError, match="no collective library is initialised"):
            s.allreduce(s.empty((2,), "float32"), s.empty((2,), "float32"))
            s._sync_all()
        drain(s)
        with pytest.raises(ValueError, match="takes no device ids"):
            s.init_ccl("gloo", 0)
        with pytest.raises(ValueError, match="lowercase"):
            s.init_ccl("Gloo!")
        s.init_ccl("gloo")
        x = s.broadcast(np.ones(3, "float32"))
        s.allreduce(x, x, "sum")
        np.testing.assert_array_equal(get(x, 1), [2, 2, 2])
    assert set(disco_workers()) <= before


@pytest.mark.parametrize("num_workers", [2, 4])
def test_a_worker_killed_in_a_collective_ends_the_wait(num_workers):
    before = set(disco_workers())
    sess = make_session("process", num_workers)
    sess.set_timeout(30)
    sess.import_python_module("disco_gloo_helper")
    sess.import_python_module("disco_faults_helper")
    sess.init_ccl("gloo")
    pids = sess.get_global_func("tests.disco_faults.pid")()
    victim = pids.debug_get_from_remote(1)
    x = sess.broadcast(np.ones(1 << 14, "float32"))
    y = sess.empty((1 << 14,), "float32")
    sess.get_global_func("tests.disco_gloo.allreduce_loop")(x, y, 10**9)
    time.sleep(0.5)  # every worker is inside the loop of allreduces
    os.kill(victim, signal.SIGKILL)
    start = time.monotonic()
    with pytest.raises((disco.DiscoWorkerLostError, disco.DiscoWorkerError)):
        sess._sync_all()
    assert time.monotonic() - start < 10
    sess.shutdown()
    assert time.monotonic() - start < 20
    assert set(disco_workers()) <= before


def test_without_the_plugin_init_ccl_names_the_package(tmp_path):
    """The libraries copied to a folder without libtvm_disco_gloo.so: a clear ValueError."""
    lib = os.path.dirname(tvm.base.find_library("tvm_runtime_extra"))
    for name in ("libtvm_runtime.so", "libtvm_runtime_extra.so"):
        shutil.copy(os.path.join(lib, name), tmp_path / name)
    code = textwrap.dedent("""
        from tvm.runtime import disco
        with disco.ThreadedSession(2) as s:
            try:
                s.init_ccl("gloo")
            except ValueError as e:
                print("ERR", e)
    """)
    env = dict(os.environ, TVM_LIBRARY_PATH=str(tmp_path), TVM_USE_RUNTIME_LIB="1")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         timeout=60)
    assert "ERR collective library 'gloo' is not available" in out.stdout, out.stdout + out.stderr
    assert "libgloo-dev" in out.stdout
