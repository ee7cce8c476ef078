"""The apache-tvm side of model_bench.py, run by the peer's own interpreter (a throwaway venv
with apache-tvm 0.27: its `tvm` package would clash with ours in one process).

    /tmp/tvmref/bin/python benchmarks/apache_tvm_peer.py model.onnx inputs.npz out.npz REPEAT

Imports the ONNX model with apache-tvm's own frontend (shapes fixed to the inputs'),
compiles it with `tvm.compile(mod, target={"kind": "llvm", "mcpu": <host>})` (its default Relax
pipeline: what a user gets without tuning), runs it on the CPU with TVM_NUM_THREADS from the
environment, writes the first output to out.npz and prints one JSON line:
{"compile_s": ..., "compile_cpu_s": ..., "ms": best-of-REPEAT latency} (compile: import and
build, wall and CPU seconds of the process and its children). REPEAT 0: compile only, no
"ms" and no output file.
"""

import json
import resource
import sys
import time

import numpy as np
import onnx
import tvm
from tvm import relax
from tvm.relax.frontend.onnx import from_onnx


def _best(fn, repeat):
    fn()
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best * 1e3


def _cpu_s():
    """CPU seconds of this process and its finished children (the C compiler's link)."""
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def main():
    model_path, inputs_path, out_path, repeat, mcpu = sys.argv[1:6]
    feeds = dict(np.load(inputs_path))
    model = onnx.load(model_path)
    t, cpu = time.time(), _cpu_s()
    mod = from_onnx(model, shape_dict={k: v.shape for k, v in feeds.items()})
    ex = tvm.compile(mod, target=tvm.target.Target({"kind": "llvm", "mcpu": mcpu}))
    compile_s, compile_cpu_s = time.time() - t, _cpu_s() - cpu
    if int(repeat) == 0:  # compile only (its unscheduled kernels take minutes a call on CNNs)
        print(json.dumps({"compile_s": compile_s, "compile_cpu_s": compile_cpu_s}))
        return
    vm = relax.VirtualMachine(ex, tvm.cpu())
    names = [i.name for i in model.graph.input if i.name in feeds]
    args = [tvm.runtime.tensor(feeds[n]) for n in names]
    out = vm["main"](*args)
    first = out if hasattr(out, "numpy") else out[0]
    np.savez(out_path, y=first.numpy())
    ms = _best(lambda: vm["main"](*args), int(repeat))
    print(json.dumps({"compile_s": compile_s, "compile_cpu_s": compile_cpu_s, "ms": ms}))


if __name__ == "__main__":
    main()
