"""Models compiled with the Relax default pipeline vs onnxruntime vs apache-tvm 0.27, in one
run: compile time and latency (best of N) with 1 and 2 threads.

    PYTHONPATH=python python3 benchmarks/model_bench.py [--repeat 50] [--no-apache-tvm]

Models (ONNX, built by tests/compiler_py/test_onnx_frontend.py's builders):
  mlp        784-512-512-10 (Gemm, Relu, Softmax), batch 1 and 64
  encoder    a transformer encoder block, seq 128, d 256, 4 heads, FFN 1024 (MatMul, Softmax,
             LayerNormalization, Erf GELU, a mask)
  resnet     a ResNet-style CNN (conv-bn-relu, max pool, two residual blocks, global pool,
             Gemm) on 3x16x16, batch 8
Threads: ours through runtime.SetNumThreads, onnxruntime through intra_op_num_threads,
apache-tvm through TVM_NUM_THREADS (its process reads it at start).

apache-tvm 0.27 runs in a throwaway venv (APACHE_TVM_PYTHON, default /tmp/tvmref/bin/python,
created with `python3 -m venv /tmp/tvmref && /tmp/tvmref/bin/pip install
apache-tvm==0.27.0.post1 onnx` when missing) through benchmarks/apache_tvm_peer.py: its own
ONNX frontend and `tvm.compile(mod, "llvm -mcpu=<host>")`, i.e. its default pipeline without
tuning. Every output is checked against onnxruntime's.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "compiler_py"))


def _best(fn, repeat):
    fn()
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best * 1e3


def _peer_python():
    """The apache-tvm venv's interpreter, made on first use; None when it cannot be had."""
    py = os.environ.get("APACHE_TVM_PYTHON", "/tmp/tvmref/bin/python")
    if not os.path.exists(py) and "APACHE_TVM_PYTHON" not in os.environ:
        venv = os.path.dirname(os.path.dirname(py))
        subprocess.run([sys.executable, "-m", "venv", venv], check=False, capture_output=True)
        subprocess.run([py, "-m", "pip", "install", "-q", "apache-tvm==0.27.0.post1", "numpy", "onnx"],
                       check=False, capture_output=True)
    ok = os.path.exists(py) and subprocess.run([py, "-c", "import tvm, onnx"],
                                               capture_output=True).returncode == 0
    return py if ok else None


def apache_tvm(py, model, feeds, threads, repeat, tmp):
    """(compile_s, ms, output) of apache-tvm on `model`, or a string saying why there is none."""
    import llvmlite.binding as llvm

    mpath, ipath, opath = (os.path.join(tmp, n) for n in ("m.onnx", "in.npz", "out.npz"))
    with open(mpath, "wb") as f:
        f.write(model.SerializeToString())
    np.savez(ipath, **feeds)
    env = dict(os.environ, TVM_NUM_THREADS=str(threads))
    env.pop("PYTHONPATH", None)
    p = subprocess.run([py, os.path.join(HERE, "apache_tvm_peer.py"), mpath, ipath, opath, str(repeat),
                        llvm.get_host_cpu_name()], env=env, capture_output=True, text=True)
    if p.returncode != 0:
        return "failed: %s" % (p.stderr.strip().splitlines() or ["?"])[-1][:160]
    res = json.loads(p.stdout.strip().splitlines()[-1])
    return res["compile_s"], res["ms"], np.load(opath)["y"]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=50)
    parser.add_argument("--no-apache-tvm", action="store_true")
    args = parser.parse_args()

    import onnxruntime as ort
    import tvm
    import tvm_ffi
    from test_onnx_frontend import attention_block_model, mlp_model, resnet_model
    from tvm import relax
    from tvm.relax.frontend.onnx import from_onnx

    peer = None if args.no_apache_tvm else _peer_python()
    set_threads = tvm_ffi.get_global_func("runtime.SetNumThreads")
    rng = np.random.default_rng(0)
    cases = [
        ("mlp b1", mlp_model((784, 512, 512, 10)), {"x": rng.random((1, 784), "float32")}),
        ("mlp b64", mlp_model((784, 512, 512, 10)), {"x": rng.random((64, 784), "float32")}),
        ("encoder s128 d256", attention_block_model(seq=128, d=256, heads=4),
         {"x": rng.standard_normal((1, 128, 256)).astype("float32"), "mask": np.ones((1, 128), "float32")}),
        ("resnet b8", resnet_model(), {"x": rng.standard_normal((8, 3, 16, 16)).astype("float32")}),
    ]
    print("latency in ms, best of %d; ratio = ours / peer (below 1: ours faster)" % args.repeat)
    print("apache-tvm 0.27: %s" % ("measured (%s)" % peer if peer else "not measured"))
    head = "%-18s %-8s %9s | %9s %9s | %9s %9s"
    print(head % ("model", "compiler", "compile s", "1 thread", "ratio", "2 threads", "ratio"))
    with tempfile.TemporaryDirectory() as tmp:
        for name, model, feeds in cases:
            t = time.time()
            ex = relax.build(from_onnx(model), "llvm")
            compile_s = time.time() - t
            vm = relax.VirtualMachine(ex, tvm.cpu())
            inputs = [tvm.runtime.tensor(v) for v in feeds.values()]
            rows = {"ours": [compile_s], "ort": ["-"], "apache-tvm": ["-"]}
            for threads in (1, 2):
                so = ort.SessionOptions()
                so.intra_op_num_threads = threads
                so.inter_op_num_threads = 1
                sess = ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"])
                ref = sess.run(None, feeds)[0]
                set_threads(threads)
                np.testing.assert_allclose(vm["main"](*inputs).numpy(), ref, rtol=1e-3, atol=1e-3)
                ours = _best(lambda: vm["main"](*inputs), args.repeat)
                rows["ours"] += [ours, None]
                rows["ort"] += [_best(lambda: sess.run(None, feeds), args.repeat), ours]
                if peer:
                    res = apache_tvm(peer, model, feeds, threads, args.repeat, tmp)
                    if isinstance(res, str):
                        rows["apache-tvm"] += [res, None]
                    else:
                        np.testing.assert_allclose(res[2], ref, rtol=1e-3, atol=1e-3)
                        rows["apache-tvm"][0] = res[0]
                        rows["apache-tvm"] += [res[1], ours]
            for k, (who, r) in enumerate(rows.items()):
                if who == "apache-tvm" and not peer:
                    continue
                cells = [name if k == 0 else "", who, r[0] if isinstance(r[0], str) else "%.2f" % r[0]]
                for ms, mine in ((r[1], r[2]), (r[3], r[4])):
                    if isinstance(ms, str):
                        cells += [ms, ""]
                    else:
                        cells += ["%.3f" % ms, "" if mine is None else "%.2fx" % (mine / ms)]
                print(head % tuple(cells))


if __name__ == "__main__":
    main()
