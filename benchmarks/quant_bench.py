"""Quantized models: ours (integer kernels, from_onnx + relax.build) vs onnxruntime on the
same onnxruntime-quantized model, latency best of N with 1 and 2 threads, and the float
model's latency for scale.

    PYTHONPATH=python python3 benchmarks/quant_bench.py [--repeat 50]

Models (tests/compiler_py/quant_models.py), each as quantized by onnxruntime.quantization:
  mlp        784-512-512-10 Gemm + Relu, batch 1 and 64
  cnn        conv3x3(32)-relu-maxpool -> conv3x3/2(64)-relu -> MatMul 10, 3x32x32, batch 8
  static  = QDQ, uint8 activations, int8 weights per tensor (quantize_static, calibrated on
            seeded random data); dynamic = DynamicQuantizeLinear + MatMulInteger / ConvInteger
Threads: ours through runtime.SetNumThreads, onnxruntime through intra_op_num_threads.
Every output is checked against onnxruntime's (within one output step for static, 1e-4 for
dynamic).
"""

import argparse
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "compiler_py"))
sys.path.insert(0, HERE)

from model_bench import _best  # noqa: E402  (best-of-N latency in ms, one definition)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeat", type=int, default=50)
    args = p.parse_args()

    import onnxruntime as ort
    import quant_models
    import tvm
    import tvm_ffi
    from tvm import relax
    from tvm.relax.frontend.onnx import from_onnx

    set_threads = tvm_ffi.get_global_func("runtime.SetNumThreads")
    floats = [("mlp b1", quant_models.mlp(1, (784, 512, 512, 10))),
              ("mlp b64", quant_models.mlp(64, (784, 512, 512, 10))),
              ("cnn b8", quant_models.cnn(8, 32, 32, 64))]
    print("latency in ms, best of %d; ratio = ours / onnxruntime (below 1: ours faster)" % args.repeat)
    head = "%-8s %-8s %9s | %9s %9s %9s | %9s %9s %9s"
    print(head % ("model", "kind", "compile s", "ours 1t", "ort 1t", "ratio", "ours 2t", "ort 2t", "ratio"))
    for name, fmodel in floats:
        x = np.random.default_rng(0).standard_normal(quant_models.input_shape(fmodel)).astype("float32")
        for kind in ("float", "static", "dynamic"):
            model = fmodel if kind == "float" else quant_models.quantize(fmodel, kind)
            t = time.time()
            vm = relax.VirtualMachine(relax.build(from_onnx(model), "llvm"), tvm.cpu())
            cells = [name, kind, "%.2f" % (time.time() - t)]
            xt = tvm.runtime.tensor(x)
            for threads in (1, 2):
                so = ort.SessionOptions()
                so.intra_op_num_threads = threads
                so.inter_op_num_threads = 1
                sess = ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"])
                feeds = {model.graph.input[0].name: x}
                ref = sess.run(None, feeds)[0]
                set_threads(threads)
                got = vm["main"](xt).numpy()
                np.testing.assert_allclose(got, ref, rtol=1e-4, atol=0.05 if kind == "static" else 1e-4)
                ours = _best(lambda: vm["main"](xt), args.repeat)
                theirs = _best(lambda: sess.run(None, feeds), args.repeat)
                cells += ["%.3f" % ours, "%.3f" % theirs, "%.2fx" % (ours / theirs)]
            print(head % tuple(cells), flush=True)


if __name__ == "__main__":
    main()
