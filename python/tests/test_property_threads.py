"""Property: calls and callbacks from several threads at once give right results, no leaks."""

import threading

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import collect
from strategies import same_value, values
from tvm_ffi import function as ffi_function

SETTINGS = settings(max_examples=200, deadline=None)


@SETTINGS
@given(st.integers(1, 6), st.integers(1, 30), st.integers(-1000, 1000))
def test_native_threads_call_python(mod, nthreads, ncalls, offset):
    pair = mod.make_pair(1, 2, False)
    collect()
    before = pair.__tvm_ffi_use_count__, len(ffi_function._CALLBACKS)

    def f(t, k):
        assert mod.echo(pair).same_as(pair)  # calls back into C from the native thread
        return t * 100000 + k + offset

    expected = sum(t * 100000 + k + offset for t in range(nthreads) for k in range(ncalls))
    assert mod.call_from_threads(f, nthreads, ncalls) == expected
    del f
    collect()
    assert (pair.__tvm_ffi_use_count__, len(ffi_function._CALLBACKS)) == before


@SETTINGS
@given(st.lists(values(containers=False), min_size=1, max_size=4), st.integers(2, 4))
def test_python_threads_echo(mod, items, nthreads):
    errors = []

    def worker():
        try:
            for _ in range(5):
                for v in items:
                    assert same_value(v, mod.echo(v))
                    assert same_value(v, mod.apply(lambda x: x, v))
        except BaseException as e:  # reported after join
            errors.append(e)

    threads = [threading.Thread(target=worker) for _ in range(nthreads)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors[0]


@settings(max_examples=50, deadline=None)
@given(st.lists(st.integers(-2**63, 2**63 - 1), min_size=1, max_size=6), st.integers(2, 6))
def test_shape_first_passed_from_several_threads(mod, dims, nthreads):
    """A Shape made in Python gets its backing ffi.Shape on first use and passes it borrowed:
    threads racing on that first use must not replace it under another thread's call (that
    freed the object mid-call: wrong values or an abort)."""
    import tvm_ffi

    errors = []
    for _ in range(20):
        shape = tvm_ffi.Shape(dims)
        start = threading.Barrier(nthreads)

        def worker():
            try:
                start.wait()
                for _ in range(3):
                    got = mod.echo(shape)
                    assert isinstance(got, tvm_ffi.Shape) and tuple(got) == tuple(dims), got
            except BaseException as e:  # reported after join
                errors.append(e)

        threads = [threading.Thread(target=worker) for _ in range(nthreads)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not errors, errors[0]


@settings(max_examples=10, deadline=None)
@given(st.lists(st.tuples(st.integers(-2**63, 2**63 - 1), st.integers(-2**63, 2**63 - 1)),
                min_size=2, max_size=6))
def test_field_reads_from_several_threads_see_their_own_object(mod, pairs):
    """Field reads take a result slot each from a shared list: threads reading at once (the
    switch interval made tiny so they interleave between any two bytecodes) each get the
    fields of the object they read, never another thread's."""
    import sys

    objs = [mod.make_pair(a, b, False) for a, b in pairs]
    errors = []
    start = threading.Barrier(len(objs))

    def worker(obj, a, b):
        try:
            start.wait()
            for _ in range(5000):  # a shared slot failed within ~30000 reads a thread
                assert (obj.a, obj.b) == (a, b)
        except BaseException as e:  # reported after join
            errors.append(e)

    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        threads = [threading.Thread(target=worker, args=(o, a, b)) for o, (a, b) in zip(objs, pairs)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(old)
    assert not errors, errors[0]
