"""The apache-tvm side of model_bench.py, run by the peer's own interpreter (a throwaway venv
with apache-tvm 0.27: its `tvm` package would clash with ours in one process).

    /tmp/tvmref/bin/python benchmarks/apache_tvm_peer.py model.onnx inputs.npz out.npz REPEAT

Imports the ONNX model with apache-tvm's own frontend (shapes fixed to the inputs'),
compiles it with `tvm.compile(mod, target={"kind": "llvm", "mcpu": <host>})` (its default Relax
pipeline: what a user gets without tuning), creates the VM, runs it on the CPU with
TVM_NUM_THREADS from the environment, writes the first output to out.npz and prints one JSON
line: {"compile_s": ..., "build_s": ..., "compile_cpu_s": ..., "ms": best-of-REPEAT latency}.
compile_s (and compile_cpu_s, CPU seconds of the process and its children) runs to a
runnable model: import, build and VM creation. apache-tvm's build stops at optimised LLVM
IR; its machine code is generated when a kernel is first looked up, i.e. when the VM is
created (MLP 784-512-512-10: tvm.compile 0.10-0.12 s, VM creation 0.13-0.15 s, its
assembly alone 0.15 s), so the build call alone (build_s: import and tvm.compile) leaves
out LLVM's code generation, which ours does inside relax.build. REPEAT 0: compile (to the
VM) only: no "ms" and no output file.
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
    build_s = time.time() - t
    vm = relax.VirtualMachine(ex, tvm.cpu())  # LLVM's code generation (see the module's doc)
    times = {"compile_s": time.time() - t, "build_s": build_s, "compile_cpu_s": _cpu_s() - cpu}
    if int(repeat) == 0:  # compile only (its unscheduled kernels take minutes a call on CNNs)
        print(json.dumps(times))
        return
    names = [i.name for i in model.graph.input if i.name in feeds]
    args = [tvm.runtime.tensor(feeds[n]) for n in names]
    out = vm["main"](*args)
    first = out if hasattr(out, "numpy") else out[0]
    np.savez(out_path, y=first.numpy())
    ms = _best(lambda: vm["main"](*args), int(repeat))
    print(json.dumps(dict(times, ms=ms)))


if __name__ == "__main__":
    main()
