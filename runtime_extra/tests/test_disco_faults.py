"""Faults end in bounded time with a typed error and leave no process behind: a worker
raises, a worker process is killed mid-call, a worker stops answering, the controller dies."""

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from tvm.runtime import disco

from disco_testing import KINDS, alive, disco_workers, make_session


def _session(kind, n=3):
    sess = make_session(kind, n)
    sess.import_python_module("disco_faults_helper")
    sess._sync_all()
    return sess


@KINDS
def test_a_worker_raises_and_the_controller_gets_its_message_and_id(kind):
    with _session(kind) as sess:
        sess.get_global_func("tests.disco_faults.raise_on")(2)
        # Waiting for worker 2 (or all) is what guarantees its error has arrived; a wait on
        # another worker raises it only if it is already there.
        with pytest.raises(disco.DiscoWorkerError, match="boom on rank 2") as info:
            sess._sync_all()
        err = info.value
        assert (err.worker_id, err.kind, err.command) == (2, "ValueError", "call_packed")
        # The error is reported once; the session goes on.
        assert sess.get_global_func("tests.disco.add_one")(1).debug_get_from_remote(2) == 2
    assert not disco_workers()


def test_a_killed_worker_process_ends_the_wait_with_its_name():
    sess = _session("process")
    pids = sess.get_global_func("tests.disco_faults.pid")()
    victim = pids.debug_get_from_remote(1)
    sess.get_global_func("tests.disco_faults.sleep_on")(1, 60.0)  # worker 1 is mid-call
    time.sleep(0.2)
    os.kill(victim, signal.SIGKILL)
    start = time.monotonic()
    with pytest.raises(disco.DiscoWorkerLostError, match=r"worker 1 \(process %d\)" % victim):
        sess._sync_worker(1)
    assert time.monotonic() - start < 5
    # Broken from now on: every call says so at once.
    with pytest.raises(disco.DiscoWorkerLostError, match="unusable"):
        sess.sync_worker_0()
    sess.shutdown()
    assert not disco_workers()


@KINDS
def test_a_silent_worker_ends_the_wait_within_the_timeout(kind):
    sess = _session(kind, 2)
    sess.set_timeout(1.0)
    assert sess.timeout == 1.0
    sess.get_global_func("tests.disco_faults.sleep_on")(1, 8.0)
    start = time.monotonic()
    with pytest.raises(disco.DiscoTimeoutError, match="worker 1 .*did not answer sync_worker within 1"):
        sess._sync_worker(1)
    assert time.monotonic() - start < 3
    start = time.monotonic()
    sess.shutdown()  # bounded too: the stuck worker is abandoned (thread) or killed (process)
    assert time.monotonic() - start < 12
    assert not disco_workers()


_CONTROLLER = textwrap.dedent("""
    import sys, time
    import tvm
    from tvm.runtime import disco
    sess = disco.ProcessSession(3)
    sess.import_python_module("disco_faults_helper")
    pids = sess.get_global_func("tests.disco_faults.pid")()
    print(" ".join(str(pids.debug_get_from_remote(i)) for i in (1, 2)), flush=True)
    sess.get_global_func("tests.disco_faults.sleep_on")(-1, 120.0)  # workers busy, not reading
    time.sleep(120)
""")


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM])
def test_workers_exit_when_their_controller_is_killed(tmp_path, sig):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    proc = subprocess.Popen([sys.executable, "-c", _CONTROLLER], stdout=subprocess.PIPE, env=env,
                            cwd=os.path.dirname(os.path.abspath(__file__)))
    try:
        line = proc.stdout.readline().decode()
        pids = [int(p) for p in line.split()]
        assert len(pids) == 2, line
        assert all(alive(p) for p in pids)
    finally:
        proc.send_signal(sig)
        proc.wait(timeout=30)
    deadline = time.monotonic() + 10
    while any(alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not [p for p in pids if alive(p)], "workers outlived their controller"
