"""Helpers of the Disco tests: session factories and process bookkeeping."""

import os

import pytest

import tvm
from tvm.runtime import disco


def make_session(kind, num_workers, num_groups=1):
    if kind == "threaded":
        sess = disco.ThreadedSession(num_workers, num_groups)
    else:
        sess = disco.ProcessSession(num_workers, num_groups)
    # Worker 0 is a thread of this process: it needs the test functions too.
    sess.import_python_module("tvm.exec.disco_worker")
    return sess


KINDS = pytest.mark.parametrize("kind", ["threaded", "process"])


def children_of(pid):
    """Pids whose parent is `pid` (from /proc)."""
    out = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % name) as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid and fields[0] != "Z":
            out.append(int(name))
    return out


def alive(pid):
    """Whether process `pid` exists and is not a zombie."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def disco_workers():
    """Live `tvm.exec.disco_worker` processes started by this process."""
    return [p for p in children_of(os.getpid()) if b"disco_worker" in _cmdline(p)]


def _cmdline(pid):
    try:
        with open("/proc/%d/cmdline" % pid, "rb") as f:
            return f.read()
    except OSError:
        return b""


assert tvm.base._LOADED_LIBS.get("tvm_runtime_extra") is not None
