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
