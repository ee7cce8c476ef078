"""Shared by the real-model tests (test_real_models, test_vision_models, and vision_models.py
in the torchvision venv): flattening the VM's outputs, running an exported .so in a
runtime-only process, and comparing detector outputs as sets. numpy only at import (the
venv and the test interpreter both load it)."""

import os
import subprocess
import sys

import numpy as np


def flatten(value):
    """The VM returns a tensor or a (nested) tuple of tensors; numpy arrays in order."""
    if hasattr(value, "numpy"):
        return [value.numpy()]
    return [a for v in value for a in flatten(v)]


# A runtime-only process: loads the exported .so, runs "main" on the inputs of an .npz (in
# the order of its keys arr_0, arr_1, ...), saves every output into another .npz.
RUNTIME_ONLY = (
    "import sys, numpy as np, tvm, tvm_ffi\n"
    "from tvm.runtime.vm import VirtualMachine\n"
    "assert tvm.base.RUNTIME_ONLY\n"
    "vm = VirtualMachine(tvm_ffi.load_module(sys.argv[1]), tvm.cpu())\n"
    "feeds = np.load(sys.argv[2])\n"
    "args = [tvm.runtime.tensor(feeds['arr_%d' % i]) for i in range(len(feeds.files))]\n"
    "def flat(v):\n"
    "    return [v.numpy()] if hasattr(v, 'numpy') else [a for x in v for a in flat(x)]\n"
    "np.savez(sys.argv[3], *flat(vm['main'](*args)))\n")


def run_runtime_only(lib, feeds, tmp_path):
    """The outputs of library `lib` on `feeds` (numpy arrays), run by a process that loads
    only the runtime (TVM_USE_RUNTIME_LIB=1)."""
    np.savez(str(tmp_path / "rt_in.npz"), *feeds)
    proc = subprocess.run([sys.executable, "-c", RUNTIME_ONLY, lib, str(tmp_path / "rt_in.npz"),
                           str(tmp_path / "rt_out.npz")],
                          env=dict(os.environ, TVM_USE_RUNTIME_LIB="1", PYTHONPATH=os.pathsep.join(sys.path)),
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    out = np.load(str(tmp_path / "rt_out.npz"))
    return [out["arr_%d" % i] for i in range(len(out.files))]


def assert_runtime_only_matches(ex, feeds, first, tmp_path):
    """Exports the compiled module `ex` to one .so and runs it on `feeds` in a runtime-only
    process: its outputs must equal `first` (this process's outputs on the same feeds) bit
    for bit, since both run the same machine code."""
    lib = str(tmp_path / "model.so")
    ex.export_library(lib)
    again = run_runtime_only(lib, feeds, tmp_path)
    assert len(again) == len(first)
    for a, b in zip(again, first):
        np.testing.assert_array_equal(a, b)


def match_detections(got, want, score_tol, box_tol, what):
    """(boxes [n, 4], labels [n], scores [n]) of two runs: the same number of detections, each
    of `got` paired with its own detection of `want` of the same label, a score within
    score_tol and corners within box_tol pixels (a one-to-one pairing, nearest box first).
    Order is not compared: detections whose scores differ by less than the tolerance may
    come in either order. Returns the largest score and corner differences of the pairs."""
    gb, gl, gs = got
    wb, wl, ws = want
    assert gb.shape == wb.shape and gl.shape == wl.shape and gs.shape == ws.shape, (what, gb.shape, wb.shape)
    assert gb.dtype == wb.dtype and gl.dtype == wl.dtype and gs.dtype == ws.dtype, what
    assert np.all(np.diff(gs) <= score_tol), "%s: scores not in descending order" % what
    used = np.zeros(len(ws), bool)
    worst_score = worst_box = 0.0
    for i in range(len(gs)):
        dist = np.abs(wb - gb[i]).max(1)
        ok = np.flatnonzero(~used & (wl == gl[i]) & (np.abs(ws - gs[i]) <= score_tol) & (dist <= box_tol))
        assert ok.size, "%s: detection %d (label %d, score %.6f, box %s) has no match" % (
            what, i, gl[i], gs[i], gb[i])
        j = ok[np.argmin(dist[ok])]
        used[j] = True
        worst_score = max(worst_score, float(abs(ws[j] - gs[i])))
        worst_box = max(worst_box, float(dist[j]))
    return worst_score, worst_box
