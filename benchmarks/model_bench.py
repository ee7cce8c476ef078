"""Models compiled with the Relax default pipeline vs onnxruntime, in one run: compile time and
latency (best of N) with 1 and 2 threads.

    PYTHONPATH=python python3 benchmarks/model_bench.py [--repeat 50]

Models (ONNX, built by tests/compiler_py/test_onnx_frontend.py's builders):
  mlp        784-512-512-10 (Gemm, Relu, Softmax), batch 1 and 64
  encoder    a transformer encoder block, seq 128, d 256, 4 heads, FFN 1024 (MatMul, Softmax,
             LayerNormalization, Erf GELU, a mask)
  resnet     a ResNet-style CNN (conv-bn-relu, max pool, two residual blocks, global pool,
             Gemm) on 3x16x16, batch 8
Threads: ours through runtime.SetNumThreads, onnxruntime through intra_op_num_threads.
apache-tvm is not measured here (see docs/benchmarks.md).
"""

import argparse
import os
import sys
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


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=50)
    args = parser.parse_args()

    import onnxruntime as ort
    import tvm
    import tvm_ffi
    from test_onnx_frontend import attention_block_model, mlp_model, resnet_model
    from tvm import relax
    from tvm.relax.frontend.onnx import from_onnx

    set_threads = tvm_ffi.get_global_func("runtime.SetNumThreads")
    rng = np.random.default_rng(0)
    cases = [
        ("mlp b1", mlp_model((784, 512, 512, 10)), {"x": rng.random((1, 784), "float32")}),
        ("mlp b64", mlp_model((784, 512, 512, 10)), {"x": rng.random((64, 784), "float32")}),
        ("encoder s128 d256", attention_block_model(seq=128, d=256, heads=4),
         {"x": rng.standard_normal((1, 128, 256)).astype("float32"), "mask": np.ones((1, 128), "float32")}),
        ("resnet b8", resnet_model(), {"x": rng.standard_normal((8, 3, 16, 16)).astype("float32")}),
    ]
    print("%-20s %10s | %9s %9s %7s | %9s %9s %7s" % ("model", "compile s", "ours 1t", "ort 1t", "ratio",
                                                      "ours 2t", "ort 2t", "ratio"))
    for name, model, feeds in cases:
        t = time.time()
        ex = relax.build(from_onnx(model), "llvm")
        compile_s = time.time() - t
        vm = relax.VirtualMachine(ex, tvm.cpu())
        inputs = [tvm.runtime.tensor(v) for v in feeds.values()]
        row = [name, compile_s]
        ref = None
        for threads in (1, 2):
            so = ort.SessionOptions()
            so.intra_op_num_threads = threads
            so.inter_op_num_threads = 1
            sess = ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"])
            set_threads(threads)
            out = vm["main"](*inputs).numpy()
            ref = sess.run(None, feeds)[0]
            np.testing.assert_allclose(out, ref, rtol=1e-3, atol=1e-3)
            ours = _best(lambda: vm["main"](*inputs), args.repeat)
            theirs = _best(lambda: sess.run(None, feeds), args.repeat)
            row += [ours, theirs, ours / theirs]
        print("%-20s %10.2f | %8.3fms %8.3fms %6.2fx | %8.3fms %8.3fms %6.2fx" % tuple(row))


if __name__ == "__main__":
    main()
